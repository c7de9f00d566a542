"""Pure math of Module F: Eq. 27 (consolidated confidence), Eq. 28 (promotion), Eq. 29
(support/contradiction updates), the conflict ratio and lifecycle transitions, and Ind(C)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "Observation",
    "conflict_ratio",
    "consolidated_confidence",
    "independent_subset",
    "next_status",
    "promote",
    "update_beta",
]


@dataclass(frozen=True)
class Observation:
    """One candidate as consolidation sees it: case, source fingerprint, c_κ, Verify(κ)."""

    case: str
    fingerprint: str
    confidence: float
    verified: bool = True


def independent_subset(items: Sequence[Observation]) -> list[int]:
    """Ind(C): the largest subset in which no case id and no source fingerprint repeats.

    A candidate is an edge between its case and its fingerprint, so Ind(C) is a maximum
    bipartite matching. Kuhn's augmenting paths, trying candidates by descending confidence
    (ties by position), give a maximum matching that keeps the more confident candidates.
    Returns the selected indices in ascending order."""
    order = sorted(range(len(items)), key=lambda i: (-items[i].confidence, i))
    by_case: dict[str, list[int]] = {}
    for i in order:
        by_case.setdefault(items[i].case, []).append(i)
    owner: dict[str, int] = {}  # fingerprint -> candidate index matched to it

    def augment(case: str, seen: set[str]) -> bool:
        for i in by_case[case]:
            fp = items[i].fingerprint
            if fp in seen:
                continue
            seen.add(fp)
            holder = owner.get(fp)
            if holder is None or augment(items[holder].case, seen):
                owner[fp] = i
                return True
        return False

    for case in dict.fromkeys(items[i].case for i in order):
        augment(case, set())
    return sorted(owner.values())


def consolidated_confidence(confidences: Sequence[float], alpha0: float, beta0: float) -> float:
    """Conf(C) of Eq. 27 over the c_κ of Ind(C):
    (α_C + α₀) / (α_C + β_C + α₀ + β₀), α_C = Σ c_κ, β_C = Σ (1 − c_κ)."""
    a = sum(confidences)
    b = sum(1.0 - c for c in confidences)
    return (a + alpha0) / (a + b + alpha0 + beta0)


def promote(
    conf: float,
    n_cases: int,
    n_sources: int,
    all_verified: bool,
    thresholds: tuple[float, int, int],
) -> bool:
    """Promote(C, τ) of Eq. 28 with Table 2's (θ^c_τ, θ^x_τ, θ^s_τ)."""
    theta_c, theta_x, theta_s = thresholds
    return conf >= theta_c and n_cases >= theta_x and n_sources >= theta_s and all_verified


def update_beta(alpha: float, beta: float, c: float, *, support: bool) -> tuple[float, float]:
    """Eq. 29: support adds (c, 1 − c); contradiction adds (1 − c, c)."""
    if support:
        return alpha + c, beta + 1.0 - c
    return alpha + 1.0 - c, beta + c


def conflict_ratio(n_support: int, n_conflict: int) -> float:
    """cr(m) = n⁻ / (n⁺ + n⁻); 0 when nothing has been observed."""
    total = n_support + n_conflict
    return 0.0 if total == 0 else n_conflict / total


def next_status(
    status: str,
    *,
    confidence: float,
    n_support: int,
    n_conflict: int,
    contradicted: bool,
    review_ratio: float,
    deprecate_confidence: float,
    reactivate_ratio: float,
    reactivate_confidence: float,
) -> str:
    """The lifecycle of §4.6 after an update of a long-term record.

    active → under-review when cr(m) > 0.30; deprecated when an observed contradiction leaves
    c(m) < 0.45 (from active or under review); under-review → active only when cr(m) ≤ 0.20
    and c(m) ≥ 0.45. Other statuses do not move here."""
    cr = conflict_ratio(n_support, n_conflict)
    if status in ("active", "under-review") and contradicted and confidence < deprecate_confidence:
        return "deprecated"
    if status == "active" and cr > review_ratio:
        return "under-review"
    if status == "under-review" and cr <= reactivate_ratio and confidence >= reactivate_confidence:
        return "active"
    return status
