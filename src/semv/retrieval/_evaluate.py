"""Retrieval evaluation on AVeriTeC: does querying the corpus with a claim's text find that
claim's own gold evidence (its question-answer documents and their source URLs)?

For each claim with at least one answer document, over the top-k retrieved documents:

- ``recall@k``: the share of the claim's gold answer documents retrieved;
- ``url_recall@k``: the share of the claim's gold source URLs (Wayback snapshots unwrapped)
  among the retrieved documents' URLs;
- ``hit@k``: whether at least one gold answer document was retrieved;
- ``mrr``: reciprocal rank of the first gold document (0 when none in the top k).

All are macro-averaged over claims. The corpus may hold other documents (distractors).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from semv.nlp.dates import iso_date
from semv.retrieval._documents import Document
from semv.retrieval._source import CorpusSource
from semv.retrieval._urls import unwrap_archive

__all__ = ["RetrievalScores", "evaluate_retrieval"]


@dataclass(frozen=True)
class RetrievalScores:
    name: str
    claims: int
    k: int
    recall: float
    url_recall: float
    hit: float
    mrr: float
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "claims": self.claims,
            "k": self.k,
            f"recall@{self.k}": round(self.recall, 4),
            f"url_recall@{self.k}": round(self.url_recall, 4),
            f"hit@{self.k}": round(self.hit, 4),
            "mrr": round(self.mrr, 4),
            "seconds": round(self.seconds, 2),
        }


def _norm_url(url: str | None) -> str | None:
    if not url:
        return None
    return unwrap_archive(url).strip().rstrip("/").lower()


def evaluate_retrieval(
    records: Sequence[dict[str, Any]],
    documents: Sequence[Document],
    source: CorpusSource,
    *,
    name: str,
    k: int = 10,
    use_claim_date: bool = False,
    on_claim: Callable[[], None] | None = None,
) -> RetrievalScores:
    """Score ``source`` on AVeriTeC ``records`` whose answers were ingested as ``documents``."""
    import time

    gold_docs: dict[str, set[str]] = {}
    gold_urls: dict[str, set[str]] = {}
    for doc in documents:
        if doc.group is None:
            continue
        gold_docs.setdefault(doc.group, set()).add(doc.doc_id)
        url = _norm_url(doc.url)
        if url:
            gold_urls.setdefault(doc.group, set()).add(url)
    started = time.perf_counter()
    recall = url_recall = hit = mrr = 0.0
    n = 0
    for i, record in enumerate(records):
        group = f"averitec:{i}"
        gold = gold_docs.get(group)
        if not gold:
            if on_claim is not None:
                on_claim()
            continue
        before = iso_date(record.get("claim_date")) if use_claim_date else None
        hits = source.hits(str(record["claim"]), before=before, k=k)
        ids = [h.doc_id for h in hits]
        found = gold & set(ids)
        recall += len(found) / len(gold)
        urls = {u for u in (_norm_url(h.url) for h in hits) if u}
        g_urls = gold_urls.get(group, set())
        url_recall += len(g_urls & urls) / len(g_urls) if g_urls else 0.0
        hit += 1.0 if found else 0.0
        first = next((r for r, d in enumerate(ids, start=1) if d in gold), None)
        mrr += 1.0 / first if first else 0.0
        n += 1
        if on_claim is not None:
            on_claim()
    seconds = time.perf_counter() - started
    div = max(n, 1)
    return RetrievalScores(
        name, n, k, recall / div, url_recall / div, hit / div, mrr / div, seconds
    )
