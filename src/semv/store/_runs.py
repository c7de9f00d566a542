"""The store's runs: creation, ownership and heartbeats, finishing (committed runs never
change), and reading runs and their nodes back."""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from semv.errors import RunBusy, RunNotFound, StoreError
from semv.model import RunStatus
from semv.store import _schema as t
from semv.store._cache import NodeCache
from semv.store._chain import genesis_hash
from semv.store._records import FinishedRun, NodeRecord, RunRecord, new_run_id, run_record, utc_now

__all__ = ["HEARTBEAT_SECONDS", "STALE_SECONDS", "Runs"]

logger = logging.getLogger(__name__)

_FINISH_RUN = (
    "UPDATE runs SET status = ?, finished_at = ?, label = ?, confidence = ?, result_json = ?, "
    "error = ?, trace_head = (SELECT hash FROM trace WHERE run_id = ? ORDER BY seq DESC LIMIT 1) "
    "WHERE run_id = ? AND status = 'running'"
)
_CREATE_RUN = (
    "INSERT INTO runs (run_id, case_id, adapter, status, created_at, parent_run_id, "
    "settings_hash, agents) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_CREATE_OWNER = "INSERT INTO run_owners (run_id, pid, host, heartbeat_at) VALUES (?, ?, ?, ?)"

HEARTBEAT_SECONDS = 10.0
"""A running run's owner refreshes its heartbeat at most this often (on trace writes)."""
STALE_SECONDS = 900.0
"""A running run owned by another host, silent for this long, is taken as interrupted
(same host: the owner's pid is checked directly)."""


class Runs(NodeCache):
    """Runs: one row each, owned by the process that runs it, append-only once finished."""

    def create_run(
        self,
        *,
        case_id: str,
        adapter: str,
        settings_hash: str,
        agents: str,
        parent_run_id: str | None = None,
    ) -> str:
        run_id = new_run_id()
        if not self._locking:  # SQLite: plain sqlite3, both rows in one transaction
            now = utc_now()
            try:
                with self._raw() as cur:
                    cur.execute(
                        _CREATE_RUN,
                        (run_id, case_id, adapter, RunStatus.RUNNING.value, now,
                         parent_run_id, settings_hash, agents),
                    )  # fmt: skip
                    cur.execute(_CREATE_OWNER, (run_id, os.getpid(), self.host, utc_now()))
                    cur.connection.commit()
            except sqlite3.IntegrityError as exc:
                raise StoreError(
                    f"run id collision for {run_id}; a run is never overwritten"
                ) from exc
            self._heads[run_id] = (-1, genesis_hash(run_id))
            self._beats[run_id] = time.monotonic()
            return run_id
        try:
            with self._tx() as conn:
                conn.execute(
                    insert(t.runs).values(
                        run_id=run_id,
                        case_id=case_id,
                        adapter=adapter,
                        status=RunStatus.RUNNING.value,
                        created_at=utc_now(),
                        parent_run_id=parent_run_id,
                        settings_hash=settings_hash,
                        agents=agents,
                    )
                )
                now = utc_now()
                conn.execute(
                    insert(t.run_owners).values(
                        run_id=run_id, pid=os.getpid(), host=self.host, heartbeat_at=now
                    )
                )
        except StoreError as exc:
            if isinstance(exc.__cause__, IntegrityError):
                raise StoreError(
                    f"run id collision for {run_id}; a run is never overwritten"
                ) from exc
            raise
        self._heads[run_id] = (-1, genesis_hash(run_id))
        self._beats[run_id] = time.monotonic()
        return run_id

    def heartbeat(self, run_id: str, *, force: bool = False) -> None:
        """Show that the owner of ``run_id`` is alive (at most every HEARTBEAT_SECONDS)."""
        last = self._beats.get(run_id)
        now = time.monotonic()
        if not force and last is not None and now - last < HEARTBEAT_SECONDS:
            return
        self._beats[run_id] = now
        with self._tx() as conn:
            conn.execute(
                update(t.run_owners)
                .where(t.run_owners.c.run_id == run_id)
                .values(heartbeat_at=utc_now(), pid=os.getpid(), host=self.host)
            )

    def interrupted(self, records: Iterable[RunRecord]) -> set[str]:
        """The ids among ``records`` of runs still marked running whose owner is gone: on this
        host its pid no longer exists; elsewhere (or with no owner row, a run from an older
        store) nothing was heard for STALE_SECONDS."""
        running = [r for r in records if r.status is RunStatus.RUNNING]
        if not running:
            return set()
        with self._tx() as conn:
            rows = conn.execute(
                select(t.run_owners).where(t.run_owners.c.run_id.in_([r.run_id for r in running]))
            ).all()
        owners = {r.run_id: r for r in rows}
        now = datetime.now(UTC)
        gone: set[str] = set()
        for record in running:
            owner = owners.get(record.run_id)
            if owner is not None and owner.host == self.host:
                if not _pid_alive(int(owner.pid)):
                    gone.add(record.run_id)
                continue
            last = owner.heartbeat_at if owner is not None else record.created_at
            if (now - datetime.fromisoformat(last)).total_seconds() > STALE_SECONDS:
                gone.add(record.run_id)
        return gone

    def owner(self, run_id: str) -> tuple[int, str, str] | None:
        """(pid, host, last heartbeat) of a run, None for a run from an older store."""
        with self._tx() as conn:
            row = conn.execute(select(t.run_owners).where(t.run_owners.c.run_id == run_id)).first()
        return None if row is None else (int(row.pid), str(row.host), str(row.heartbeat_at))

    def _claim_owner(self, run_id: str, row: Any) -> None:
        """Make this process the owner of the gone run ``run_id``, compare-and-swap on its
        owner ``row`` as it was read when the run was judged gone: of two processes closing
        the same run at once exactly one wins, the other gets ``RunBusy`` before it has
        written anything."""
        c = t.run_owners.c
        mine = {"pid": os.getpid(), "host": self.host, "heartbeat_at": utc_now()}
        if row is None:  # a run from an older store: the first insert wins
            try:
                with self._engine.begin() as conn:
                    conn.execute(insert(t.run_owners).values(run_id=run_id, **mine))
                taken = 1
            except IntegrityError:
                taken = 0
            except SQLAlchemyError as exc:
                raise StoreError(f"store operation failed: {exc}") from exc
        else:
            with self._tx() as conn:
                taken = conn.execute(
                    update(t.run_owners)
                    .where(
                        c.run_id == run_id,
                        c.pid == row.pid,
                        c.host == row.host,
                        c.heartbeat_at == row.heartbeat_at,
                    )
                    .values(**mine)
                ).rowcount
        if taken != 1:
            raise RunBusy(f"run {run_id} is being resumed by another process")

    def finish_run(
        self,
        run_id: str,
        status: RunStatus,
        *,
        label: str | None = None,
        confidence: float | None = None,
        result_json: str | None = None,
        error: str | None = None,
    ) -> None:
        """Move a running run to committed or failed. Finished runs never change again.

        The recorded head is read by the UPDATE itself, so an event appended by another
        process up to that moment is covered (SQLite: the statement holds the write lock;
        PostgreSQL: the run row is locked first, which waits for appends in flight)."""
        done = FinishedRun(run_id, status, utc_now(), label, confidence, result_json, error)
        recorded = self._finish_locked(done) if self._locking else self._finish_sqlite(done)
        if self.head_log is not None:
            try:
                self.head_log.append(run_id, status.value, recorded, done.finished_at)
            except OSError as exc:  # the run is committed; the anchor is best effort
                logger.warning("cannot append to the head log %s: %s", self.head_log.path, exc)

    def _finish_sqlite(self, done: FinishedRun) -> str | None:
        """``finish_run`` on SQLite: the same UPDATE (the head read by the statement that
        holds the write lock), in plain ``sqlite3``; the recorded head."""
        run_id = done.run_id
        with self._raw() as cur:
            cur.execute(
                _FINISH_RUN,
                (done.status.value, done.finished_at, done.label, done.confidence,
                 done.result_json, done.error, run_id, run_id),
            )  # fmt: skip
            if cur.rowcount != 1:
                cur.connection.rollback()
                raise StoreError(f"run {run_id} is not running; a finished run is never modified")
            row = cur.execute("SELECT trace_head FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            cur.connection.commit()
        return None if row is None or row[0] is None else str(row[0])

    def _finish_locked(self, done: FinishedRun) -> str | None:
        """``finish_run`` on PostgreSQL: the run row locked, then the UPDATE; the recorded
        head."""
        run_id = done.run_id
        head = (
            select(t.trace.c.hash)
            .where(t.trace.c.run_id == run_id)
            .order_by(t.trace.c.seq.desc())
            .limit(1)
            .scalar_subquery()
        )
        with self._tx() as conn:
            if self._locking:
                conn.execute(
                    select(t.runs.c.run_id).where(t.runs.c.run_id == run_id).with_for_update()
                )
            res = conn.execute(
                update(t.runs)
                .where(t.runs.c.run_id == run_id, t.runs.c.status == RunStatus.RUNNING.value)
                .values(
                    status=done.status.value,
                    finished_at=done.finished_at,
                    label=done.label,
                    confidence=done.confidence,
                    result_json=done.result_json,
                    error=done.error,
                    trace_head=head,
                )
            )
            if res.rowcount != 1:
                raise StoreError(f"run {run_id} is not running; a finished run is never modified")
            recorded = conn.execute(
                select(t.runs.c.trace_head).where(t.runs.c.run_id == run_id)
            ).scalar()
        return None if recorded is None else str(recorded)

    def get_run(self, run_ref: str) -> RunRecord:
        """A run by id or unique id prefix."""
        with self._tx() as conn:
            rows = conn.execute(
                select(t.runs).where(t.runs.c.run_id.startswith(run_ref, autoescape=True)).limit(2)
            ).all()
        if not rows:
            raise RunNotFound(f"no run matches '{run_ref}'")
        if len(rows) > 1:
            raise RunNotFound(f"'{run_ref}' matches several runs; give more characters")
        return run_record(rows[0]._mapping)

    def list_runs(self, limit: int = 50) -> list[RunRecord]:
        with self._tx() as conn:
            rows = conn.execute(
                select(t.runs).order_by(t.runs.c.created_at.desc()).limit(limit)
            ).all()
        return [run_record(r._mapping) for r in rows]

    def runs_of_case(self, case_id: str) -> list[RunRecord]:
        """Every run of the case ``case_id`` (first passes and revisions), newest first."""
        with self._tx() as conn:
            rows = conn.execute(
                select(t.runs)
                .where(t.runs.c.case_id == case_id)
                .order_by(t.runs.c.created_at.desc())
            ).all()
        return [run_record(r._mapping) for r in rows]

    def has_runs(self) -> bool:
        """Whether the store holds any run (one indexed row read, not a count)."""
        if not self._locking:
            with self._raw() as cur:
                return cur.execute("SELECT 1 FROM runs LIMIT 1").fetchone() is not None
        with self._tx() as conn:
            return conn.execute(select(t.runs.c.run_id).limit(1)).first() is not None

    def run_status(self, run_id: str) -> RunStatus:
        """The status of the run ``run_id`` (an exact id, not a prefix)."""
        if not self._locking:
            with self._raw() as cur:
                row = cur.execute("SELECT status FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        else:
            with self._tx() as conn:
                row = conn.execute(select(t.runs.c.status).where(t.runs.c.run_id == run_id)).first()
        if row is None:
            raise RunNotFound(f"no run {run_id}")
        return RunStatus(row[0])

    def count_runs(self) -> int:
        with self._tx() as conn:
            return int(conn.execute(select(func.count()).select_from(t.runs)).scalar_one())

    def run_nodes(self, run_id: str) -> list[NodeRecord]:
        with self._tx() as conn:
            rows = conn.execute(
                select(t.nodes).where(t.nodes.c.run_id == run_id).order_by(t.nodes.c.key)
            ).all()
        return [
            NodeRecord(
                key=r.key,
                stage=r.stage,
                fingerprint=r.fingerprint,
                output_hash=r.output_hash,
                reused=bool(r.reused),
                seconds=float(r.seconds),
            )
            for r in rows
        ]

    def node_value_json(self, run_id: str, key: str) -> str:
        with self._tx() as conn:
            row = conn.execute(
                select(t.nodes.c.output_hash).where(
                    t.nodes.c.run_id == run_id, t.nodes.c.key == key
                )
            ).first()
        if row is None:
            raise StoreError(f"run {run_id} has no node {key}")
        return self.get_blob(str(row[0])).decode("utf-8")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
