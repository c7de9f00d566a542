"""The synchronous Python API: ``semv.contest.contest(run, batch) -> Revision``."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from semv.agents import Agents
from semv.config import Settings, load_settings
from semv.contest._backend import reopen_agents
from semv.contest._batch import Policy, ReviewBatch, load_batch
from semv.contest._revise import Revision, revise
from semv.contest._routing import Action
from semv.store import Store

__all__ = ["contest"]


def contest(
    run: str,
    batch: ReviewBatch | Sequence[Action] | str | Path,
    *,
    policy: Policy | str | None = None,
    data_dir: str | Path = ".semv",
    store: Store | None = None,
    settings: Settings | None = None,
    agents: Agents | None = None,
    reports_dir: str | Path | None = None,
    refresh_sources: bool = False,
) -> Revision:
    """Apply a review batch (a ``ReviewBatch``, a list of actions, or a batch file) to
    committed run ``run`` and return the revision: a new run linked to ``run``, with its
    routing plan, locality and before/after decision delta. The revision reads the parent's
    indexes and sources unless ``refresh_sources``."""
    settings = settings or load_settings()
    if isinstance(batch, str | Path):
        batch = load_batch(Path(batch))
    own = store is None
    active = store or Store(Path(data_dir))
    explicit = agents is not None  # agents handed in are a deliberate choice
    if agents is None:  # the parent's backend and model, reopened
        agents, _ = reopen_agents(active, run, settings)
    try:
        return asyncio.run(
            revise(
                active,
                run,
                batch,
                settings=settings,
                agents=agents,
                policy=Policy(policy) if policy is not None else None,
                backend_explicit=explicit,
                reports_dir=Path(reports_dir) if reports_dir is not None else None,
                refresh_sources=refresh_sources,
            )
        )
    finally:
        if own:
            active.close()
