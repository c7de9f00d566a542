"""The store: runs, content-addressed node outputs, the fingerprint cache and the trace.

SQLAlchemy Core over SQLite in WAL mode at ``<data_dir>/semv.db`` (or any database URL). Runs
are append-only: a run id is never reused, a committed run is never modified, and trace rows
are only ever inserted, each holding the hash of the previous one.
"""

from __future__ import annotations

import json
import logging
import math
import os
import secrets
import socket
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    Table,
    create_engine,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError

from semv.errors import RunBusy, RunNotFound, StoreError, StoreUnavailable
from semv.model import RunStatus, TraceEvent, TraceKind
from semv.store import _schema as t
from semv.store._hashing import canonical_json, sha256_text
from semv.store._headlog import head_log_for
from semv.store._migrate import upgrade as upgrade_schema
from semv.store._url import display_url, mask_in

logger = logging.getLogger(__name__)

_SQLITE_BUSY_SECONDS = 30.0
"""How long a writer waits for another process's transaction before giving up."""
_SCHEMA_ATTEMPTS = 5
_CHAIN_ATTEMPTS = 20
"""How often an append is rebuilt on a head another writer moved (SQLite only)."""

__all__ = [
    "HEARTBEAT_SECONDS",
    "STALE_SECONDS",
    "NodeRecord",
    "RevisionRecord",
    "RunRecord",
    "Store",
    "TraceCheck",
    "genesis_hash",
    "result_hash",
    "utc_now",
]

