"""The resumable dataset runner behind ``semv eval ADAPTER PATH``.

Layout of an output folder::

    OUT/config.json     adapter, dataset path, split, settings (+ hash), backend identity,
                        memory snapshot hash ("none" without one); written before any case runs
    OUT/results.jsonl   one line per finished case, appended as it finishes (fsynced at
                        least every second and at the end)
    OUT/reports/<run>/  each run's report.{md,html,json}
    OUT/metrics.json, OUT/summary.md, OUT/plots/*.png   derived from results.jsonl at the end

A crash or Ctrl-C loses no finished case: ``--resume`` reads ``results.jsonl`` (ignoring a
last line cut short), checks that ``config.json`` describes the same evaluation, and runs only
the cases without a line. Failed cases are finished too (their line records the error).
Metrics are computed from the lines in case order, so a resumed evaluation scores exactly as an
uninterrupted one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from semv import __version__
from semv.adapters import LoadedCase
from semv.agents import Agents
from semv.atomic import write_text_atomic
from semv.config import Settings
from semv.errors import InputError, StageError
from semv.eval._cost import case_cost
from semv.eval._datasets import dataset_path, get_dataset, get_task
from semv.eval._plotcache import plot
from semv.eval._predictions import RESULTS_FILE, read_results_log
from semv.eval._summary import summary_markdown
from semv.eval._tasks import Record, Task
from semv.model import RunStatus
from semv.nlp.entities import hint_texts
from semv.pipeline import run_graded
from semv.procedures import DEFAULT_PROCEDURE, get_procedure
from semv.store import Store, sha256_file, sha256_text

logger = logging.getLogger(__name__)

__all__ = [
    "CONFIG_FILE",
    "EvalPlan",
    "ResultsLog",
    "finalize",
    "load_plan_cases",
    "memory_snapshot_hash",
    "open_results",
    "run_plan",
    "sample_evenly",
    "verify_record",
]

CONFIG_FILE: Final = "config.json"
_COMPARED: Final = (
    "adapter",
    "path",
    "split",
    "text_only",
    "settings_hash",
    "agents",
    "memory",
    "procedure",
)
_SAVED_DEFAULTS: Final = {"procedure": DEFAULT_PROCEDURE}
"""What a config.json written before a key existed means by its absence."""


@dataclass(frozen=True)
class EvalPlan:
    """What to evaluate: an adapter, a dataset path and the options that select its cases."""

    adapter: str
    path: Path
    split: str | None = None
    limit: int | None = None
    text_only: bool = False
    memory_snapshot: Path | None = None
    procedure: str = DEFAULT_PROCEDURE
    """The registered verification procedure that verifies every case (``semv.procedures``)."""
    sample: int | None = None
    """Evaluate N cases spread evenly over the dataset (``sample_evenly``) instead of all."""


def memory_snapshot_hash(path: Path | None) -> str:
    """SHA-256 of a memory snapshot (a file, or every file of a folder by relative path), or
    ``"none"`` when the evaluation runs without one."""
    if path is None:
        return "none"
    if path.is_file():
        return sha256_file(str(path))
    if path.is_dir():
        parts = [
            f"{f.relative_to(path).as_posix()}:{sha256_file(str(f))}"
            for f in sorted(path.rglob("*"))
            if f.is_file()
        ]
        return sha256_text("\n".join(parts))
    raise InputError(f"{path}: memory snapshot not found")


def sample_evenly(cases: Sequence[LoadedCase], n: int) -> list[LoadedCase]:
    """``n`` cases at evenly spaced positions (``floor(i * len / n)``), in dataset order: a
    deterministic subset that never looks at gold (all cases when ``n >= len``)."""
    if n <= 0:
        raise InputError(f"--sample must be positive, got {n}")
    if n >= len(cases):
        return list(cases)
    return [cases[i * len(cases) // n] for i in range(n)]


def load_plan_cases(plan: EvalPlan) -> tuple[Task, str, list[LoadedCase]]:
    """Validate every case before anything runs (bad input leaves nothing behind)."""
    dataset = get_dataset(plan.adapter)
    adapter = dataset.adapter
    task = dataset.task()
    source = dataset_path(plan.adapter, plan.path, plan.split)
    get_procedure(plan.procedure)  # an unknown name fails before anything runs
    cases = list(adapter.load(source, text_only=plan.text_only, limit=plan.limit))
    if plan.sample is not None:
        cases = sample_evenly(cases, plan.sample)
    if not cases:
        raise InputError(f"{source}: no cases found ({adapter.name} adapter)")
    ids = [c.case.id for c in cases]
    if len(set(ids)) != len(ids):
        raise InputError(f"{source}: case ids are not unique")
    return task, adapter.contract, cases


def _config(plan: EvalPlan, settings: Settings, agents: Agents) -> dict[str, Any]:
    return {
        "semv": __version__,
        "adapter": plan.adapter,
        "path": str(plan.path.absolute()),
        "split": plan.split,
        "limit": plan.limit,
        "sample": plan.sample,
        "procedure": plan.procedure,
        "text_only": plan.text_only,
        "settings": settings.model_dump(mode="json"),
        "settings_hash": sha256_text(settings.model_dump_json()),
        "agents": agents.identity,
        "memory": memory_snapshot_hash(plan.memory_snapshot),
        "memory_path": str(plan.memory_snapshot) if plan.memory_snapshot else None,
    }


def _write_atomic(path: Path, text: str) -> None:
    write_text_atomic(path, text)


class ResultsLog:
    """Append-only ``results.jsonl``: each record is one line, written through to the OS at
    once (a crash of the process or Ctrl-C loses no finished case) and fsynced at most every
    ``FSYNC_SECONDS`` and on close (a power cut loses at most that much; an fsync per case
    cost ~10 ms, a fifth of a warm case)."""

    FSYNC_SECONDS: Final = 1.0

    def __init__(self, file: Path) -> None:
        self.file = file
        self._handle = file.open("a", encoding="utf-8")
        self._synced = time.monotonic()

    def append(self, record: Record) -> None:
        self._handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        self._handle.flush()
        if time.monotonic() - self._synced >= self.FSYNC_SECONDS:
            self._sync()

    def _sync(self) -> None:
        os.fsync(self._handle.fileno())
        self._synced = time.monotonic()

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.flush()
            self._sync()
        self._handle.close()


def open_results(
    out_dir: Path, plan: EvalPlan, settings: Settings, agents: Agents, *, resume: bool
) -> tuple[ResultsLog, list[Record]]:
    """Create (or, with ``resume``, reopen) the output folder; return the log and the records
    already finished. Refuses to mix two different evaluations in one folder."""
    config = _config(plan, settings, agents)
    config_file = out_dir / CONFIG_FILE
    results_file = out_dir / RESULTS_FILE
    previous: list[Record] = []
    if results_file.exists() or config_file.exists():
        if not resume:
            raise InputError(
                f"{out_dir}: holds an evaluation already; pass --resume to continue it or "
                "choose another --out"
            )
        try:
            saved = json.loads(config_file.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(f"{config_file}: cannot read: {exc}") from exc
        changed = [k for k in _COMPARED if saved.get(k, _SAVED_DEFAULTS.get(k)) != config.get(k)]
        if changed:
            raise InputError(
                f"{config_file}: --resume with a different evaluation ({', '.join(changed)} "
                "changed); use another --out"
            )
        if results_file.exists():
            previous = read_results_log(results_file)
            _drop_partial_tail(results_file)
    else:
        out_dir.mkdir(parents=True, exist_ok=True)
    _write_atomic(config_file, json.dumps(config, indent=2, sort_keys=True) + "\n")
    return ResultsLog(results_file), previous


def _drop_partial_tail(file: Path) -> None:
    """Cut a last line that a crash left without its newline, so appends start clean."""
    data = file.read_bytes()
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        with file.open("r+b") as handle:
            handle.truncate(keep)


async def verify_record(
    index: int,
    loaded: LoadedCase,
    *,
    task: Task,
    contract: str,
    store: Store,
    settings: Settings,
    agents: Agents,
    out_dir: Path,
    procedure: str = DEFAULT_PROCEDURE,
) -> Record:
    """Verify one case with ``procedure`` and return its results line (with its ``cost``,
    ``semv.eval._cost``); gold is revealed only after the run is committed. The same function
    runs in-process, in a worker process (``--workers``) and in a Ray task (``--ray``)."""
    start = time.perf_counter()
    record: Record = {
        "index": index,
        "case_id": loaded.case.id,
        "cluster": get_dataset(loaded.case.adapter).cluster(loaded),
        "procedure": procedure,
    }
    try:
        graded = await run_graded(
            loaded,
            store=store,
            settings=settings,
            agents=agents,
            contract=contract,
            reports_dir=out_dir / "reports",
            procedure=procedure,
            released=loaded.released,
        )
    except StageError as exc:
        logger.warning("%s: %s", loaded.case.id, exc)
        record.update(status="failed", error=str(exc), prediction=None, gold=None)
    else:
        run, status = graded.outcome, graded.status
        gold = None
        if loaded.gold is not None:
            gold = task.gold(loaded.gold.reveal(status), loaded.gold.reveal_details(status))
        record.update(
            status=status.value if status is RunStatus.COMMITTED else "failed",
            run_id=run.result.run_id,
            label=run.result.label,
            probabilities=dict(run.result.probabilities),
            confidence=run.result.confidence,
            prediction=task.predict(run.result),
            uncertainty=sorted(
                {u.code for u in run.result.uncertainty}
                | {code for e in run.result.evidence for code in e.uncertainty}
            ),
            gold=gold,
            executed=run.executed,
            reused=run.reused,
            cost=case_cost(run.result, run.nodes, time.perf_counter() - start),
        )
    record["seconds"] = round(time.perf_counter() - start, 3)
    return record


async def run_plan(
    cases: Sequence[LoadedCase],
    *,
    task: Task,
    contract: str,
    store: Store,
    settings: Settings,
    agents: Agents,
    log: ResultsLog,
    done: set[str],
    out_dir: Path,
    workers: int = 1,
    on_record: Callable[[Record], None] | None = None,
    procedure: str = DEFAULT_PROCEDURE,
    ray: bool = False,
    ray_address: str | None = None,
) -> list[Record]:
    """Verify every case not in ``done`` with ``procedure``, appending each record as soon as
    it finishes (``verify_record``). One worker runs the cases in this process; ``workers``
    > 1 runs them in that many worker processes (``semv.eval._workers``), so N cores work;
    ``ray`` runs them as Ray tasks (``semv.eval._ray``) on the cluster at ``ray_address`` or
    on a local one of ``workers`` CPUs."""

    def append(record: Record) -> None:
        log.append(record)
        if on_record is not None:
            on_record(record)

    if ray or workers > 1:
        from semv.eval._workers import WorkerSpec, run_plan_processes

        spec = WorkerSpec.of(store, settings, task, contract, out_dir, procedure)
        if ray:
            from semv.eval._ray import run_plan_ray

            return run_plan_ray(
                cases, spec, append=append, done=done, address=ray_address, workers=workers
            )
        # in this thread: nothing else uses the event loop, and Ctrl-C reaches the pool
        return run_plan_processes(cases, spec, append=append, done=done, workers=workers)
    pending = [loaded.case for loaded in cases if loaded.case.id not in done]
    # the claims and supplied texts are parsed (the offline extractor runs on every backend):
    # hinted in case order, spaCy parses them in batches (same parses, ~3x faster a text)
    hint_texts(text for case in pending for text in (case.claim, *(e.text for e in case.evidence)))
    semaphore = asyncio.Semaphore(max(1, workers))
    records: list[Record] = []

    async def one(index: int, loaded: LoadedCase) -> None:
        async with semaphore:
            record = await verify_record(
                index,
                loaded,
                task=task,
                contract=contract,
                store=store,
                settings=settings,
                agents=agents,
                out_dir=out_dir,
                procedure=procedure,
            )
            append(record)
            records.append(record)

    await asyncio.gather(
        *(one(i, loaded) for i, loaded in enumerate(cases) if loaded.case.id not in done)
    )
    return records


def finalize(
    out_dir: Path,
    task_name: str,
    records: Sequence[Record],
    settings: Settings,
    *,
    method: str = "semv",
    skipped: dict[str, int] | None = None,
    plots: bool = True,
) -> dict[str, Any]:
    """Score ``records``; write metrics.json, summary.md and the plots into ``out_dir``."""
    task = get_task(task_name)
    metrics = task.score(records, settings.eval)
    if skipped:
        metrics["skipped"] = skipped
    metrics["task"] = task_name
    metrics["table"] = task.table
    reliability = metrics.pop("reliability", None)
    calibrated = metrics.pop("reliability_calibrated", None)
    _write_atomic(out_dir / "metrics.json", json.dumps(metrics, indent=2, sort_keys=True) + "\n")
    _write_atomic(out_dir / "summary.md", summary_markdown(task_name, metrics, method=method))
    if plots:  # rendered once per distinct input on the machine (semv.eval._plotcache)
        bins = settings.eval.ece_bins
        plot_dir = out_dir / "plots"
        for diagram, name, what in (
            (reliability, "reliability.png", "reliability"),
            (calibrated, "reliability-calibrated.png", "calibrated p(OOC), reliability"),
        ):
            if diagram and diagram["confidence"]:
                plot(
                    "reliability",
                    plot_dir / name,
                    confidence=diagram["confidence"],
                    correct=diagram["correct"],
                    bins=bins,
                    title=f"{task_name}: {what} ({bins} bins)",
                )
        confusion = metrics.get("confusion")
        if isinstance(confusion, dict) and "matrix" in confusion:
            plot(
                "confusion",
                plot_dir / "confusion.png",
                matrix=confusion["matrix"],
                labels=confusion["labels"],
                title=f"{task_name}: confusion",
            )
        elif isinstance(confusion, dict) and "tp" in confusion:
            positive = str(metrics.get("positive", "positive"))
            plot(
                "confusion",
                plot_dir / "confusion.png",
                matrix=[[confusion["tn"], confusion["fp"]], [confusion["fn"], confusion["tp"]]],
                labels=[f"not {positive}", positive],
                title=f"{task_name}: confusion",
            )
    return metrics
