"""The store's records: runs, nodes, revisions and a trace check, as read back; run ids and
timestamps."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from semv.model import RunStatus

__all__ = [
    "FinishedRun",
    "NodeRecord",
    "RevisionRecord",
    "RunRecord",
    "TraceCheck",
    "new_run_id",
    "run_record",
    "utc_now",
]


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def new_run_id() -> str:
    """Sortable, unique, readable: ``r<UTC time><random>``."""
    return "r" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f") + secrets.token_hex(3)


@dataclass(frozen=True)
class RunRecord:
    run_id: str
    case_id: str
    adapter: str
    status: RunStatus
    created_at: str
    finished_at: str | None
    label: str | None
    confidence: float | None
    result_json: str | None
    trace_head: str | None
    error: str | None
    parent_run_id: str | None
    settings_hash: str
    agents: str


@dataclass(frozen=True)
class NodeRecord:
    key: str
    stage: str
    fingerprint: str
    output_hash: str
    reused: bool
    seconds: float


@dataclass(frozen=True)
class FinishedRun:
    """What ``Store.finish_run`` writes into a running run's row."""

    run_id: str
    status: RunStatus
    finished_at: str
    label: str | None = None
    confidence: float | None = None
    result_json: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class RevisionRecord:
    """A contestation revision (Module E): the run it produced and the run it revised."""

    run_id: str
    parent_run_id: str
    policy: str
    base_head: str | None
    batch_json: str
    review_json: str
    outcome_json: str | None
    created_at: str
    committed_at: str | None


@dataclass(frozen=True)
class TraceCheck:
    """Outcome of verifying a run's hash chain."""

    ok: bool
    events: int
    head: str | None
    problem: str | None = None
    bad_seq: int | None = None


def run_record(m: Any) -> RunRecord:
    return RunRecord(
        run_id=m["run_id"],
        case_id=m["case_id"],
        adapter=m["adapter"],
        status=RunStatus(m["status"]),
        created_at=m["created_at"],
        finished_at=m["finished_at"],
        label=m["label"],
        confidence=m["confidence"],
        result_json=m["result_json"],
        trace_head=m["trace_head"],
        error=m["error"],
        parent_run_id=m["parent_run_id"],
        settings_hash=m["settings_hash"],
        agents=m["agents"],
    )
