"""Choose and build the agent backend (``--backend offline|llm``, ``[agents] backend``)."""

from __future__ import annotations

from typing import Any

from semv.agents._protocol import Agents
from semv.config import Settings
from semv.errors import ConfigError
from semv.store import Store

__all__ = ["BACKENDS", "build_agents", "executor_concurrency", "with_llm_overrides"]

BACKENDS = ("offline", "llm")


def with_llm_overrides(
    settings: Settings,
    *,
    backend: str | None = None,
    url: str | None = None,
    model: str | None = None,
) -> Settings:
    """Command-line values over the configuration file's (settings are frozen: a copy)."""
    if backend is not None and backend not in BACKENDS:
        raise ConfigError(f"--backend: unknown backend {backend!r} (choose {', '.join(BACKENDS)})")
    llm: dict[str, Any] = {k: v for k, v in (("url", url), ("model", model)) if v}
    update: dict[str, Any] = {}
    if backend is not None:
        update["agents"] = settings.agents.model_copy(update={"backend": backend})
    if llm:
        update["llm"] = settings.llm.model_copy(update=llm)
    return settings.model_copy(update=update) if update else settings


def build_agents(settings: Settings, *, store: Store | None = None, replay: bool = False) -> Agents:
    """The configured backend; the LLM backend keeps its response cache in ``store``."""
    from semv.agents.offline import OfflineAgents

    if settings.agents.backend == "offline":
        if replay:
            raise ConfigError("--replay replays model answers: it needs --backend llm")
        return OfflineAgents(settings)
    from semv.agents.llm import LlmAgents

    return LlmAgents(settings, store=store, replay=replay)


def executor_concurrency(settings: Settings) -> int:
    """Independent nodes run together; with a model server, as many as it may serve at once
    (so the wall time can approach the critical path)."""
    return max(4, settings.llm.concurrency) if settings.agents.backend == "llm" else 4
