"""The parameters the reasoning math reads, as the shapes it needs (structural types).

``semv.reasoning`` imports nothing of semv but the data model: its constants are passed in by
the caller, which hands over the matching section of ``semv.config.Settings``
(``settings.strength`` satisfies :class:`StrengthParams`, ``settings.decision``
:class:`DecisionParams` ...). Each protocol names only the fields the math reads, so the
sections stay the one place the paper's values are written (Table S4).
"""

from __future__ import annotations

from typing import Protocol

__all__ = [
    "AggregationParams",
    "ClashParams",
    "ConfidenceParams",
    "DecisionParams",
    "RelationsParams",
    "ReviewParams",
    "StrengthParams",
]


class StrengthParams(Protocol):
    """Eq. 14: the feature weights, multipliers and caps of the argument strength w_a."""

    @property
    def w_reliability(self) -> float: ...
    @property
    def w_relevance(self) -> float: ...
    @property
    def w_source_diversity(self) -> float: ...
    @property
    def w_modality_diversity(self) -> float: ...
    @property
    def w_provenance(self) -> float: ...
    @property
    def w_specificity(self) -> float: ...
    @property
    def eta_unverified(self) -> float: ...
    @property
    def eta_uncertain(self) -> float: ...
    @property
    def eta_event(self) -> float: ...
    @property
    def source_cap(self) -> int: ...
    @property
    def modality_cap(self) -> int: ...
    @property
    def specificity_chars(self) -> int: ...
    @property
    def specificity_floor(self) -> float: ...


class DecisionParams(Protocol):
    """Eq. 17-18: the neutral base β_k and the thresholds of the decision bands."""

    @property
    def base_score(self) -> float: ...
    @property
    def refuted(self) -> float: ...
    @property
    def weakly_refuted(self) -> float: ...
    @property
    def weakly_supported(self) -> float: ...
    @property
    def supported(self) -> float: ...


class ClashParams(Protocol):
    """Clash resolution (A-QBAF MV2026 §2.6.1): when a support and an attack clash."""

    @property
    def threshold(self) -> float: ...
    @property
    def margin(self) -> float: ...
    @property
    def reduction(self) -> float: ...


class RelationsParams(Protocol):
    """Sparse argument relations (A-QBAF MV2026 §2.5)."""

    @property
    def enabled(self) -> bool: ...
    @property
    def trusted_reliability(self) -> float: ...


class AggregationParams(Protocol):
    """The mean-score thresholds of the aggregation rules (SEMV §4.4)."""

    @property
    def verified_mean(self) -> float: ...
    @property
    def insufficient_mean(self) -> float: ...


class ConfidenceParams(Protocol):
    """Eq. 19: the confidence floor of each internal decision."""

    @property
    def verified(self) -> float: ...
    @property
    def mostly_verified(self) -> float: ...
    @property
    def partially_verified(self) -> float: ...
    @property
    def false_context(self) -> float: ...
    @property
    def manipulated_or_synthetic(self) -> float: ...
    @property
    def insufficient_evidence(self) -> float: ...
    @property
    def uncertain(self) -> float: ...


class ReviewParams(Protocol):
    """When a subclaim's evidence calls for review (A-QBAF MV2026 §2.6.3)."""

    @property
    def low_reliability(self) -> float: ...
    @property
    def near_tie_ratio(self) -> float: ...
    @property
    def ocr_asr_min_overlap(self) -> float: ...
