"""The store's trace: hash-chained events appended to a run (never rewritten), with the node
rows a batch of executed nodes writes in the same transaction, and the chain's verification."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection, insert, select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from semv.errors import StoreError
from semv.model import RunStatus, TraceEvent, TraceKind
from semv.store import _schema as t
from semv.store._cache import _REMEMBER_BLOB, _REMEMBER_FINGERPRINT
from semv.store._chain import chain_event, commit_problem, event_hash, genesis_hash, trace_event
from semv.store._records import NodeRecord, TraceCheck, utc_now
from semv.store._runs import Runs

__all__ = ["TraceChain"]

_CHAIN_ATTEMPTS = 20
"""How often an append is rebuilt on a head another writer moved (SQLite only)."""

_INSERT_NODE = (
    "INSERT INTO nodes (run_id, key, stage, fingerprint, output_hash, reused, seconds) "
    "VALUES (:run_id, :key, :stage, :fingerprint, :output_hash, :reused, :seconds)"
)
_INSERT_TRACE = (
    "INSERT INTO trace (run_id, seq, kind, node, payload, at, prev_hash, hash) "
    "VALUES (:run_id, :seq, :kind, :node, :payload, :at, :prev_hash, :hash)"
)
"""The SQLite hot paths' statements (``Store._raw``), the same rows as the Core statements."""

_Built = tuple[list[dict[str, Any]], list[TraceEvent], list[dict[str, Any]]]
"""What an append builds on the chain's head: node rows, trace events, their trace rows."""


class TraceChain(Runs):
    """A run's trace: one hash chain per run, extended under concurrent writers."""

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
        return [trace_event(r) for r in rows]

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
                ev = trace_event(row)
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
        failed = commit_problem(run, events) if run.status is RunStatus.COMMITTED else None
        if failed is None and self.head_log is not None:
            failed = self.head_log.problem(run.run_id, run.status.value, run.trace_head)
        if failed is not None:
            return TraceCheck(False, len(events), head, failed)
        return TraceCheck(True, len(events), head)

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
