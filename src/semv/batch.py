"""``semv verify-batch FOLDER``: verify many case folders at once.

Every folder directly inside ``FOLDER`` is one case folder (read by its adapter, as
``semv verify`` would); each case becomes its own run in the store. Every folder is read and
validated before anything runs, so a malformed one stops the batch with nothing written. The
folders are then verified in this process (one worker), in worker processes (``workers`` > 1)
or as Ray tasks (``ray``), each worker building its store and agents once. The rows come back
in completion order; ``verify_batch`` returns them sorted by folder and case.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semv._aio import run as run_quietly
from semv._api import load_cases
from semv.agents import Agents
from semv.config import Settings
from semv.errors import InputError, StageError
from semv.store import Store

__all__ = ["BatchSpec", "batch_folders", "verify_batch", "verify_folder"]

Row = dict[str, Any]


@dataclass(frozen=True)
class BatchSpec:
    """How every worker verifies (picklable)."""

    store_url: str
    data_dir: Path | None
    settings: Settings
    adapter: str | None = None
    text_only: bool = False


def batch_folders(folder: Path) -> list[Path]:
    """The case folders inside ``folder`` (sorted), each validated; ``InputError`` naming the
    first that is not a readable case."""
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of case folders")
    children = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not children:
        raise InputError(f"{folder}: holds no case folders")
    return children


_state: list[tuple[BatchSpec, Store, Agents]] = []
"""This process's store and agents, built on its first folder (one per worker process)."""


def _worker(spec: BatchSpec) -> tuple[Store, Agents]:
    if not _state or _state[0][0] != spec:
        from semv.agents.backends import build_agents

        for _, old, _agents in _state:
            old.close()
        store = Store(spec.data_dir, url=spec.store_url)
        _state[:] = [(spec, store, build_agents(spec.settings, store=store))]
    return _state[0][1], _state[0][2]


def verify_folder(spec: BatchSpec, folder: str) -> list[Row]:
    """Verify every case of one case folder, each as a new run; one row per case."""
    from semv.agents.backends import executor_concurrency
    from semv.pipeline import run_case

    store, agents = _worker(spec)
    contract, cases = load_cases(Path(folder), adapter=spec.adapter, text_only=spec.text_only)
    rows: list[Row] = []
    for loaded in cases:
        row: Row = {"folder": folder, "case_id": loaded.case.id}
        try:
            outcome = run_quietly(
                run_case(
                    loaded.case,
                    store=store,
                    settings=spec.settings,
                    agents=agents,
                    contract=contract,
                    max_concurrency=executor_concurrency(spec.settings),
                )
            )
        except StageError as exc:
            row.update(status="failed", error=str(exc), run_id=None, label=None, confidence=None)
        else:
            result = outcome.result
            row.update(
                status="committed",
                run_id=result.run_id,
                label=result.label,
                confidence=result.confidence,
                error=None,
            )
        rows.append(row)
    return rows


def verify_batch(
    folder: Path,
    spec: BatchSpec,
    *,
    workers: int = 1,
    ray: bool = False,
    ray_address: str | None = None,
    on_folder: Callable[[list[Row]], None] | None = None,
) -> list[Row]:
    """Verify every case folder inside ``folder``; ``on_folder`` after each folder (progress)."""
    folders = batch_folders(folder)
    for child in folders:  # validate all before anything runs
        load_cases(child, adapter=spec.adapter, text_only=spec.text_only)
    items = [(str(child),) for child in folders]
    done: list[list[Row]] = []

    def finished(rows: list[Row]) -> None:
        done.append(rows)
        if on_folder is not None:
            on_folder(rows)

    if ray or ray_address is not None:
        from semv.eval._ray import run_in_ray

        run_in_ray(
            verify_folder,
            spec,
            items,
            on_result=finished,
            address=ray_address,
            workers=workers,
        )
    elif workers > 1:
        from semv.eval._workers import run_in_processes

        run_in_processes(verify_folder, spec, items, on_result=finished, workers=workers)
    else:
        for (name,) in items:
            finished(verify_folder(spec, name))
    return sorted((r for rows in done for r in rows), key=lambda r: (r["folder"], r["case_id"]))
