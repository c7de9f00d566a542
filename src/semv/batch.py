"""``semv verify-batch FOLDER``: verify many case folders at once.

Every folder directly inside ``FOLDER`` is one case folder (read by its adapter, as
``semv verify`` would); each case becomes its own run in the store, verified with the same
procedure, evidence sources, date cut-off and reports folder options as ``semv verify``.
Every folder is read and validated before anything runs: a folder that is not a readable
case is reported (an ``invalid`` row naming the problem) and the others still run. The
folders are then verified in this process (one worker), in worker processes (``workers`` > 1)
or as Ray tasks (``ray``), each worker building its store, agents and sources once. The rows
come back in completion order; ``verify_batch`` returns them sorted by folder and case.

``resume`` continues a batch that was stopped (kill -9, a lost machine): a case that already
has a committed run of the same content, procedure, sources and settings is not verified
again (a ``skipped`` row naming that run), and a run of the case whose process is gone is
closed as ``interrupted`` and continued by the new run, which reuses every node it committed
(``semv.resume``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from semv._aio import run as run_quietly
from semv._api import load_cases
from semv._procedure_names import DEFAULT_PROCEDURE
from semv.agents import Agents
from semv.config import Settings
from semv.errors import InputError, RunBusy, StageError
from semv.model import Bundle, Case, RunStatus, TraceKind
from semv.store import RunRecord, Store

if TYPE_CHECKING:
    from semv.retrieval import Retrieval

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
    procedure: str = DEFAULT_PROCEDURE
    sources: tuple[str, ...] = ()
    """Evidence sources to search (``semv verify --source``)."""
    before: str | None = None
    """Exclude evidence published after this date (``--before``)."""
    reports_dir: Path | None = None
    """Write the reports under ``reports_dir/<run id>/`` (``--out``)."""
    resume: bool = False


def batch_folders(folder: Path) -> list[Path]:
    """The case folders inside ``folder`` (sorted); ``InputError`` when there are none."""
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of case folders")
    children = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not children:
        raise InputError(f"{folder}: holds no case folders")
    return children


_state: list[tuple[BatchSpec, Store, Agents, Retrieval | None]] = []
"""This process's store, agents and sources, built on its first folder (one per worker)."""


def _worker(spec: BatchSpec) -> tuple[Store, Agents, Retrieval | None]:
    if not _state or _state[0][0] != spec:
        from semv.agents.backends import build_agents

        for _, old, _agents, old_retrieval in _state:
            if old_retrieval is not None:
                old_retrieval.close()
            old.close()
        store = Store(spec.data_dir, url=spec.store_url)
        retrieval = None
        if spec.sources:
            from semv.retrieval import open_retrieval

            retrieval = open_retrieval(
                spec.settings,
                store_url=spec.store_url,
                corpus="corpus" in spec.sources,
                corpus_url=spec.store_url,
                web=[n for n in dict.fromkeys(spec.sources) if n != "corpus"],
                before=spec.before,
            )
        _state[:] = [(spec, store, build_agents(spec.settings, store=store), retrieval)]
    return _state[0][1], _state[0][2], _state[0][3]


def _started(store: Store, run_id: str) -> dict[str, Any]:
    return next((e.payload for e in store.trace(run_id) if e.kind is TraceKind.RUN_STARTED), {})


def _recorded_case(store: Store, record: RunRecord) -> Case | None:
    """The case ``record`` recorded, None when it died before it recorded one."""
    try:
        return Bundle.model_validate_json(store.node_value_json(record.run_id, "bundle")).case
    except Exception:  # no bundle node yet: the run died before it recorded its case
        return None


def _same_case(store: Store, record: RunRecord, case: Case) -> bool:
    return _recorded_case(store, record) == case


