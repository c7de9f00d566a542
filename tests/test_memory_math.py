"""Eq. 27-29, Ind(C), the conflict ratio and every lifecycle transition, hand-computed."""

from __future__ import annotations

import pytest

from semv.config import Settings
from semv.memory import (
    MemoryType,
    Observation,
    conflict_ratio,
    consolidated_confidence,
    independent_subset,
    next_status,
    promote,
    thresholds,
    update_beta,
)

CFG = Settings().memory
LIFE = {
    "review_ratio": CFG.review_ratio,
    "deprecate_confidence": CFG.deprecate_confidence,
    "reactivate_ratio": CFG.reactivate_ratio,
    "reactivate_confidence": CFG.reactivate_confidence,
}


def test_table2_and_constants_are_the_papers() -> None:
    assert thresholds(CFG, MemoryType.EPISODIC) == (0.85, 1, 1)
    assert thresholds(CFG, MemoryType.FAILURE) == (0.70, 2, 2)
    assert thresholds(CFG, MemoryType.SEMANTIC) == (0.75, 3, 3)
    assert CFG.theta_v == 0.60 and CFG.k_m == 5 and CFG.consolidate_every == 25
    assert (CFG.review_ratio, CFG.deprecate_confidence) == (0.30, 0.45)
    assert (CFG.reactivate_ratio, CFG.reactivate_confidence) == (0.20, 0.45)


def test_eq27_consolidated_confidence() -> None:
    # α_C = 0.8 + 0.9 = 1.7, β_C = 0.2 + 0.1 = 0.3; (1.7 + 0.5) / (2.0 + 1.0) = 0.7333...
    assert consolidated_confidence([0.8, 0.9], 0.5, 0.5) == pytest.approx(2.2 / 3)
    # priors (1, 1), one candidate c = 0.6: (0.6 + 1) / (1 + 2) = 0.5333...
    assert consolidated_confidence([0.6], 1.0, 1.0) == pytest.approx(1.6 / 3)
    # empty cluster: the prior mean
    assert consolidated_confidence([], 0.5, 0.5) == pytest.approx(0.5)


def test_eq28_promotion_per_type() -> None:
    fail = thresholds(CFG, MemoryType.FAILURE)
    assert promote(2.2 / 3, 2, 2, True, fail)
    assert not promote(2.2 / 3, 2, 1, True, fail)  # one source
    assert not promote(2.2 / 3, 1, 2, True, fail)  # one case
    assert not promote(2.2 / 3, 2, 2, False, fail)  # an unverified member
    assert not promote(0.69, 5, 5, True, fail)
    epi = thresholds(CFG, MemoryType.EPISODIC)
    # a single c = 0.95 observation: (0.95 + 0.5) / 2 = 0.725 < 0.85
    assert not promote(consolidated_confidence([0.95], 0.5, 0.5), 1, 1, True, epi)
    # four independent: (3.8 + 0.5) / 5 = 0.86 ≥ 0.85
    assert promote(consolidated_confidence([0.95] * 4, 0.5, 0.5), 4, 4, True, epi)
    sem = thresholds(CFG, MemoryType.SEMANTIC)
    assert not promote(0.9, 2, 3, True, sem) and promote(0.75, 3, 3, True, sem)


def test_eq29_updates() -> None:
    assert update_beta(1.0, 1.0, 0.8, support=True) == pytest.approx((1.8, 1.2))
    assert update_beta(1.0, 1.0, 0.8, support=False) == pytest.approx((1.2, 1.8))
    a, b = update_beta(1.8, 1.2, 0.9, support=True)  # (2.7, 1.3): c(m) = 0.675
    assert a / (a + b) == pytest.approx(0.675)


def test_conflict_ratio() -> None:
    assert conflict_ratio(0, 0) == 0.0
    assert conflict_ratio(2, 1) == pytest.approx(1 / 3)
    assert conflict_ratio(4, 1) == pytest.approx(0.2)


def test_lifecycle_transitions() -> None:
    # active → under review: cr = 1/3 > 0.30, c(m) = 0.55 ≥ 0.45 (no deprecation)
    assert (
        next_status("active", confidence=0.55, n_support=2, n_conflict=1, contradicted=True, **LIFE)
        == "under-review"
    )
    # cr = 0.25 ≤ 0.30 stays active
    assert (
        next_status("active", confidence=0.55, n_support=3, n_conflict=1, contradicted=True, **LIFE)
        == "active"
    )
    # deprecation: an observed contradiction and c(m) = 0.44 < 0.45
    assert (
        next_status("active", confidence=0.44, n_support=3, n_conflict=1, contradicted=True, **LIFE)
        == "deprecated"
    )
    assert (
        next_status(
            "under-review", confidence=0.40, n_support=1, n_conflict=1, contradicted=True, **LIFE
        )
        == "deprecated"
    )
    # low confidence without a contradiction in this update is not deprecated
    assert (
        next_status(
            "active", confidence=0.40, n_support=3, n_conflict=0, contradicted=False, **LIFE
        )
        == "active"
    )
    # reactivation: cr = 1/5 = 0.20 ≤ 0.20 and c(m) = 0.6 ≥ 0.45
    assert (
        next_status(
            "under-review", confidence=0.6, n_support=4, n_conflict=1, contradicted=False, **LIFE
        )
        == "active"
    )
    # not yet: cr = 0.25
    assert (
        next_status(
            "under-review", confidence=0.6, n_support=3, n_conflict=1, contradicted=False, **LIFE
        )
        == "under-review"
    )
    # ... or c(m) = 0.44
    assert (
        next_status(
            "under-review", confidence=0.44, n_support=4, n_conflict=1, contradicted=False, **LIFE
        )
        == "under-review"
    )
    # deprecated and archived records do not move here
    assert (
        next_status(
            "deprecated", confidence=0.9, n_support=9, n_conflict=0, contradicted=False, **LIFE
        )
        == "deprecated"
    )


def test_independent_subset_is_a_maximum_matching() -> None:
    items = [
        Observation("A", "fp1", 0.9),
        Observation("A", "fp2", 0.8),
        Observation("B", "fp1", 0.7),
    ]
    # greedy by confidence would keep only (A, fp1); the maximum keeps (A, fp2) and (B, fp1)
    assert independent_subset(items) == [1, 2]
    same_source = [Observation(f"case{i}", "fp", 0.9) for i in range(5)]
    assert len(independent_subset(same_source)) == 1
    same_case = [Observation("case", f"fp{i}", 0.9) for i in range(5)]
    assert len(independent_subset(same_case)) == 1
    distinct = [Observation(f"c{i}", f"f{i}", 0.5 + i / 10) for i in range(4)]
    assert independent_subset(distinct) == [0, 1, 2, 3]
    # among maximum subsets the more confident candidate of a case is kept
    assert independent_subset([Observation("A", "f1", 0.6), Observation("A", "f2", 0.9)]) == [1]
