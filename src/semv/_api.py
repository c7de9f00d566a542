"""The Python API: ``semv.verify``."""

from __future__ import annotations

from pathlib import Path

from semv._aio import run as run_quietly
from semv.adapters import get_adapter, load_cases
from semv.agents import Agents
from semv.agents.backends import build_agents
from semv.config import Settings, load_settings
from semv.model import Case, Result
from semv.pipeline import run_case
from semv.procedures import DEFAULT_PROCEDURE
from semv.store import Store

__all__ = ["load_cases", "verify"]


def verify(
    case: Case | str | Path,
    *,
    adapter: str | None = None,
    data_dir: str | Path = ".semv",
    settings: Settings | None = None,
    agents: Agents | None = None,
    text_only: bool = False,
    reports_dir: str | Path | None = None,
    procedure: str = DEFAULT_PROCEDURE,
) -> Result:
    """Verify one case (a ``Case`` or a path to a case folder/file) and return the result,
    with the registered verification ``procedure`` (``semv.procedures``)."""
    settings = settings or load_settings()
    if isinstance(case, Case):
        contract = get_adapter(case.adapter).contract
        target = case
    else:
        contract, loaded = load_cases(Path(case), adapter=adapter, text_only=text_only, limit=1)
        target = loaded[0].case
    store = Store(Path(data_dir))
    try:
        agents = agents or build_agents(settings, store=store)  # [agents] backend
        outcome = run_quietly(
            run_case(
                target,
                store=store,
                settings=settings,
                agents=agents,
                contract=contract,
                reports_dir=Path(reports_dir) if reports_dir is not None else None,
                procedure=procedure,
            )
        )
    finally:
        store.close()
    return outcome.result
