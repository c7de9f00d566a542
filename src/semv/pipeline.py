"""Run one case through the stage graph as a run: create, execute, write reports, commit.

A run is committed only after its reports are written; the trace head at commit goes into the
result. A failure marks the run failed (it stays in the store, with its trace, for audit) and
re-raises; bad input never reaches this point (adapters validate first), so it leaves no run.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from semv import __version__
from semv.agents import Agents, EarlyCalls, EarlyStart, StartsEarly, bind_early
from semv.atomic import write_bytes_atomic
from semv.config import Settings
from semv.errors import SemvError
from semv.export import publish_html, report_url
from semv.graph import Executor, NodeOutcome, NodeSpec, source_inputs
from semv.limits import enforce_limits
from semv.model import (
    Case,
    RenderedReport,
    Result,
    RunStatus,
    TraceEvent,
    TraceKind,
    UncertaintyItem,
    Usage,
    Verdict,
    result_uncertainty,
)
from semv.perception.artifacts import use_artifacts
from semv.perception.paths import copy_maps, resolve_data_paths
from semv.procedures import (
    DEFAULT_PROCEDURE,
    ResultBuilder,
    build_result,
    get_procedure,
    node_value,
)
from semv.report import with_usage
from semv.stages import CASE_SOURCE, MEMORY_SOURCE
from semv.stages import claims as claims_stage
from semv.stages import media as media_stage
from semv.stages import plan as plan_stage
from semv.stages import recall as recall_stage
from semv.store import Store, content_hash, result_hash, sha256_text, utc_now
from semv.usage import Ledger, bind_ledger

if TYPE_CHECKING:
    from semv.adapters import LoadedCase, SealedGold
    from semv.retrieval import Retrieval

__all__ = [
    "GradedRun",
    "RunOutcome",
    "append_commit",
    "build_result",
    "commit_run",
    "publish_reports",
    "record_failure",
    "run_case",
    "run_graded",
    "run_usage",
    "settings_hash",
    "start_early",
    "started_fields",
    "with_run_usage",
    "write_reports",
]

ProgressFn = Callable[[str, bool], None]


@dataclass(frozen=True)
class RunOutcome:
    result: Result
    verdict: Verdict
    executed: int
    reused: int
    nodes: dict[str, NodeOutcome]


@dataclass(frozen=True)
class GradedRun:
    """A dataset case's run with the status the store recorded for it: its gold opens only
    for a committed run (I_gold: revealed after the report is committed, never before)."""

    outcome: RunOutcome
    status: RunStatus
    gold: SealedGold | None

    def gold_label(self) -> str | None:
        """The gold label (None for a case without one); ``GoldAccessError`` unless the run
        is committed."""
        return None if self.gold is None else self.gold.reveal(self.status)


async def run_graded(
    loaded: LoadedCase,
    *,
    store: Store,
    settings: Settings,
    agents: Agents,
    contract: str,
    reports_dir: Path | None = None,
    memory: BaseModel | None = None,
    procedure: str = DEFAULT_PROCEDURE,
    released: str | None = None,
) -> GradedRun:
    """``run_case`` on a case an adapter read, then its status read back from the store, so
    that the evaluation and learning loops reveal gold the same way. A stage failure raises
    ``StageError`` (the failed run stays in the store)."""
    outcome = await run_case(
        loaded.case,
        store=store,
        settings=settings,
        agents=agents,
        contract=contract,
        reports_dir=reports_dir,
        memory=memory,
        procedure=procedure,
        released=released,
    )
    return GradedRun(outcome, store.run_status(outcome.result.run_id), loaded.gold)


def write_reports(report: RenderedReport, out_dir: Path) -> dict[str, str]:
    """Write report.{md,html,json} atomically (temp file + rename): never half-written."""
    return {fmt: path for fmt, (path, _digest) in _write_report_files(report, out_dir).items()}


def _write_report_files(report: RenderedReport, out_dir: Path) -> dict[str, tuple[str, str]]:
    """``write_reports``, with the sha256 of each file's bytes as written (format → (absolute
    path, digest)): the trace records the digests without reading the files back."""
    out_dir.mkdir(parents=True, exist_ok=True)
    where = out_dir.resolve()
    written: dict[str, tuple[str, str]] = {}
    for fmt, suffix, text in (
        ("markdown", "md", report.markdown),
        ("html", "html", report.html),
        ("json", "json", report.json_report),
    ):
        data = text.encode("utf-8")
        target = where / f"report.{suffix}"
        write_bytes_atomic(target, data, prefix=".report-")
        written[fmt] = (str(target), hashlib.sha256(data).hexdigest())
    return written


async def run_case(
    case: Case,
    *,
    store: Store,
    settings: Settings,
    agents: Agents,
    contract: str,
    reports_dir: Path | None = None,
    progress: ProgressFn | None = None,
    max_concurrency: int = 4,
    memory: BaseModel | None = None,
    retrieval: Retrieval | None = None,
    procedure: str = DEFAULT_PROCEDURE,
    released: str | None = None,
    resumes: str | None = None,
) -> RunOutcome:
    """Verify ``case`` as a new run. ``released`` (the case's release time, when its file
    gives one) is recorded in the ``run.started`` event: MV2026's T of Eq. 32 runs from it
    to the ``run.committed`` event. Reports go to ``reports_dir/<run_id>/`` (default: the
    store's ``reports/`` folder). ``memory`` (a ``semv.memory.ActiveMemory``) turns
    long-term-memory recall on; without it ``recall:k`` is empty. ``retrieval`` enables
    external evidence sources. ``procedure`` names the registered verification procedure
    (``semv.procedures``) whose graph runs."""
    chosen = get_procedure(procedure)
    case, truncated = enforce_limits(case, settings.limits)  # refused: no run is created
    settings, settings_hash = _resolved_settings(settings, store.data_dir)
    specs = chosen.graph(case, contract=contract, memory=memory is not None, retrieval=retrieval)
    # tool probes, OCR's engine and spaCy start loading while the graph is set up
    media_stage.start_early(case.media, nothing_cached=not store.has_runs(), settings=settings)
    # the model answers the first calls while the run is recorded and the media are read
    ledger = Ledger()
    started = time.perf_counter()
    early = start_early(agents, case, specs, ledger)
    try:
        run_id = _record_start(
            store, case, agents, chosen.name, settings, settings_hash, contract, specs,
            memory=memory, retrieval=retrieval, released=released, resumes=resumes,
        )  # fmt: skip
    except BaseException:
        await early.aclose()
        raise
    try:
        executor = Executor(
            store,
            settings,
            agents,
            run_id=run_id,
            max_concurrency=max_concurrency,
            progress=progress,
            resources={"retrieval": retrieval} if retrieval is not None else None,
            settings_key=settings_hash,
        )
        sources: dict[str, BaseModel] = {CASE_SOURCE: case}
        if memory is not None:
            sources[MEMORY_SOURCE] = memory
        with (
            bind_ledger(ledger),
            bind_early(early),
            use_artifacts(artifacts_root(store, reports_dir)),
        ):
            try:
                nodes = await executor.run(specs, sources)
            finally:
                await early.aclose()  # a call no node took (reused, or another prompt)
        wall = time.perf_counter() - started
        result = commit_run(
            store,
            run_id,
            report=node_value(nodes, chosen.render_node, RenderedReport),
            verdict=(verdict := node_value(nodes, chosen.verdict_node, Verdict)),
            nodes=nodes,
            settings=settings,
            reports_dir=reports_dir,
            result=chosen.result,
            usage=run_usage(ledger, agents, wall, specs, nodes),
            ledger=ledger,
            notes=truncated,
        )
    except BaseException as exc:
        record_failure(store, run_id, exc)
        raise
    executed = sum(not n.reused for n in nodes.values())
    return RunOutcome(
        result=result,
        verdict=verdict,
        executed=executed,
        reused=len(nodes) - executed,
        nodes=nodes,
    )


def start_early(
    agents: Agents, case: Case, specs: Sequence[NodeSpec], ledger: Ledger
) -> EarlyCalls:
    """The calls a backend may start before the graph reaches their nodes
    (``semv.agents.EarlyStart``): the decomposer's, when the graph decomposes with the
    ``claims`` stage, and the plan calls when its ``plan`` nodes see no memory records (memory
    off). Started now, in the running loop, accounted in ``ledger``; the run's executor binds
    the returned calls so the nodes take them."""
    calls = EarlyCalls()
    if not isinstance(agents, StartsEarly):
        return calls
    decompose = next((s.key for s in specs if s.stage is claims_stage.STAGE), None)
    memory_on = any(s.stage is recall_stage.MEMORY_STAGE for s in specs)
    plans = {
        str(i.path[1]): s.key
        for s in specs
        if s.stage is plan_stage.STAGE and not memory_on
        for i in s.inputs
        if i.name == "subclaim" and i.key == decompose and len(i.path) == 2
    }
    with bind_ledger(ledger), bind_early(calls):
        agents.start_early(EarlyStart(case=case, decompose_node=decompose, plan_nodes=plans))
    return calls


def started_fields(case: Case, contract: str, agents: Agents) -> dict[str, Any]:
    """The fields every ``run.started`` event opens with, whatever starts the run (a first run,
    a revision, a CTR episode): the case, its hash and adapter, the label contract, the semv
    version and the agents' identity. Each caller appends what its kind of run adds."""
    return {
        "case_id": case.id,
        "case_hash": content_hash(case),
        "adapter": case.adapter,
        "contract": contract,
        "semv": __version__,
        "agents": agents.identity,
    }


def _record_start(
    store: Store,
    case: Case,
    agents: Agents,
    procedure: str,
    settings: Settings,
    settings_hash: str,
    contract: str,
    specs: Sequence[NodeSpec],
    *,
    memory: BaseModel | None,
    retrieval: Retrieval | None,
    released: str | None,
    resumes: str | None,
) -> str:
    """Create the run and append its ``run.started`` event; returns the run id."""
    run_id = store.create_run(
        case_id=case.id,
        adapter=case.adapter,
        settings_hash=settings_hash,
        agents=agents.identity,
    )
    store.append_event(
        run_id,
        TraceKind.RUN_STARTED,
        payload={
            **started_fields(case, contract, agents),
            "backend": {
                "name": agents.name,
                **({"llm_url": settings.llm.url} if agents.name == "llm" else {}),
            },
            "settings_hash": settings_hash,
            **({"procedure": procedure} if procedure != DEFAULT_PROCEDURE else {}),
            **(
                {"memory": content_hash(memory), "memory_source": memory.model_dump(mode="json")}
                if memory is not None
                else {}
            ),
            **({"retrieval": retrieval.spec} if retrieval is not None else {}),
            # the index and source state a revision evaluates against (Module E)
            **({"inputs": inputs} if (inputs := source_inputs(specs, settings)) else {}),
            **({"released": released} if released is not None else {}),
            **({"resumes": resumes} if resumes is not None else {}),
        },
    )
    return run_id


_last_resolved: tuple[Settings, Path | None, str, Settings, str] | None = None


def settings_hash(settings: Settings, data_dir: Path | None) -> str:
    """The ``settings_hash`` a run with ``settings`` on the store in ``data_dir`` records."""
    return _resolved_settings(settings, data_dir)[1]


def _resolved_settings(settings: Settings, data_dir: Path | None) -> tuple[Settings, str]:
    """``resolve_data_paths`` of ``settings`` and the hash of the result's JSON, kept for the
    last (frozen) settings object, data dir and working directory: a batch's runs pass the
    same ones, and dumping the whole configuration for every case was a fiftieth of a warm
    evaluation."""
    global _last_resolved
    where = os.getcwd()
    last = _last_resolved
    if last is not None and last[0] is settings and last[1] == data_dir and last[2] == where:
        return last[3], last[4]
    resolved = resolve_data_paths(settings, data_dir)
    digest = sha256_text(resolved.model_dump_json())
    _last_resolved = (settings, data_dir, where, resolved, digest)
    return resolved, digest


def commit_run(
    store: Store,
    run_id: str,
    *,
    report: RenderedReport,
    verdict: Verdict,
    nodes: Mapping[str, NodeOutcome],
    settings: Settings,
    reports_dir: Path | None,
    result: ResultBuilder,
    usage: Usage | None = None,
    ledger: Ledger | None = None,
    before_commit: Callable[[], object] | None = None,
    notes: Sequence[UncertaintyItem] = (),
) -> Result:
    """The sequence every run ends with: first runs (``run_case``), revisions
    (``semv.contest.revise``) and CTR injections. The report (with the run's model usage) and
    the maps it cites are written atomically and traced (``report.written``); then
    ``before_commit`` (a revision's ``contest.revised`` event), ``run.committed`` carrying the
    hash of the result (``semv.store.result_hash``: the result without its ``trace_head``,
    which is this event's hash), and the run finished as committed with that result.
    ``notes`` (input truncated by ``[limits]``) join the result's uncertainty."""
    if usage is not None:
        report = with_usage(report, usage)
    paths = publish_reports(store, run_id, report, nodes.values(), settings, reports_dir)
    if before_commit is not None:
        before_commit()
    built = result(run_id, dict(nodes), paths, "")
    if ledger is not None:
        built = with_run_usage(built, usage, ledger)
    if notes:
        extra = tuple(result_uncertainty(item) for item in notes)
        built = built.model_copy(update={"uncertainty": (*built.uncertainty, *extra)})
    digest = result_hash(json.loads(built.model_dump_json()))
    commit = append_commit(store, run_id, verdict, digest)
    built = built.model_copy(update={"trace_head": commit.hash})
    store.finish_run(
        run_id,
        RunStatus.COMMITTED,
        label=verdict.label,
        confidence=verdict.confidence,
        result_json=built.model_dump_json(),
    )
    return built


def run_usage(
    ledger: Ledger,
    agents: Agents,
    wall: float,
    specs: Sequence[NodeSpec],
    nodes: Mapping[str, NodeOutcome],
) -> Usage | None:
    """The run's model usage (calls, tokens, wall, critical path): measured whenever a model
    was called or the backend is an LLM; None for a run of the offline backend."""
    if not ledger.records and agents.name != "llm":
        return None
    return ledger.usage(
        backend=agents.identity.split("/settings:")[0],
        wall_s=wall,
        dependencies={s.key: s.dependencies for s in specs},
        node_seconds={k: n.seconds for k, n in nodes.items() if not n.reused},
    )


def with_run_usage(result: Result, usage: Usage | None, ledger: Ledger) -> Result:
    """``result`` with its usage and the ledger's notes (model fallbacks) as uncertainty."""
    if usage is None:
        return result
    extra = [
        result_uncertainty(n)
        for n in sorted(ledger.notes, key=lambda n: (n.subject, n.detail))
        if result_uncertainty(n) not in result.uncertainty
    ]
    return result.model_copy(update={"usage": usage, "uncertainty": (*result.uncertainty, *extra)})


def artifacts_root(store: Store, reports_dir: Path | None) -> Path:
    """Where keyframes and other media artifacts go: ``<data dir>/artifacts``
    (content-addressed, shared by all runs), else next to the reports."""
    if store.data_dir is not None:
        return store.data_dir / "artifacts"
    if reports_dir is not None:
        return reports_dir / "artifacts"
    return Path(tempfile.gettempdir()) / "semv-artifacts"


def publish_reports(
    store: Store,
    run_id: str,
    report: RenderedReport,
    nodes: Iterable[NodeOutcome],
    settings: Settings,
    reports_dir: Path | None,
) -> dict[str, str]:
    """Write ``report`` (and the forensic maps its evidence cites) to
    ``reports_dir/<run_id>/`` (default: the store's ``reports/``) and trace the files' hashes."""
    if reports_dir is None:
        if store.data_dir is None:
            raise SemvError("no reports directory: pass reports_dir for a store given by URL")
        reports_dir = store.data_dir / "reports"
    copy_maps([n.value for n in nodes], settings, reports_dir / run_id)
    out_dir = reports_dir / run_id
    html = publish_html(
        report.html,
        url=report_url(settings.export, run_id, None),  # relative: no machine path in a report
        date_published=utc_now(),
    )
    written = _write_report_files(report.model_copy(update={"html": html}), out_dir)
    store.append_event(
        run_id,
        TraceKind.REPORT_WRITTEN,
        node="render",
        payload={fmt: {"path": p, "sha256": digest} for fmt, (p, digest) in written.items()},
    )
    return {fmt: p for fmt, (p, _digest) in written.items()}


def append_commit(
    store: Store, run_id: str, verdict: Verdict, result_sha256: str | None = None
) -> TraceEvent:
    """The ``run.committed`` event: appended only after the reports are written. With
    ``result_sha256`` (``semv.store.result_hash`` of the result to be stored) the committed
    result is bound into the hash chain, so ``--verify-trace`` detects a rewritten result."""
    return store.append_event(
        run_id,
        TraceKind.RUN_COMMITTED,
        payload={
            "label": verdict.label,
            "internal_label": verdict.internal_label.value,
            "confidence": verdict.confidence,
            **({"result_sha256": result_sha256} if result_sha256 is not None else {}),
        },
    )


def record_failure(store: Store, run_id: str, exc: BaseException) -> None:
    """Mark ``run_id`` failed with ``exc``'s message (best effort: the caller re-raises)."""
    message = str(exc) if isinstance(exc, SemvError) else f"{type(exc).__name__}: {exc}"
    try:
        store.append_event(run_id, TraceKind.RUN_FAILED, payload={"error": message})
        store.finish_run(run_id, RunStatus.FAILED, error=message)
    except SemvError:
        pass
