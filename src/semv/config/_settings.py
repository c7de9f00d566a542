"""``Settings``, the whole configuration (one field per section), and how a command finds and
reads its TOML file (``config_file``, ``load_settings``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from semv._environment import Environment, environment
from semv.config._evaluation import ContestConfig, EvalConfig, RemmdEvalConfig
from semv.config._export import ExportConfig
from semv.config._llm import BackendConfig, LlmConfig, LocalConfig
from semv.config._media import ForensicsConfig, MediaConfig, ReverseSearchConfig
from semv.config._memory import MemoryConfig
from semv.config._offline import OfflineAgentConfig
from semv.config._procedures import BaselinesConfig, RemmdConfig
from semv.config._reasoning import (
    AggregationConfig,
    ClashConfig,
    ConfidenceConfig,
    DecisionConfig,
    EscalationConfig,
    EvidenceRankingConfig,
    RelationsConfig,
    ReviewDetectionConfig,
    SourceReliabilityConfig,
    StrengthConfig,
)
from semv.config._retrieval import LinkConfig, RetrievalConfig
from semv.config._section import _Section
from semv.config._web import LimitsConfig, WebConfig

__all__ = ["Settings", "config_file", "load_settings"]


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
