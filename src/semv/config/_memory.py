"""The ``memory`` section: Module F's verification-gated memory (SEMV §4.6)."""

from __future__ import annotations

from pydantic import Field

from semv.config._section import _Section

__all__ = ["MemoryConfig"]


class MemoryConfig(_Section):
    """Module F (SEMV §4.6, Eq. 26-29, Table 2, Table S4): verification-gated memory."""

    theta_v: float = Field(0.60, ge=0, le=1, description="θ_v of Eq. 26: minimum c_κ.")
    alpha0: float = Field(
        0.5, gt=0, description="α₀ of Eq. 27 (not given by the paper; Jeffreys prior)."
    )
    beta0: float = Field(0.5, gt=0, description="β₀ of Eq. 27 (Jeffreys prior).")
    episodic: tuple[float, int, int] = Field(
        (0.85, 1, 1), description="Table 2 (θ^c, θ^x, θ^s) for episodic observations."
    )
    failure: tuple[float, int, int] = Field(
        (0.70, 2, 2), description="Table 2 (θ^c, θ^x, θ^s) for failure lessons."
    )
    semantic: tuple[float, int, int] = Field(
        (0.75, 3, 3), description="Table 2 (θ^c, θ^x, θ^s) for semantic rules."
    )
    consolidate_every: int = Field(25, ge=1, description="Consolidate every N learning cases.")
    retention_cases: int = Field(
        100,
        ge=1,
        description="Short-term records older than this many learning cases are archived.",
    )
    review_ratio: float = Field(0.30, description="cr(m) above this moves a record under review.")
    deprecate_confidence: float = Field(
        0.45, description="Deprecation needs a contradiction and c(m) below this."
    )
    reactivate_ratio: float = Field(0.20, description="Reactivation needs cr(m) at most this.")
    reactivate_confidence: float = Field(0.45, description="... and c(m) at least this.")
    k_m: int = Field(5, ge=1, description="K_m: records returned per subclaim (Table S4).")
    w_semantic: float = Field(0.30, description="Retrieval weight: semantic similarity.")
    w_scope: float = Field(0.20, description="Retrieval weight: task/scope compatibility.")
    w_pattern: float = Field(0.20, description="Retrieval weight: evidence-pattern agreement.")
    w_confidence: float = Field(0.15, description="Retrieval weight: consolidated c(m).")
    w_support: float = Field(0.10, description="Retrieval weight: independent support.")
    w_use: float = Field(0.05, description="Retrieval weight: prior successful use.")
    semantic_gate: float = Field(0.10, description="Minimum semantic similarity to retrieve.")
    score_gate: float = Field(0.45, description="Minimum final retrieval score.")
    support_saturation: int = Field(
        5, ge=1, description="Independent cases at which the support term reaches 1."
    )
    cluster_similarity: float = Field(
        0.5, description="Lesson similarity at which two compatible candidates cluster."
    )
    similarity_bucket: float = Field(
        0.1, gt=0, description="Width of the similarity buckets a context-threshold lesson uses."
    )
    reflect_mismatch: float = Field(
        0.80, description="Offline reflector: c_κ of a failure lesson with one identified driver."
    )
    cue_similarity: tuple[float, float] = Field(
        (0.2, 0.4),
        description="Claim-similarity band edges (low | mid | high) of the typed observations a "
        "strength lesson's condition reads. Not from the paper.",
    )
    strength_down: float = Field(
        0.5,
        gt=0,
        lt=1,
        description="Factor an over-trusted strength lesson applies to the arguments it matches "
        "(w_a of Eq. 14 times this). Not from the paper.",
    )
    strength_up: float = Field(
        1.5,
        gt=1,
        le=2,
        description="Factor an under-trusted strength lesson applies (the result is clipped to "
        "1). Not from the paper.",
    )
    reflect_success: float = Field(
        0.90, description="Offline reflector: c_κ of an episodic observation of a correct case."
    )
    reflect_weak_provenance: float = Field(
        0.15, description="Offline reflector: c_κ reduction when the driver lacks provenance."
    )
    export_key_env: str = Field(
        "SEMV_MEMORY_KEY",
        description="Environment variable holding a key: when set, `semv memory export` signs "
        "the records' hashes (HMAC-SHA256) and `semv memory import` refuses unsigned or "
        "mis-signed files. Not from the paper.",
    )
    reflect_llm_unresolved: float = Field(
        0.25,
        ge=0,
        le=1,
        description="LLM reflector: c_κ reduction for a lesson that also cited ids outside the "
        "trace (those ids are dropped; the gate then decides on the rest).",
    )
