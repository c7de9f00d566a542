"""Cases in worker processes (``--workers N``) and as Ray tasks (``--ray``) on 20 OOKPIK dev
rows: the same records and metrics as one process, every case exactly once, also when a Ray
worker is killed with SIGKILL in the middle of a case."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.eval._harness import EvalPlan, finalize, load_plan_cases, open_results, run_plan
from semv.eval._predictions import RESULTS_FILE, read_results_log
from semv.store import Store
from tests.conftest import shared_data

_ROWS = 20


def _evaluate(tmp: Path, name: str, **how: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    plan = EvalPlan("cosmos", shared_data("ookpik-dev", "dev_data.json"), limit=_ROWS,
                    text_only=True)  # fmt: skip
    settings = Settings()
    task, contract, cases = load_plan_cases(plan)
    out = tmp / name
    agents = OfflineAgents(settings)
    log, _ = open_results(out, plan, settings, agents, resume=False)
    store = Store(tmp / f"{name}-store")
    try:
        asyncio.run(
            run_plan(
                cases,
                task=task,
                contract=contract,
                store=store,
                settings=settings,
                agents=agents,
                log=log,
                done=set(),
                out_dir=out,
                **how,
            )
        )
    finally:
        log.close()
        store.close()
    records = read_results_log(out / RESULTS_FILE)
    metrics = finalize(out, task.name, records, settings, plots=False)
    return records, {k: v for k, v in metrics.items() if k != "median_seconds"}


def _by_case(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {r["case_id"]: (r["index"], r["prediction"], r["label"]) for r in records}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], Any]:
    return _evaluate(tmp_path_factory.mktemp("local"), "local")


def test_two_worker_processes_give_the_local_records_and_metrics(
    tmp_path: Path, local_run: tuple[list[dict[str, Any]], Any]
) -> None:
    records, metrics = _evaluate(tmp_path, "procs", workers=2)
    assert len(records) == _ROWS
    assert _by_case(records) == _by_case(local_run[0])
    assert metrics == local_run[1]


def _kill_one_busy_ray_worker(stop: threading.Event, killed: list[int]) -> None:
    """SIGKILL the first Ray worker seen executing a case (its process title names the task)."""
    while not stop.is_set() and not killed:
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                title = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if title.startswith(b"ray::verify_in_worker"):
                os.kill(int(pid), signal.SIGKILL)
                killed.append(int(pid))
                return
        time.sleep(0.05)


@pytest.mark.ray
def test_ray_with_a_killed_worker_runs_every_case_exactly_once(
    tmp_path: Path, local_run: tuple[list[dict[str, Any]], Any]
) -> None:
    stop = threading.Event()
    killed: list[int] = []
    killer = threading.Thread(target=_kill_one_busy_ray_worker, args=(stop, killed))
    killer.start()
    try:
        records, metrics = _evaluate(tmp_path, "ray", ray=True, workers=2)
    finally:
        stop.set()
        killer.join()
    assert killed, "no Ray worker was seen running a case"
    assert sorted(r["index"] for r in records) == list(range(_ROWS))  # each case exactly once
    assert _by_case(records) == _by_case(local_run[0])
    assert metrics == local_run[1]
