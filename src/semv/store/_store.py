"""The store: runs, content-addressed node outputs, the fingerprint cache and the trace.

SQLAlchemy Core over SQLite in WAL mode at ``<data_dir>/semv.db`` (or any database URL). Runs
are append-only: a run id is never reused, a committed run is never modified, and trace rows
are only ever inserted, each holding the hash of the previous one.

``Store`` is composed of one part a concern: the connection and schema (``_engine``), blobs and
the fingerprint cache (``_cache``), runs and their owners (``_runs``), the hash-chained trace
(``_trace``, pure chain functions in ``_chain``) and revisions (``_revisions``); the records it
returns live in ``_records``.
"""

from __future__ import annotations

from sqlalchemy import select

from semv.errors import StoreError
from semv.model import RunStatus, TraceKind
from semv.store import _schema as t
from semv.store._chain import chain_event, event_hash, genesis_hash, result_hash
from semv.store._engine import normalize_url, open_engine
from semv.store._records import (
    NodeRecord,
    RevisionRecord,
    RunRecord,
    TraceCheck,
    new_run_id,
    utc_now,
)
from semv.store._revisions import Revisions
from semv.store._runs import HEARTBEAT_SECONDS, STALE_SECONDS
from semv.store._trace import TraceChain

__all__ = [
    "HEARTBEAT_SECONDS",
    "STALE_SECONDS",
    "NodeRecord",
    "RevisionRecord",
    "RunRecord",
    "Store",
    "TraceCheck",
    "chain_event",
    "event_hash",
    "genesis_hash",
    "new_run_id",
    "normalize_url",
    "open_engine",
    "result_hash",
    "utc_now",
]


class Store(TraceChain, Revisions):
    """Persistence for runs, nodes, the cache and the trace."""

    def mark_interrupted(self, run_id: str, *, resumed_by: str | None = None) -> None:
        """Close a running run whose owner is gone as ``interrupted`` (its trace says so and
        by whom it is resumed). Refused for a run whose owner is alive."""
        record = self.get_run(run_id)
        with self._tx() as conn:  # the owner as judged below: the claim swaps exactly this row
            seen = conn.execute(
                select(t.run_owners).where(t.run_owners.c.run_id == record.run_id)
            ).first()
        if record.run_id not in self.interrupted([record]):
            raise StoreError(
                f"run {record.run_id} is {record.status.value} and its owner is alive"
                if record.status is RunStatus.RUNNING
                else f"run {record.run_id} is {record.status.value}, not interrupted"
            )
        self._claim_owner(record.run_id, seen)
        self._heads.pop(record.run_id, None)
        self.append_event(
            record.run_id,
            TraceKind.RUN_INTERRUPTED,
            payload={"resumed_by": resumed_by} if resumed_by else {},
        )
        self.finish_run(
            record.run_id, RunStatus.INTERRUPTED, error="interrupted: its process is gone"
        )
