"""Which agent backend a revision runs with (Module E).

A revision reopens its parent's evidence sources and procedure, and also its backend: the
backend name and model recorded in the parent's ``runs.agents`` identity, with the server URL
recorded in its ``run.started`` event (runs from before that record fall back to the
configured URL). Asking for another backend or model is explicit (``--backend``,
``--llm-model``); it is recorded in the trace (``contest.applied``) and in the revision, and
it recomputes every agent stage (the backend identity is part of their fingerprints), i.e. a
global recomputation rather than a local revision.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from semv.agents import Agents
from semv.agents.backends import BACKENDS, build_agents, with_llm_overrides
from semv.config import Settings
from semv.errors import ContestError
from semv.model import TraceKind
from semv.store import Store

__all__ = ["BackendKind", "backend_kind", "reopen_agents", "revision_settings"]


@dataclass(frozen=True)
class BackendKind:
    """What changes a revision's answers: backend name and model (None for offline)."""

    name: str
    model: str | None

    def __str__(self) -> str:
        return self.name if self.model is None else f"{self.name} (model {self.model})"


def backend_kind(identity: str) -> BackendKind:
    """The backend name and model of an ``Agents.identity`` string."""
    parts = identity.split("/")
    model = next((p.removeprefix("model:") for p in parts if p.startswith("model:")), None)
    return BackendKind(parts[0], model)


def revision_settings(
    settings: Settings,
    parent_agents: str,
    parent_started: dict[str, Any],
    *,
    backend: str | None = None,
    url: str | None = None,
    model: str | None = None,
) -> tuple[Settings, bool]:
    """The settings a revision of a run made with ``parent_agents`` builds its backend from,
    and whether the caller explicitly asked for another backend or model. Without
    ``backend``/``model`` the parent's backend and model are reopened."""
    parent = backend_kind(parent_agents)
    if parent.name not in BACKENDS:
        raise ContestError(f"the run was made with an unknown backend {parent_agents!r}")
    recorded = parent_started.get("backend")
    recorded_url = recorded.get("llm_url") if isinstance(recorded, dict) else None
    chosen = backend or parent.name
    if chosen == "llm":
        model = model or (parent.model if parent.name == "llm" else None)
        url = url or (recorded_url if parent.name == "llm" else None)
    revised = with_llm_overrides(settings, backend=chosen, url=url, model=model)
    wanted = BackendKind(chosen, revised.llm.model if chosen == "llm" else None)
    return revised, wanted != parent


def reopen_agents(
    store: Store,
    run: str,
    settings: Settings,
    *,
    backend: str | None = None,
    url: str | None = None,
    model: str | None = None,
    replay: bool = False,
) -> tuple[Agents, bool]:
    """The agent backend a revision of ``run`` uses (``revision_settings``), built, and
    whether it is an explicitly requested change."""
    record = store.get_run(run)
    events = store.trace(record.run_id)
    started = next((e.payload for e in events if e.kind is TraceKind.RUN_STARTED), {})
    revised, explicit = revision_settings(
        settings, record.agents, started, backend=backend, url=url, model=model
    )
    return build_agents(revised, store=store, replay=replay), explicit
