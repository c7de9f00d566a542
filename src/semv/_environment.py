"""The configuration's one reader of the process environment (re-exported by ``semv.config``).

``Environment`` holds what semv takes from the environment besides the paper's constants
(those are ``semv.config.Settings``, whose ``SEMV_<SECTION>__<FIELD>`` variables pydantic-settings
reads): where caches and models live, the start-up switches, the head log, the artifact mirror
and service endpoints. ``environment_variable`` reads a secret a configuration key names, and
``child_environment`` is the environment a child process starts with. No other module of semv
reads ``os.environ`` (a test scans the source).

Standard library only, and below every package (``semv.nlp`` and ``semv._worker_process`` read
it; ``semv.config`` sits above them): a worker process and ``semv verify``'s prelude read it
without importing pydantic.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Final

from semv.errors import ConfigError

__all__ = ["VARIABLES", "Environment", "child_environment", "environment", "environment_variable"]

_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True)
class Environment:
    """What the environment says (each field from the variable ``VARIABLES`` names; an empty
    variable counts as unset). Not part of a run's fingerprint or settings hash: these values
    say where files live and how a process starts, never what a verdict is."""

    config: Path | None = None
    """``SEMV_CONFIG``: the TOML file a command reads when ``--config`` is not given."""
    cache_dir: Path | None = None
    """``SEMV_CACHE_DIR``: where derived caches live (gazetteer, embeddings, ONNX models,
    plots, templates, tool versions); default ``$XDG_CACHE_HOME/semv``."""
    models_dir: Path | None = None
    """``SEMV_MODELS_DIR``: where assembled local LLM models live; default
    ``$XDG_CACHE_HOME/semv/models``."""
    xdg_cache_home: Path | None = None
    """``XDG_CACHE_HOME``: the user cache directory; default ``~/.cache``."""
    ocr_worker: bool | None = None
    """``SEMV_OCR_WORKER``: 1/0 turns the OCR worker process of ``semv verify`` on/off; unset:
    on where this process may use two or more CPUs."""
    nlp_worker: bool | None = None
    """``SEMV_NLP_WORKER``: 1/0 turns the NLP worker process of ``semv verify --text-only
    --backend llm`` on/off; unset: on with two or more usable CPUs."""
    llm_prefetch: bool = True
    """``SEMV_LLM_PREFETCH``: 0 stops sending the decomposer's LLM request before the pipeline
    is imported."""
    embed_cache: bool = True
    """``SEMV_EMBED_CACHE``: 0 turns the on-disk embedding cache off."""
    onnx_cache: bool = True
    """``SEMV_ONNX_CACHE``: 0 turns the cache of optimised ONNX OCR models off."""
    plot_cache: bool = True
    """``SEMV_PLOT_CACHE``: 0 turns the cache of rendered evaluation plots off."""
    head_log: Path | None = None
    """``SEMV_HEAD_LOG``: the append-only head log of a store; default
    ``<data dir>/heads.log`` (none for a store given by URL)."""
    head_key: str | None = None
    """``SEMV_HEAD_KEY``: the key that signs head log lines (never printed)."""
    artifacts_url: str | None = None
    """``SEMV_ARTIFACTS_URL``: a shared fsspec location artifacts are mirrored to."""
    ray_address: str | None = None
    """``RAY_ADDRESS``: the Ray cluster ``--ray`` joins; unset: a local one."""
    searxng_url: str | None = None
    """``SEARXNG_URL``: the SearXNG instance of ``--web-search searxng``."""

    def __repr__(self) -> str:
        shown = (
            f"{f.name}={'***' if f.name == 'head_key' and self.head_key else repr(value)}"
            for f in fields(self)
            for value in (getattr(self, f.name),)
        )
        return f"Environment({', '.join(shown)})"

    @property
    def cache_root(self) -> Path:
        """``cache_dir``, else ``$XDG_CACHE_HOME/semv`` (``~/.cache/semv``)."""
        if self.cache_dir is not None:
            return self.cache_dir
        return (self.xdg_cache_home or Path.home() / ".cache") / "semv"

    @property
    def models_root(self) -> Path:
        """``models_dir``, else ``$XDG_CACHE_HOME/semv/models`` (``~/.cache/semv/models``)."""
        if self.models_dir is not None:
            return self.models_dir
        return (self.xdg_cache_home or Path.home() / ".cache") / "semv" / "models"


VARIABLES: Final[dict[str, str]] = {
    "config": "SEMV_CONFIG",
    "cache_dir": "SEMV_CACHE_DIR",
    "models_dir": "SEMV_MODELS_DIR",
    "xdg_cache_home": "XDG_CACHE_HOME",
    "ocr_worker": "SEMV_OCR_WORKER",
    "nlp_worker": "SEMV_NLP_WORKER",
    "llm_prefetch": "SEMV_LLM_PREFETCH",
    "embed_cache": "SEMV_EMBED_CACHE",
    "onnx_cache": "SEMV_ONNX_CACHE",
    "plot_cache": "SEMV_PLOT_CACHE",
    "head_log": "SEMV_HEAD_LOG",
    "head_key": "SEMV_HEAD_KEY",
    "artifacts_url": "SEMV_ARTIFACTS_URL",
    "ray_address": "RAY_ADDRESS",
    "searxng_url": "SEARXNG_URL",
}
"""Each field of ``Environment`` → the variable it is read from."""

_PATHS: Final = frozenset({"config", "cache_dir", "models_dir", "xdg_cache_home", "head_log"})
_SWITCHES: Final = frozenset(
    {"ocr_worker", "nlp_worker", "llm_prefetch", "embed_cache", "onnx_cache", "plot_cache"}
)


def environment() -> Environment:
    """The environment's values now (~10 µs: read at each use, so a changed variable counts).

    Raises ``semv.errors.ConfigError`` naming the variable when a switch is neither 1 nor 0
    (nor true/false, yes/no, on/off)."""
    values: dict[str, object] = {}
    for name, variable in VARIABLES.items():
        raw = os.environ.get(variable, "").strip()
        if not raw:
            continue
        if name in _SWITCHES:
            if raw.lower() not in _TRUE | _FALSE:
                raise ConfigError(f"environment: {variable}={raw!r}: expected 1 or 0")
            values[name] = raw.lower() in _TRUE
        elif name in _PATHS:
            values[name] = Path(raw)
        else:
            values[name] = raw
    return Environment(**values)  # type: ignore[arg-type]


def environment_variable(name: str) -> str | None:
    """The value of the variable ``name`` (a secret named by a configuration key, such as
    ``llm.api_key_env``), None when unset or empty; never stored in ``Settings``."""
    return os.environ.get(name) or None


def child_environment(**overrides: str) -> dict[str, str]:
    """The environment of a child process: this one's (a tool such as Chromium needs PATH and
    the locale; a library in a worker, the proxies), with ``overrides``."""
    return {**os.environ, **overrides}
