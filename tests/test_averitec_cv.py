"""The AVeriTeC cross-validation (benchmarks/averitec_cv.py): outer folds grouped by claim and
deterministic, and no outer-test claim in its fold's fit (checked on made-up claims with stub
features, so the test needs neither the data set nor a model)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "scripts")]
from fit_stance import nearest_other  # noqa: E402

import averitec_cv as cv  # noqa: E402
from semv.retrieval._fit import Pair as RelPair  # noqa: E402
from semv.retrieval._relevance import RelevanceFeatures  # noqa: E402

TOPICS = ["flood", "election", "vaccine", "bridge", "protest", "storm", "fire", "budget"]
CLAIMS = [
    f"The {TOPICS[i % 8]} in town {i // 8} hit {TOPICS[(i * 3) % 8]} records" for i in range(60)
]
LABELS = ["Supported", "Refuted", "Not Enough Evidence", "Conflicting Evidence/Cherrypicking"]


def stub(i: int, j: int) -> tuple[float, ...]:
    return (float(i), float(j))


def test_folds_deterministic_cover_every_claim_once() -> None:
    first = cv.outer_folds(CLAIMS, 5, repeat=0)
    assert first == cv.outer_folds(CLAIMS, 5, repeat=0)
    assert sorted(i for part in first for i in part) == list(range(len(CLAIMS)))
    assert all(part for part in first)
    # another repeat is another declared assignment, not the same one
    assert first != cv.outer_folds(CLAIMS, 5, repeat=1)
    # the assignment of a claim depends on that claim only, not on the others
    assert cv.fold_of(7, CLAIMS[7], 5, 0) == next(n for n, p in enumerate(first) if 7 in p)


def test_stance_pairs_grouped_by_claim_and_disjoint() -> None:
    labels = [LABELS[i % 4] for i in range(len(CLAIMS))]
    texts = [f"evidence {i}" if i % 11 else "" for i in range(len(CLAIMS))]
    overlap = cv.overlap_matrix(CLAIMS)
    parts = cv.outer_folds(CLAIMS, 5, repeat=0)
    for n, test in enumerate(parts):
        train = [i for m, p in enumerate(parts) if m != n for i in p]
        fit, held = cv.stance_fold(labels, texts, train, test, overlap, stub)
        assert fit and held
        assert all(p.claim not in test and p.evidence_of not in test for p in fit)
        assert all(p.claim in test and p.evidence_of in test for p in held)
        # the features are the pair's, whatever the fold
        assert all(p.values == (p.claim, p.evidence_of) for p in fit + held)


def test_nearest_matches_the_fit_script() -> None:
    records = [{"claim": c} for c in CLAIMS]
    overlap = cv.overlap_matrix(CLAIMS)
    split = list(range(0, len(CLAIMS), 3))
    for i in split:
        assert cv.nearest(i, split, overlap) == nearest_other(i, split, records)


def test_leak_is_caught() -> None:
    feats = RelevanceFeatures(0.5, 0.1, 0.0, 0.0, 0.3)
    pairs = [RelPair(i, f"d{i}-{r}", r, r == 0, feats) for i in range(10) for r in range(3)]
    fit, held = cv.relevance_fold(pairs, range(0, 8), range(8, 10))
    assert {p.claim for p in fit} == set(range(8)) and {p.claim for p in held} == {8, 9}
    with pytest.raises(AssertionError, match="outer-test claim"):
        cv.check_disjoint([(3,), (9,)], [8, 9])
    # a stance training pair whose evidence is a test claim's is a leak too
    with pytest.raises(AssertionError, match=r"\[8\]"):
        cv.check_disjoint([(1, 8)], [8, 9])