_CACHED_BLOB = (
    "SELECT n.output_hash, b.content FROM node_cache n JOIN blobs b ON b.hash = n.output_hash "
    "WHERE n.fingerprint = ?"
)
_FINISH_RUN = (
    "UPDATE runs SET status = ?, finished_at = ?, label = ?, confidence = ?, result_json = ?, "
    "error = ?, trace_head = (SELECT hash FROM trace WHERE run_id = ? ORDER BY seq DESC LIMIT 1) "
    "WHERE run_id = ? AND status = 'running'"
)
_PREFETCH = (
    "SELECT n.fingerprint, n.output_hash, b.content FROM node_cache n "
    "JOIN blobs b ON b.hash = n.output_hash WHERE n.fingerprint IN ("
    "SELECT fingerprint FROM nodes WHERE run_id = ("
    "SELECT p.run_id FROM runs p JOIN runs r ON r.run_id = ? "
    "WHERE p.case_id = r.case_id AND p.adapter = r.adapter AND p.run_id != r.run_id "
    "ORDER BY p.created_at DESC LIMIT 1))"
)
_CREATE_RUN = (
    "INSERT INTO runs (run_id, case_id, adapter, status, created_at, parent_run_id, "
    "settings_hash, agents) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_CREATE_OWNER = "INSERT INTO run_owners (run_id, pid, host, heartbeat_at) VALUES (?, ?, ?, ?)"
_REMEMBER_BLOB = "INSERT OR IGNORE INTO blobs (hash, content) VALUES (?, ?)"
_REMEMBER_FINGERPRINT = (
    "INSERT OR IGNORE INTO node_cache (fingerprint, stage, output_hash, created_at) "
    "VALUES (?, ?, ?, ?)"
)
_INSERT_NODE = (
    "INSERT INTO nodes (run_id, key, stage, fingerprint, output_hash, reused, seconds) "
    "VALUES (:run_id, :key, :stage, :fingerprint, :output_hash, :reused, :seconds)"
)
_INSERT_TRACE = (
    "INSERT INTO trace (run_id, seq, kind, node, payload, at, prev_hash, hash) "
    "VALUES (:run_id, :seq, :kind, :node, :payload, :at, :prev_hash, :hash)"
)
"""The SQLite hot paths' statements (``Store._raw``), the same rows as the Core statements."""

HEARTBEAT_SECONDS = 10.0
"""A running run's owner refreshes its heartbeat at most this often (on trace writes)."""
STALE_SECONDS = 900.0
"""A running run owned by another host, silent for this long, is taken as interrupted
(same host: the owner's pid is checked directly)."""


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def genesis_hash(run_id: str) -> str:
    """prev_hash of a run's first trace event."""
    return sha256_text(f"semv-trace-genesis:{run_id}")


def event_hash(body: dict[str, Any]) -> str:
    """hash = sha256(canonical JSON of every field but ``hash``, including ``prev_hash``)."""
    return sha256_text(canonical_json(body))


def result_hash(result: dict[str, Any]) -> str:
    """sha256 of a committed result's canonical JSON without its ``trace_head`` (the head is
    the hash of the ``run.committed`` event that carries this digest, so it cannot be part
    of it). Binds the stored result into the trace chain."""
    return sha256_text(canonical_json({k: v for k, v in result.items() if k != "trace_head"}))


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


class Store:
    """Persistence for runs, nodes, the cache and the trace."""

    def __init__(self, data_dir: Path | None = None, *, url: str | None = None) -> None:
        if url is None:
            if data_dir is None:
                raise ValueError("Store needs a data_dir or a database url")
            try:
                data_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{data_dir}: cannot create data directory: {exc}") from exc
            url = f"sqlite:///{data_dir / 'semv.db'}"
        self.url = normalize_url(url)
        self.data_dir = data_dir
        self._engine: Engine = open_engine(self.url)
        self.display_url = display_url(self.url)
        """The URL for messages and logs (a password is masked, in every form)."""
        self._create_schema()
        self._heads: dict[str, tuple[int, str]] = {}
        self._locking = self._engine.dialect.name == "postgresql"
        """Row locks for the trace chain (PostgreSQL); SQLite has one writer at a time."""
        self._beats: dict[str, float] = {}
        self.host = socket.gethostname()
        self.head_log = head_log_for(data_dir)

    def _create_schema(self) -> None:
        """Upgrade the schema to the newest migration (``semv.store._migrate``): a fresh store
        gets every table, an older one its missing migrations. Concurrent openers serialise on
        a lock; a SQLite database busy beyond its timeout is retried, not fatal."""
        for attempt in range(_SCHEMA_ATTEMPTS):
            try:
                upgrade_schema(self._engine)
                return
            except OperationalError as exc:
                if attempt == _SCHEMA_ATTEMPTS - 1:
                    raise self._unavailable(exc) from exc
                time.sleep(0.05 * (attempt + 1))
            except SQLAlchemyError as exc:
                raise self._unavailable(exc) from exc

    def _unavailable(self, exc: Exception) -> StoreUnavailable:
        """Cannot open the store: a user condition (exit 2), the URL shown masked."""
        detail = mask_in(str(exc).splitlines()[0] if str(exc) else repr(exc), self.url)
        return StoreUnavailable(f"{self.display_url}: cannot open store: {detail}")

    def close(self) -> None:
        self._engine.dispose()

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine, for modules that keep their own tables in this store
        (``semv.memory``)."""
        return self._engine

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        try:
            with self._engine.begin() as conn:
                yield conn
        except SQLAlchemyError as exc:
            raise StoreError(f"store operation failed: {exc}") from exc

    @contextmanager
    def _raw(self) -> Iterator[Any]:
        """A cursor on a pooled DBAPI connection (SQLite only), for the executor's hot paths:
        a node's cache lookup, its cache row and its trace rows. SQLAlchemy's statement layer
        costs ~0.2 ms a statement, which on a warm evaluation (48 reused nodes a case) was a
        third of the wall time. Plain ``sqlite3``: a SELECT sees the latest commit; a write
        opens a transaction that the caller commits. Errors other than integrity errors
        become ``StoreError``; an uncommitted write is rolled back."""
        raw = self._engine.raw_connection()
        try:
            cursor = raw.cursor()
            try:
                yield cursor
            except sqlite3.IntegrityError:
                raw.rollback()
                raise
            except sqlite3.Error as exc:
                raw.rollback()
                raise StoreError(f"store operation failed: {exc}") from exc
            finally:
                cursor.close()
        finally:
            raw.close()

    # ---- blobs and cache ---------------------------------------------------------------

    def put_blob(self, digest: str, content: bytes) -> None:
        self._insert_once(t.blobs, hash=digest, content=content)

    def get_blob(self, digest: str) -> bytes:
        with self._tx() as conn:
            row = conn.execute(select(t.blobs.c.content).where(t.blobs.c.hash == digest)).first()
        if row is None:
            raise StoreError(f"blob {digest} missing from the store")
        return bytes(row[0])

    def cached_output(self, fingerprint: str) -> str | None:
        with self._tx() as conn:
            row = conn.execute(
                select(t.node_cache.c.output_hash).where(t.node_cache.c.fingerprint == fingerprint)
            ).first()
        return None if row is None else str(row[0])

    def remember(self, fingerprint: str, stage: str, output_hash: str, content: bytes) -> None:
        """Store an output blob and map the fingerprint to it.

        Both are content-addressed, so a concurrent writer (another ``semv`` process on the same
        data directory) that got there first wrote exactly the same row: that is not an error.
        """
        cache_row = {
            "fingerprint": fingerprint,
            "stage": stage,
            "output_hash": output_hash,
            "created_at": utc_now(),
        }
        if self._locking:  # PostgreSQL: one statement each, a concurrent duplicate is a no-op
            try:
                with self._engine.begin() as conn:
                    conn.execute(
                        pg_insert(t.blobs)
                        .values(hash=output_hash, content=content)
                        .on_conflict_do_nothing()
                    )
                    conn.execute(
                        pg_insert(t.node_cache).values(**cache_row).on_conflict_do_nothing()
                    )
            except SQLAlchemyError as exc:
                raise StoreError(f"store operation failed: {exc}") from exc
            return
        # SQLite: both rows in one transaction; a row another writer got to first is the
        # same content-addressed row, so INSERT OR IGNORE keeps it
        with self._raw() as cur:
            cur.execute(_REMEMBER_BLOB, (output_hash, content))
            cur.execute(
                _REMEMBER_FINGERPRINT,
                (fingerprint, stage, output_hash, cache_row["created_at"]),
            )
            cur.connection.commit()

    def _insert_once(self, table: Table, **values: Any) -> None:
        key = next(iter(table.primary_key.columns))
        if self._locking:
            try:
                with self._engine.begin() as conn:
                    conn.execute(pg_insert(table).values(**values).on_conflict_do_nothing())
            except SQLAlchemyError as exc:
                raise StoreError(f"store operation failed: {exc}") from exc
            return
        try:
            with self._engine.begin() as conn:
                if conn.execute(select(key).where(key == values[key.name])).first() is None:
                    conn.execute(insert(table).values(**values))
        except IntegrityError:
            return  # a concurrent writer inserted the same content-addressed row
        except SQLAlchemyError as exc:
            raise StoreError(f"store operation failed: {exc}") from exc

    # ---- runs ----------------------------------------------------------------------------

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
        return _run_record(rows[0]._mapping)

    def list_runs(self, limit: int = 50) -> list[RunRecord]:
        with self._tx() as conn:
            rows = conn.execute(
                select(t.runs).order_by(t.runs.c.created_at.desc()).limit(limit)
            ).all()
        return [_run_record(r._mapping) for r in rows]

    def runs_of_case(self, case_id: str) -> list[RunRecord]:
        """Every run of the case ``case_id`` (first passes and revisions), newest first."""
        with self._tx() as conn:
            rows = conn.execute(
                select(t.runs)
                .where(t.runs.c.case_id == case_id)
                .order_by(t.runs.c.created_at.desc())
            ).all()
        return [_run_record(r._mapping) for r in rows]

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

    # ---- trace ---------------------------------------------------------------------------

    def append_event(
        self,
        run_id: str,
        kind: TraceKind,
        *,
        node: str | None = None,
        payload: dict[str, Any] | None = None,
    ) -> TraceEvent:
        """Append one hash-chained event to a run's trace (I_trace: extend, never rewrite)."""

        def build(seq_prev: int, prev: str) -> _Built:
            event, row = chain_event(
                run_id, seq_prev + 1, kind, node, payload or {}, utc_now(), prev
            )
            return [], [event], [row]

        return self._extend_chain(run_id, build)[0]

    def _extend_chain(
        self,
        run_id: str,
        build: Callable[[int, str], _Built],
        remember: Sequence[tuple[str, str, str, bytes]] = (),
    ) -> list[TraceEvent]:
        """Insert the node rows and trace events ``build(head seq, head hash)`` returns, in one
        transaction, on top of the run's current head; on SQLite the same transaction first
        writes the cache entries ``remember`` lists (``Store.remember``'s arguments).

        PostgreSQL (several processes or machines may write one run): the run row is locked
        ``FOR UPDATE`` and the head read from the database inside the transaction, so appends
        to one run are serialised and the chain never forks. SQLite (one writer at a time): the
        head this process last wrote is used, as before; if another process extended the chain
        meanwhile, the ``(run_id, seq)`` key refuses the insert and the append is rebuilt on
        the head read back from the database."""
        for _attempt in range(_CHAIN_ATTEMPTS):
            used: tuple[int, str] | None = None
            try:
                if self._locking:
                    for entry in remember:  # its own statements (ON CONFLICT DO NOTHING)
                        self.remember(*entry)
                    remember = ()
                    with self._engine.begin() as conn:
                        used = self._locked_head(conn, run_id)
                        node_rows, events, trace_rows = build(*used)
                        if node_rows:
                            conn.execute(insert(t.nodes), node_rows)
                        conn.execute(insert(t.trace), trace_rows)
                else:
                    used = self._heads.get(run_id) or self._load_head(run_id)
                    node_rows, events, trace_rows = build(*used)
                    with self._raw() as cur:
                        if remember:
                            now = utc_now()
                            cur.executemany(_REMEMBER_BLOB, [(h, c) for _, _, h, c in remember])
                            cur.executemany(
                                _REMEMBER_FINGERPRINT,
                                [(fp, stage, h, now) for fp, stage, h, _ in remember],
                            )
                        if node_rows:
                            cur.executemany(_INSERT_NODE, node_rows)
                        cur.executemany(_INSERT_TRACE, trace_rows)
                        cur.connection.commit()
            except (IntegrityError, sqlite3.IntegrityError) as exc:
                self._heads.pop(run_id, None)
                if used is None or self._load_head(run_id) == used:
                    raise StoreError(f"store operation failed: {exc}") from exc
                continue  # another writer extended the chain: rebuild on its head
            except SQLAlchemyError as exc:
                raise StoreError(f"store operation failed: {exc}") from exc
            if events:
                self._heads[run_id] = (events[-1].seq, events[-1].hash)
            self.heartbeat(run_id)
            return events
        raise StoreError(f"run {run_id}: the trace kept moving under concurrent writers")

    def _locked_head(self, conn: Connection, run_id: str) -> tuple[int, str]:
        """Lock the run's row (PostgreSQL) and read its trace head in the same transaction."""
        conn.execute(select(t.runs.c.run_id).where(t.runs.c.run_id == run_id).with_for_update())
        row = conn.execute(
            select(t.trace.c.seq, t.trace.c.hash)
            .where(t.trace.c.run_id == run_id)
            .order_by(t.trace.c.seq.desc())
            .limit(1)
        ).first()
        return (-1, genesis_hash(run_id)) if row is None else (int(row[0]), str(row[1]))

    def _load_head(self, run_id: str) -> tuple[int, str]:
        events = self.trace(run_id)
        if not events:
            return (-1, genesis_hash(run_id))
        return (events[-1].seq, events[-1].hash)

    def trace(self, run_id: str) -> list[TraceEvent]:
        with self._tx() as conn:
            rows = conn.execute(
                select(t.trace).where(t.trace.c.run_id == run_id).order_by(t.trace.c.seq)
            ).all()
        return [_trace_event(r) for r in rows]

    def verify_trace(self, run_id: str) -> TraceCheck:
        """Recompute the hash chain; detect rewritten, inserted, reordered, dropped or
        malformed events, and for a committed run check that the stored label, confidence
        and result are the ones its ``run.committed`` event (the chain) holds."""
        run = self.get_run(run_id)
        with self._tx() as conn:
            rows = conn.execute(
                select(t.trace).where(t.trace.c.run_id == run.run_id).order_by(t.trace.c.seq)
            ).all()
        events: list[TraceEvent] = []
        prev = genesis_hash(run.run_id)
        for expected_seq, row in enumerate(rows):
            n = len(rows)
            try:
                ev = _trace_event(row)
            except (ValueError, TypeError) as exc:
                return TraceCheck(False, n, None, f"event {row.seq} is malformed: {exc}", row.seq)
            if ev.seq != expected_seq:
                return TraceCheck(False, n, None, f"event {ev.seq} out of sequence", ev.seq)
            if ev.prev_hash != prev:
                problem = f"event {ev.seq} does not link to its predecessor"
                return TraceCheck(False, n, None, problem, ev.seq)
            body = ev.model_dump(mode="json", exclude={"hash"})
            if event_hash(body) != ev.hash:
                problem = f"event {ev.seq} ({ev.kind.value}) was rewritten"
                return TraceCheck(False, n, None, problem, ev.seq)
            prev = ev.hash
            events.append(ev)
        head = events[-1].hash if events else None
        if run.trace_head is not None and run.trace_head != head:
            return TraceCheck(
                False, len(events), head, "trace head differs from the head recorded at commit"
            )
        failed = _commit_problem(run, events) if run.status is RunStatus.COMMITTED else None
        if failed is None and self.head_log is not None:
            failed = self.head_log.problem(run.run_id, run.status.value, run.trace_head)
        if failed is not None:
            return TraceCheck(False, len(events), head, failed)
        return TraceCheck(True, len(events), head)

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

    # ---- batched node commits and reads (the executor's hot path) ------------------------

    def record_nodes(
        self,
        run_id: str,
        entries: Sequence[tuple[NodeRecord, TraceKind, dict[str, Any], str]],
        *,
        remember: Sequence[tuple[str, str, str, bytes]] = (),
    ) -> list[TraceEvent]:
        """Record several nodes and their trace events ``(record, kind, payload, at)`` in ONE
        transaction: every row is written or none is. ``remember`` lists cache entries
        (``Store.remember``'s arguments: fingerprint, stage, output hash, content) written
        with them (SQLite: in the same transaction; PostgreSQL: just before). The events
        extend the hash chain in the given order exactly as that many ``append_event`` calls
        would (same seq, prev_hash and hash; ``at`` is when the node finished); the in-memory
        head moves only after the transaction committed."""
        if not entries:
            for entry in remember:
                self.remember(*entry)
            return []

        def build(seq: int, prev: str) -> _Built:
            events: list[TraceEvent] = []
            node_rows: list[dict[str, Any]] = []
            trace_rows: list[dict[str, Any]] = []
            for node, kind, payload, at in entries:
                seq += 1
                event, row = chain_event(run_id, seq, kind, node.key, payload, at, prev)
                events.append(event)
                trace_rows.append(row)
                prev = event.hash
                node_rows.append(
                    {
                        "run_id": run_id,
                        "key": node.key,
                        "stage": node.stage,
                        "fingerprint": node.fingerprint,
                        "output_hash": node.output_hash,
                        "reused": int(node.reused),
                        "seconds": node.seconds,
                    }
                )
            return node_rows, events, trace_rows

        return self._extend_chain(run_id, build, remember)

    def get_blobs(self, digests: Iterable[str]) -> dict[str, bytes]:
        """The blobs among ``digests`` that the store holds, in one query per 500 hashes."""
        wanted = sorted(set(digests))
        found: dict[str, bytes] = {}
        with self._tx() as conn:
            for i in range(0, len(wanted), 500):
                chunk = wanted[i : i + 500]
                rows = conn.execute(
                    select(t.blobs.c.hash, t.blobs.c.content).where(t.blobs.c.hash.in_(chunk))
                ).all()
                found.update((str(r[0]), bytes(r[1])) for r in rows)
        return found

    def prefetch_cached(self, run_id: str) -> dict[str, tuple[str, bytes]]:
        """The fingerprint cache's entries (fingerprint → output hash, content) for the
        fingerprints of the latest other run of ``run_id``'s case (same case id and
        adapter), in one query: a rerun of a case mostly finds its nodes under the
        fingerprints its previous run recorded, so the executor reads them all at once
        instead of one query a node (``cached_blob`` answers the rest). The entries are
        exactly the rows ``cached_blob`` would return: cache rows are only ever inserted."""
        if not self._locking:
            with self._raw() as cur:
                rows = cur.execute(_PREFETCH, (run_id,)).fetchall()
            return {str(fp): (str(h), bytes(c)) for fp, h, c in rows}
        this = t.runs.alias("r")
        other = t.runs.alias("p")
        previous = (
            select(other.c.run_id)
            .join(this, this.c.run_id == run_id)
            .where(
                other.c.case_id == this.c.case_id,
                other.c.adapter == this.c.adapter,
                other.c.run_id != this.c.run_id,
            )
            .order_by(other.c.created_at.desc())
            .limit(1)
            .scalar_subquery()
        )
        fingerprints = select(t.nodes.c.fingerprint).where(t.nodes.c.run_id == previous)
        with self._tx() as conn:
            found = conn.execute(
                select(t.node_cache.c.fingerprint, t.node_cache.c.output_hash, t.blobs.c.content)
                .join(t.blobs, t.blobs.c.hash == t.node_cache.c.output_hash)
                .where(t.node_cache.c.fingerprint.in_(fingerprints))
            ).all()
        return {str(r[0]): (str(r[1]), bytes(r[2])) for r in found}

    def cached_blob(self, fingerprint: str) -> tuple[str, bytes] | None:
        """``cached_output`` and ``get_blob`` in one query: (output hash, content) or None."""
        if not self._locking:
            with self._raw() as cur:
                hit = cur.execute(_CACHED_BLOB, (fingerprint,)).fetchone()
            return None if hit is None else (str(hit[0]), bytes(hit[1]))
        with self._tx() as conn:
            row = conn.execute(
                select(t.node_cache.c.output_hash, t.blobs.c.content)
                .join(t.blobs, t.blobs.c.hash == t.node_cache.c.output_hash)
                .where(t.node_cache.c.fingerprint == fingerprint)
            ).first()
        return None if row is None else (str(row[0]), bytes(row[1]))

    # ---- revisions (Module E) ------------------------------------------------------------

    def add_revision(
        self,
        run_id: str,
        *,
        parent_run_id: str,
        policy: str,
        base_head: str | None,
        batch_json: str,
        review_json: str,
    ) -> None:
        with self._tx() as conn:
            conn.execute(
                insert(t.revisions).values(
                    run_id=run_id,
                    parent_run_id=parent_run_id,
                    policy=policy,
                    base_head=base_head,
                    batch_json=batch_json,
                    review_json=review_json,
                    created_at=utc_now(),
                )
            )

    def commit_revision(self, run_id: str, outcome_json: str) -> None:
        """Record a revision's outcome once; a committed revision never changes."""
        with self._tx() as conn:
            res = conn.execute(
                update(t.revisions)
                .where(t.revisions.c.run_id == run_id, t.revisions.c.committed_at.is_(None))
                .values(outcome_json=outcome_json, committed_at=utc_now())
            )
            if res.rowcount != 1:
                raise StoreError(f"revision {run_id} is unknown or already committed")

    def get_revision(self, run_id: str) -> RevisionRecord | None:
        with self._tx() as conn:
            row = conn.execute(select(t.revisions).where(t.revisions.c.run_id == run_id)).first()
        return None if row is None else RevisionRecord(**row._mapping)

    def revisions_of(self, parent_run_id: str) -> list[RevisionRecord]:
        """Every revision of ``parent_run_id``, oldest first (committed or not)."""
        with self._tx() as conn:
            rows = conn.execute(
                select(t.revisions)
                .where(t.revisions.c.parent_run_id == parent_run_id)
                .order_by(t.revisions.c.created_at, t.revisions.c.run_id)
            ).all()
        return [RevisionRecord(**r._mapping) for r in rows]


_Built = tuple[list[dict[str, Any]], list[TraceEvent], list[dict[str, Any]]]
"""What an append builds on the chain's head: node rows, trace events, their trace rows."""

_json_str = json.JSONEncoder(ensure_ascii=False).encode
"""A string's JSON, as ``canonical_json`` writes it."""


def chain_event(
    run_id: str,
    seq: int,
    kind: TraceKind,
    node: str | None,
    payload: dict[str, Any],
    at: str,
    prev: str,
) -> tuple[TraceEvent, dict[str, Any]]:
    """The event ``seq`` after ``prev`` and its trace row. Its hash is ``event_hash`` of the
    body: the body's canonical JSON is written here from the payload's (sorted keys, no
    spaces; the other fields are strings, an int and maybe null), so the payload is
    serialised once, for the hash and the row alike."""
    if all(type(k) is str and type(v) is str for k, v in payload.items()):
        # a node event's payload (stage, fingerprint, output): plain strings, so json.dumps
        # alone writes canonical_json's text without pydantic's walk first
        payload_json = json.dumps(
            payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
    else:
        payload_json = canonical_json(payload)
    text = (
        f'{{"at":{_json_str(at)},"kind":{_json_str(kind.value)},'
        f'"node":{"null" if node is None else _json_str(node)},"payload":{payload_json},'
        f'"prev_hash":{_json_str(prev)},"run_id":{_json_str(run_id)},"seq":{int(seq)}}}'
    )
    digest = sha256_text(text)
    event = TraceEvent(
        run_id=run_id, seq=seq, kind=kind, node=node, payload=payload, at=at, prev_hash=prev,
        hash=digest,
    )  # fmt: skip
    row = {
        "run_id": run_id,
        "seq": seq,
        "kind": kind.value,
        "node": node,
        "payload": payload_json,
        "at": at,
        "prev_hash": prev,
        "hash": digest,
    }
    return event, row


def pg_insert(table: Table) -> Any:
    """PostgreSQL's ``INSERT`` (``ON CONFLICT DO NOTHING``); its dialect is imported only by a
    store on PostgreSQL (~30 ms of every SQLite process's start otherwise)."""
    from sqlalchemy.dialects.postgresql import insert

    return insert(table)


def _trace_event(r: Any) -> TraceEvent:
    """A stored trace row as an event; ``ValueError`` when the row is malformed (payload not a
    JSON object, unknown kind, ...)."""
    try:
        payload = json.loads(r.payload)
    except (json.JSONDecodeError, TypeError, RecursionError) as exc:
        raise ValueError("payload is not JSON") from exc
    if not isinstance(payload, dict):
        raise ValueError("payload is not a JSON object")
    try:
        kind = TraceKind(r.kind)
    except ValueError as exc:
        raise ValueError(f"unknown kind {r.kind!r}") from exc
    try:
        return TraceEvent(
            run_id=r.run_id,
            seq=r.seq,
            kind=kind,
            node=r.node,
            payload=payload,
            at=r.at,
            prev_hash=r.prev_hash,
            hash=r.hash,
        )
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise ValueError(str(exc).splitlines()[0]) from exc


def _commit_problem(run: RunRecord, events: list[TraceEvent]) -> str | None:
    """Why a committed run's stored outcome disagrees with its chain, or None."""
    if run.trace_head is None:
        return "committed run has no trace head"
    commits = [e for e in events if e.kind is TraceKind.RUN_COMMITTED]
    if len(commits) != 1:
        return f"committed run has {len(commits)} run.committed events (expected 1)"
    commit = commits[0]
    if commit.hash != run.trace_head:
        return "run.committed is not the head recorded at commit"
    recorded = commit.payload
    if recorded.get("label") != run.label:
        return f"stored label {run.label!r} differs from run.committed ({recorded.get('label')!r})"
    if "confidence" in recorded and not _same(recorded["confidence"], run.confidence):
        return "stored confidence differs from run.committed"
    if run.result_json is None:
        return "committed run lost its stored result" if "result_sha256" in recorded else None
    try:
        result = json.loads(run.result_json)
    except (json.JSONDecodeError, RecursionError):
        return "stored result is not JSON"
    if not isinstance(result, dict):
        return "stored result is not a JSON object"
    if result.get("trace_head") != run.trace_head:
        return "stored result names a different trace head"
    digest = recorded.get("result_sha256")
    if digest is not None and result_hash(result) != digest:
        return "stored result differs from the result hashed into run.committed"
    if digest is None and result.get("label") not in (None, run.label):
        return "stored result's label differs from run.committed"
    return None


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return isinstance(a, int | float) and math.isclose(float(a), float(b), abs_tol=1e-12)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _run_record(m: Any) -> RunRecord:
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


def normalize_url(url: str) -> str:
    """A plain ``postgresql://`` (or ``postgres://``) URL means the psycopg 3 driver that semv
    installs; every other URL is used as given."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def open_engine(url: str) -> Engine:
    """An engine for a store URL: SQLite in WAL mode with a busy timeout, or a server database
    such as PostgreSQL (``postgresql://user@host/db``, psycopg 3)."""
    url = normalize_url(url)
    sqlite = url.startswith("sqlite")
    try:
        engine = create_engine(
            url,
            connect_args={"timeout": _SQLITE_BUSY_SECONDS} if sqlite else {},
            pool_pre_ping=not sqlite,
        )
    except (SQLAlchemyError, ImportError, ValueError) as exc:
        raise StoreUnavailable(
            f"{display_url(url)}: not a usable store URL: {mask_in(str(exc), url)}"
        ) from exc
    if sqlite:
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # the busy timeout first: switching to WAL briefly needs the write lock
    cursor.execute(f"PRAGMA busy_timeout={int(_SQLITE_BUSY_SECONDS * 1000)}")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
