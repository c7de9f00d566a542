"""Cases verified in worker processes: ``semv eval --workers N`` (a local process pool) and
``--ray`` (Ray tasks, ``semv.eval._ray``) share this module's worker side.

The offline backend is CPU-bound Python, so threads in one process give no speed-up; N worker
processes use N cores. Each worker opens its own ``Store`` on the same database (SQLite in WAL
mode or PostgreSQL; the node cache and trace are safe under concurrent writers) and builds its
agents once, on its first case. Only the parent process writes ``results.jsonl``: a record is
appended when its case comes back, so a worker that dies never leaves half a line, and
``--resume`` re-runs exactly the cases without a line.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from semv.adapters import LoadedCase
from semv.agents import Agents
from semv.config import Settings
from semv.eval._datasets import get_task
from semv.eval._tasks import Record, Task
from semv.procedures import DEFAULT_PROCEDURE
from semv.store import Store

__all__ = [
    "WorkerSpec",
    "pending_cases",
    "run_in_processes",
    "run_plan_processes",
    "verify_in_worker",
]

_R = TypeVar("_R")


@dataclass(frozen=True)
class WorkerSpec:
    """What a worker needs to verify cases like the parent would (picklable)."""

    store_url: str
    data_dir: Path | None
    """Local folder for reports, artifacts and data paths (None: the store's defaults)."""
    settings: Settings
    task: str
    contract: str
    out_dir: Path
    procedure: str = DEFAULT_PROCEDURE

    @classmethod
    def of(
        cls,
        store: Store,
        settings: Settings,
        task: Task,
        contract: str,
        out_dir: Path,
        procedure: str,
    ) -> WorkerSpec:
        return cls(store.url, store.data_dir, settings, task.name, contract, out_dir, procedure)


@dataclass
class _Worker:
    spec: WorkerSpec
    store: Store
    agents: Agents
    task: Task


_worker: _Worker | None = None
"""This process's store and agents, built on the first case (one per worker process)."""


def _state(spec: WorkerSpec) -> _Worker:
    global _worker
    if _worker is None or _worker.spec != spec:
        from semv.agents.backends import build_agents

        if _worker is not None:
            _worker.store.close()
        store = Store(spec.data_dir, url=spec.store_url)
        _worker = _Worker(
            spec, store, build_agents(spec.settings, store=store), get_task(spec.task)
        )
    return _worker


def verify_in_worker(spec: WorkerSpec, index: int, loaded: LoadedCase) -> Record:
    """Verify one case in this (worker) process; its results line."""
    from semv.eval._harness import verify_record

    worker = _state(spec)
    return asyncio.run(
        verify_record(
            index,
            loaded,
            task=worker.task,
            contract=spec.contract,
            store=worker.store,
            settings=spec.settings,
            agents=worker.agents,
            out_dir=spec.out_dir,
            procedure=spec.procedure,
        )
    )


def pending_cases(cases: Sequence[LoadedCase], done: set[str]) -> Iterator[tuple[int, LoadedCase]]:
    """(dataset index, case) of every case without a results line yet."""
    return ((i, c) for i, c in enumerate(cases) if c.case.id not in done)


def run_in_processes(
    fn: Callable[..., _R],
    spec: object,
    items: Iterable[tuple[Any, ...]],
    *,
    on_result: Callable[[_R], None],
    workers: int,
) -> list[_R]:
    """``fn(spec, *item)`` for every item in ``workers`` processes; ``on_result`` (in this
    process) as each finishes. At most ``2 × workers`` items are in flight, so a dataset of
    any size is never queued in the pool at once. ``fn`` must be a module-level function."""
    # forkserver: workers start from a clean, single-threaded server process (never a fork of
    # this one, whose progress-bar thread, database connections and native thread pools a
    # fork would copy); that server imports semv and loads the offline models once, and every
    # worker forks from it with them loaded (semv.eval._preload)
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["semv.eval._workers", "semv.pipeline", "semv.eval._preload"])
    results: list[_R] = []
    todo = iter(items)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        running: set[Future[_R]] = set()
        try:
            while True:
                for item in todo:
                    running.add(pool.submit(fn, spec, *item))
                    if len(running) >= 2 * workers:
                        break
                if not running:
                    break
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    result = future.result()
                    on_result(result)
                    results.append(result)
        except BaseException:
            for future in running:
                future.cancel()
            raise
    return results


def run_plan_processes(
    cases: Sequence[LoadedCase],
    spec: WorkerSpec,
    *,
    append: Callable[[Record], None],
    done: set[str],
    workers: int,
) -> list[Record]:
    """Verify the pending cases in ``workers`` processes; ``append`` each record (in the parent)
    as soon as its case finishes."""
    return run_in_processes(
        verify_in_worker, spec, pending_cases(cases, done), on_result=append, workers=workers
    )
