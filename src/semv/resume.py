"""Resuming an interrupted run (``semv verify --resume RUN``).

A run whose process died (kill -9, a timeout) stays ``running`` in the store; its owner row
shows that nobody is executing it any more (``Store.interrupted``). Resuming closes it as
``interrupted`` (a ``run.interrupted`` trace event) and verifies the same case again as a new
run: every node the interrupted run committed is in the fingerprint cache, so the new run
continues from there and recomputes only what was missing. A finished run is never reopened;
the new run names the one it resumes in its ``run.started`` event.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from semv.errors import InputError, StoreError
from semv.model import Bundle, Case, RunStatus, TraceKind
from semv.procedures import DEFAULT_PROCEDURE
from semv.store import RunRecord, Store

__all__ = ["Resumable", "claim_interrupted", "resumed_by"]


@dataclass(frozen=True)
class Resumable:
    """What a resume verifies again: the interrupted run's case, contract and procedure."""

    run_id: str
    case: Case
    contract: str
    procedure: str


def resumed_by(store: Store, record: RunRecord) -> str | None:
    """The id of the run that resumes ``record`` (its ``run.started`` names it), if any."""
    for other in store.runs_of_case(record.case_id):
        if other.created_at < record.created_at or other.run_id == record.run_id:
            continue
        started = next(
            (e.payload for e in store.trace(other.run_id) if e.kind is TraceKind.RUN_STARTED),
            {},
        )
        if started.get("resumes") == record.run_id:
            return other.run_id
    return None


def claim_interrupted(store: Store, run_ref: str) -> Resumable:
    """Close the interrupted run ``run_ref`` as ``interrupted`` and return what to rerun.

    ``InputError`` when the run is finished (or was resumed already), still owned by a live
    process, or never got as far as recording its case (then verify the case folder again);
    ``RunBusy`` (exit 2) when another process resumes it at the same moment."""
    record = store.get_run(run_ref)
    if record.status is RunStatus.INTERRUPTED:
        later = resumed_by(store, record)
        raise InputError(
            f"run {record.run_id} was interrupted and has already been resumed"
            + (f" by run {later}" if later else "")
            + "; resume that run if it was interrupted too, or verify the case again"
        )
    if record.status is not RunStatus.RUNNING:
        raise InputError(
            f"run {record.run_id} is {record.status.value}; only an interrupted run resumes"
        )
    if record.run_id not in store.interrupted([record]):
        owner = store.owner(record.run_id)
        who = f"process {owner[0]} on {owner[1]}" if owner is not None else "its process"
        raise InputError(f"run {record.run_id} is still running ({who} is alive)")
    started = next(
        (e.payload for e in store.trace(record.run_id) if e.kind is TraceKind.RUN_STARTED), {}
    )
    try:
        raw = store.node_value_json(record.run_id, "bundle")
    except StoreError as exc:  # no bundle node: the run died before it recorded its case
        raise InputError(
            f"run {record.run_id} was interrupted before it recorded its case; "
            "verify the case folder again"
        ) from exc
    try:
        bundle = Bundle.model_validate_json(raw)
    except ValidationError as exc:
        raise StoreError(
            f"run {record.run_id}: its recorded case does not validate "
            f"({exc.error_count()} errors, first: {exc.errors()[0]['msg']}); "
            "verify the case folder again"
        ) from exc
    store.mark_interrupted(record.run_id)
    return Resumable(
        run_id=record.run_id,
        case=bundle.case,
        contract=str(started.get("contract", "internal")),
        procedure=str(started.get("procedure", DEFAULT_PROCEDURE)),
    )
