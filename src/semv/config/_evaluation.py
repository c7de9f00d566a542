"""The sections of evaluation: the harness (``eval``), the published ReMMD-Agent reference
(``remmd_eval``) and contestation with its CTR benchmark (``contest``)."""

from __future__ import annotations

from pydantic import Field

from semv.config._section import _Section

__all__ = ["ContestConfig", "EvalConfig", "RemmdEvalConfig"]


class EvalConfig(_Section):
    """Evaluation harness (SEMV §6: Table 4, Eq. 30, §6.4 bootstrap, Table S6 sweep)."""

    ece_bins: int = Field(10, ge=1, description="Equal-width confidence bins of ECE (Eq. 30).")
    bootstrap_replicates: int = Field(
        10_000, ge=1, description="Cluster-bootstrap replicates (§6.4: 10,000)."
    )
    bootstrap_level: float = Field(0.95, gt=0, lt=1, description="Bootstrap interval level.")
    bootstrap_seed: int = Field(0, description="Seed of the bootstrap resampling.")
    baseline_name: str = Field(
        "Tran et al. [44]", description="Reported baseline of the z-test (Table 4)."
    )
    baseline_accuracy: float = Field(
        0.891, ge=0, le=1, description="Its reported accuracy (89.10% on the full COSMOS test)."
    )
    baseline_n: int = Field(1700, ge=1, description="Its test-set size (n = 1,700).")
    temporal_tolerance_days: int = Field(
        0, ge=0, description="Days by which a reported event time may differ (Eq. 35)."
    )
    band_shift: float = Field(
        0.05, gt=0, lt=0.25, description="Shift of all decision cut-points in --sweep (Table S6)."
    )


class RemmdEvalConfig(_Section):
    """``semv eval remmd``: the published ReMMD-Agent numbers printed beside each procedure
    (ReMMD Table 4, Qwen3.5-9B backbone; recomputed from its 500 published runs by
    ``semv eval score --adapter remmd-results``)."""

    published_name: str = Field(
        "ReMMD-Agent (Qwen3.5-9B, published)", description="How the reference row is named."
    )
    published_l1_accuracy: float = Field(0.3720, ge=0, le=1, description="L1 accuracy 37.20.")
    published_l1_macro_f1: float = Field(0.3718, ge=0, le=1, description="L1 macro-F1 37.18.")
    published_l2_macro_f1: float = Field(0.4697, ge=0, le=1, description="L2 macro-F1 46.97.")
    published_l2_exact_match: float = Field(
        0.1000, ge=0, le=1, description="L2 exact match (subset accuracy) 10.00."
    )


class ContestConfig(_Section):
    """Human contestation (SEMV §4.5) and the CTR benchmark (§5.1, §6.4)."""

    policy: str = Field(
        "scoped",
        pattern=r"^(global|causal|scoped)$",
        description="Default revision policy: global (U), causal (C) or scoped (C+S).",
    )
    human_reliability: float = Field(
        0.7,
        ge=0.0,
        le=1.0,
        description="r_e of reviewer-supplied evidence that states none (not from the paper).",
    )
    bootstrap_replicates: int = Field(
        10_000, ge=100, description="Cluster-bootstrap replicates for CTR intervals (§6.4.1)."
    )
    ci_level: float = Field(0.95, gt=0.0, lt=1.0, description="Confidence level of intervals.")
    stochastic_rate: float = Field(
        0.2,
        ge=0.0,
        le=1.0,
        description="`--stochastic` CTR replay: probability that a perturbed agent output "
        "differs from the deterministic one (drops a draft, shifts a judge win rate).",
    )
