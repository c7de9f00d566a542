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
from semv.store import Store

__all__ = ["Resumable", "claim_interrupted"]


@dataclass(frozen=True)
class Resumable:
    """What a resume verifies again: the interrupted run's case, contract and procedure."""

    run_id: str
    case: Case
    contract: str
    procedure: str


def claim_interrupted(store: Store, run_ref: str) -> Resumable:
    """Close the interrupted run ``run_ref`` as ``interrupted`` and return what to rerun.

    ``InputError`` when the run is finished, still owned by a live process, or never got as
    far as recording its case (then verify the case folder again)."""
    record = store.get_run(run_ref)
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
