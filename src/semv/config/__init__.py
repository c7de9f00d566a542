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
start-up prelude read it below this package's layer and without pydantic), and by no other
module: a module without a ``Settings`` in reach calls ``environment()``, a secret named by a
configuration key is read by ``environment_variable``, and a child process gets its
environment from ``child_environment`` (a test scans the source for other readers).

Every stage declares the sections it reads (``graph.StageSpec.reads``); those values enter
the stage's fingerprint, so changing a constant recomputes exactly the stages that read it.

Every Table S4 constant lives here, in the section of the module that reads it (keyframes
K_f and the pHash duplicate distance in ``media``; pHash match distance and the CLIP threshold
in ``reverse_search``; the forensic threshold in ``forensics``; K_m, θ_v and the promotion
thresholds in ``memory``): a test checks that every field here is read somewhere in ``semv``.

The sections are defined by topic, one module each (import them from here, never from the
modules): ``_reasoning`` (strength, decision, clash, relations, aggregation, confidence,
ranking, sources, review, escalation), ``_offline``, ``_media`` (media, forensics,
reverse_search), ``_memory``, ``_retrieval`` (retrieval, links), ``_llm`` (agents, llm,
local), ``_web`` (web, limits), ``_export``, ``_procedures`` (remmd, baselines),
``_evaluation`` (eval, remmd_eval, contest); ``_settings`` holds ``Settings`` and the file
lookup.
"""

from __future__ import annotations

from semv._environment import Environment, child_environment, environment, environment_variable
from semv.config._evaluation import ContestConfig, EvalConfig
from semv.config._evaluation import RemmdEvalConfig as RemmdEvalConfig
from semv.config._export import ExportConfig
from semv.config._llm import BackendConfig, LlmConfig, LlmRoleConfig, LocalConfig, ModelPrice
from semv.config._media import ForensicsConfig, MediaConfig, ReverseSearchConfig
from semv.config._memory import MemoryConfig
from semv.config._offline import OfflineAgentConfig
from semv.config._procedures import BaselinesConfig
from semv.config._procedures import RemmdConfig as RemmdConfig
from semv.config._reasoning import (
    AggregationConfig,
    ClashConfig,
    ConfidenceConfig,
    DecisionConfig,
    EvidenceRankingConfig,
    RelationsConfig,
    ReviewDetectionConfig,
    SourceReliabilityConfig,
    StrengthConfig,
)
from semv.config._reasoning import EscalationConfig as EscalationConfig
from semv.config._retrieval import LinkConfig as LinkConfig
from semv.config._retrieval import RetrievalConfig
from semv.config._settings import Settings, config_file, load_settings
from semv.config._web import LimitsConfig, WebConfig

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