def _earlier(
    store: Store, spec: BatchSpec, case: Case, retrieval: Retrieval | None
) -> tuple[RunRecord | None, str | None]:
    """(a committed run that already verified ``case`` as this batch would, the id of an
    interrupted run of it to continue) for ``resume``."""
    from semv.limits import enforce_limits
    from semv.pipeline import settings_hash

    try:
        enforced = enforce_limits(case, spec.settings.limits)[0]
    except InputError:
        return None, None  # refused again when it runs
    digest = settings_hash(spec.settings, spec.data_dir)
    wanted = retrieval.spec if retrieval is not None else None
    records = [r for r in store.runs_of_case(case.id) if r.parent_run_id is None]
    gone = store.interrupted(records)
    for record in records:
        if record.status is not RunStatus.COMMITTED or record.settings_hash != digest:
            continue
        started = _started(store, record.run_id)
        if (
            started.get("procedure", DEFAULT_PROCEDURE) == spec.procedure
            and started.get("retrieval") == wanted
            and _same_case(store, record, enforced)
        ):
            return record, None
    for record in records:
        if record.run_id not in gone:
            continue
        recorded = _recorded_case(store, record)
        if recorded is not None and recorded != enforced:
            continue  # a run of another version of the case: not this batch's to close
        try:
            store.mark_interrupted(record.run_id)
        except RunBusy:  # another worker or batch continues it
            continue
        # killed before it recorded its case, the run starts afresh and still says which
        # interrupted run it continues
        return None, record.run_id
    return None, None


def _row(folder: str, case_id: str, status: str, **values: Any) -> Row:
    row: Row = {"folder": folder, "case_id": case_id, "status": status}
    row.update({"run_id": None, "label": None, "confidence": None, "error": None} | values)
    return row


def verify_folder(spec: BatchSpec, folder: str) -> list[Row]:
    """Verify every case of one case folder, each as a new run; one row per case."""
    from semv.agents.backends import executor_concurrency
    from semv.pipeline import run_case

    store, agents, retrieval = _worker(spec)
    try:
        contract, cases = load_cases(Path(folder), adapter=spec.adapter, text_only=spec.text_only)
    except InputError as exc:
        return [_row(folder, Path(folder).name, "invalid", error=str(exc))]
    rows: list[Row] = []
    for loaded in cases:
        resumes = None
        if spec.resume:
            done, resumes = _earlier(store, spec, loaded.case, retrieval)
            if done is not None:
                rows.append(
                    _row(
                        folder,
                        loaded.case.id,
                        "skipped",
                        run_id=done.run_id,
                        label=done.label,
                        confidence=done.confidence,
                    )
                )
                continue
        try:
            outcome = run_quietly(
                run_case(
                    loaded.case,
                    store=store,
                    settings=spec.settings,
                    agents=agents,
                    contract=contract,
                    reports_dir=spec.reports_dir,
                    retrieval=retrieval,
                    max_concurrency=executor_concurrency(spec.settings),
                    procedure=spec.procedure,
                    released=loaded.released,
                    resumes=resumes,
                )
            )
        except InputError as exc:  # the case's limits refuse it: no run was created
            rows.append(_row(folder, loaded.case.id, "invalid", error=str(exc)))
        except StageError as exc:
            rows.append(_row(folder, loaded.case.id, "failed", error=str(exc)))
        else:
            result = outcome.result
            rows.append(
                _row(
                    folder,
                    loaded.case.id,
                    "committed",
                    run_id=result.run_id,
                    label=result.label,
                    confidence=result.confidence,
                    **({"resumes": resumes} if resumes else {}),
                )
            )
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
    """Verify every case folder inside ``folder``; ``on_folder`` after each folder (progress).
    A folder that cannot be read is an ``invalid`` row; the others still run."""
    done: list[list[Row]] = []

    def finished(rows: list[Row]) -> None:
        done.append(rows)
        if on_folder is not None:
            on_folder(rows)

    items: list[tuple[str]] = []
    for child in batch_folders(folder):  # validate all before anything runs
        try:
            load_cases(child, adapter=spec.adapter, text_only=spec.text_only)
        except InputError as exc:
            finished([_row(str(child), child.name, "invalid", error=str(exc))])
        else:
            items.append((str(child),))
    if items and (ray or ray_address is not None):
        from semv.eval import run_in_ray

        run_in_ray(
            verify_folder,
            spec,
            items,
            on_result=finished,
            address=ray_address,
            workers=workers,
        )
    elif items and workers > 1:
        from semv.eval import run_in_processes

        run_in_processes(verify_folder, spec, items, on_result=finished, workers=workers)
    else:
        for (name,) in items:
            finished(verify_folder(spec, name))
    return sorted((r for rows in done for r in rows), key=lambda r: (r["folder"], r["case_id"]))
