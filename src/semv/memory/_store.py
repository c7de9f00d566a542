"""Persistence of one memory bank in the semv store (SQLAlchemy Core, same database).

Records, candidates, the hash-chained memory trace, usage events and frozen snapshots. In
frozen mode (Remark 4.3, invariant I_freeze) every candidate staging, case registration,
consolidation and long-term update is rejected with :class:`MemoryFrozen` and the attempt is
appended to the memory trace; usage events are stored outside the snapshot and stay allowed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, delete, func, insert, select, update
from sqlalchemy.exc import SQLAlchemyError

from semv.config import MemoryConfig
from semv.errors import InputError, InvariantViolation, StoreError
from semv.memory._model import Candidate, Record, Status, UsageKind
from semv.safeload import loads_json, read_text_bounded
from semv.store import (
    Store,
    canonical_json,
    memory_candidates,
    memory_records,
    memory_snapshots,
    memory_state,
    memory_trace,
    memory_usage,
    sha256_text,
    utc_now,
)

if TYPE_CHECKING:
    from semv.memory._import import ImportReport

__all__ = ["LONG_TERM", "MemoryFrozen", "MemoryState", "MemoryStore", "snapshot_hash"]

LONG_TERM = (Status.ACTIVE, Status.UNDER_REVIEW, Status.DEPRECATED)
"""Statuses that make up long-term memory M^L (what a snapshot contains)."""


class MemoryFrozen(InvariantViolation):
    """A write to a frozen memory bank (I_freeze, Remark 4.3)."""

    exit_code = 2  # a user condition, not an internal error: the next step is named

    def __init__(self, bank: str, operation: str, snapshot: str) -> None:
        thaw = "semv memory thaw" + ("" if bank == "default" else f" --bank {bank}")
        super().__init__(
            f"memory:{bank}",
            "I_freeze",
            f"{operation} rejected: memory bank {bank!r} is frozen at snapshot {snapshot[:16]}; "
            f"run `{thaw}` to accept writes again",
        )
        self.operation = operation


@dataclass(frozen=True)
class MemoryState:
    bank: str
    frozen: str | None
    learn_count: int
    next_id: int


def snapshot_hash(records: Iterable[Record]) -> str:
    """Deterministic hash of long-term records: canonical JSON, sorted by id."""
    body = [r.model_dump(mode="json") for r in sorted(records, key=lambda r: r.id)]
    return sha256_text(canonical_json(body))


class MemoryStore:
    """One memory bank (``bank``) inside a semv :class:`~semv.store.Store`."""

    def __init__(self, store: Store, bank: str = "default") -> None:
        self.store = store
        self.bank = bank
        self._engine = store.engine
        with self._tx() as conn:
            row = conn.execute(select(memory_state).where(memory_state.c.bank == bank)).first()
            if row is None:
                conn.execute(
                    insert(memory_state).values(bank=bank, frozen=None, learn_count=0, next_id=1)
                )

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        try:
            with self._engine.begin() as conn:
                yield conn
        except SQLAlchemyError as exc:
            raise StoreError(f"memory store operation failed: {exc}") from exc

    # ---- state and the freeze invariant ---------------------------------------------------

    def state(self) -> MemoryState:
        with self._tx() as conn:
            row = conn.execute(select(memory_state).where(memory_state.c.bank == self.bank)).one()
        return MemoryState(self.bank, row.frozen, int(row.learn_count), int(row.next_id))

    def guard(self, operation: str, subject: str | None = None) -> None:
        """I_freeze: raise (and trace the rejection) if the bank is frozen."""
        frozen = self.state().frozen
        if frozen is not None:
            self.trace(
                "rejected",
                subject,
                {"operation": operation, "invariant": "I_freeze", "snapshot": frozen},
            )
            raise MemoryFrozen(self.bank, operation, frozen)

    def register_case(self) -> int:
        """Count one processed learning case (case registration); returns the new count."""
        self.guard("case registration")
        with self._tx() as conn:
            conn.execute(
                update(memory_state)
                .where(memory_state.c.bank == self.bank)
                .values(learn_count=memory_state.c.learn_count + 1)
            )
        return self.state().learn_count

    def new_id(self, prefix: str) -> str:
        with self._tx() as conn:
            row = conn.execute(
                select(memory_state.c.next_id).where(memory_state.c.bank == self.bank)
            ).one()
            n = int(row[0])
            conn.execute(
                update(memory_state).where(memory_state.c.bank == self.bank).values(next_id=n + 1)
            )
        return f"{prefix}:{n:05d}"

    # ---- memory trace (append-only, hash-chained) -------------------------------------

    def trace(self, kind: str, subject: str | None, payload: dict[str, Any]) -> None:
        with self._tx() as conn:
            last = conn.execute(
                select(memory_trace.c.seq, memory_trace.c.hash)
                .where(memory_trace.c.bank == self.bank)
                .order_by(memory_trace.c.seq.desc())
                .limit(1)
            ).first()
            seq = 0 if last is None else int(last.seq) + 1
            prev = sha256_text(f"semv-memory-genesis:{self.bank}") if last is None else last.hash
            body = {
                "bank": self.bank,
                "seq": seq,
                "kind": kind,
                "subject": subject,
                "payload": payload,
                "at": utc_now(),
                "prev_hash": prev,
            }
            conn.execute(
                insert(memory_trace).values(
                    bank=self.bank,
                    seq=seq,
                    kind=kind,
                    subject=subject,
                    payload=canonical_json(payload),
                    at=body["at"],
                    prev_hash=prev,
                    hash=sha256_text(canonical_json(body)),
                )
            )

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        q = select(memory_trace).where(memory_trace.c.bank == self.bank)
        if kind is not None:
            q = q.where(memory_trace.c.kind == kind)
        with self._tx() as conn:
            rows = conn.execute(q.order_by(memory_trace.c.seq)).all()
        return [
            {"seq": r.seq, "kind": r.kind, "subject": r.subject, "payload": json.loads(r.payload)}
            for r in rows
        ]

    # ---- candidates (short-term staging) ------------------------------------------------

    def stage(self, candidate: Candidate, status: str, reason: str, learn_seq: int) -> None:
        self.guard("candidate staging", candidate.id)
        with self._tx() as conn:
            conn.execute(
                insert(memory_candidates).values(
                    bank=self.bank,
                    id=candidate.id,
                    status=status,
                    reason=reason,
                    key=candidate.key,
                    case_id=candidate.source_case,
                    fingerprint=candidate.source_fingerprint,
                    learn_seq=learn_seq,
                    body=canonical_json(candidate),
                )
            )
        self.trace(f"candidate.{status}", candidate.id, {"reason": reason, "key": candidate.key})

    def candidates(self, *statuses: str) -> list[tuple[Candidate, str, str, int]]:
        """(candidate, status, reason, learn_seq) in staging order."""
        q = select(memory_candidates).where(memory_candidates.c.bank == self.bank)
        if statuses:
            q = q.where(memory_candidates.c.status.in_(statuses))
        with self._tx() as conn:
            rows = conn.execute(
                q.order_by(memory_candidates.c.learn_seq, memory_candidates.c.id)
            ).all()
        return [
            (Candidate.model_validate_json(r.body), r.status, r.reason, int(r.learn_seq))
            for r in rows
        ]

    def seen_sources(self, key: str, polarity: int | None = None) -> tuple[set[str], set[str]]:
        """Cases and source fingerprints already staged for canonical key ``key`` (for
        Dup_src); with ``polarity``, only those observed in the same direction: a
        contradiction from a source is not a duplicate of its support, it is
        counter-evidence."""
        with self._tx() as conn:
            rows = conn.execute(
                select(
                    memory_candidates.c.case_id,
                    memory_candidates.c.fingerprint,
                    memory_candidates.c.body,
                ).where(
                    memory_candidates.c.bank == self.bank,
                    memory_candidates.c.key == key,
                    memory_candidates.c.status.notin_(("rejected",)),
                )
            ).all()
        if polarity is not None:
            rows = [r for r in rows if json.loads(r.body).get("polarity", 1) == polarity]
        return {r.case_id for r in rows}, {r.fingerprint for r in rows}

    def set_candidate(self, cid: str, status: str, reason: str) -> None:
        self.guard("candidate update", cid)
        with self._tx() as conn:
            conn.execute(
                update(memory_candidates)
                .where(memory_candidates.c.bank == self.bank, memory_candidates.c.id == cid)
                .values(status=status, reason=reason)
            )

    # ---- records ----------------------------------------------------------------------

    def records(self, *statuses: Status) -> list[Record]:
        q = select(memory_records.c.body).where(memory_records.c.bank == self.bank)
        if statuses:
            q = q.where(memory_records.c.status.in_([s.value for s in statuses]))
        with self._tx() as conn:
            rows = conn.execute(q.order_by(memory_records.c.id)).all()
        return [Record.model_validate_json(r[0]) for r in rows]

    def put(self, record: Record, *, operation: str = "long-term update") -> None:
        self.guard(operation, record.id)
        self._write(record)

    def _write(self, record: Record) -> None:
        with self._tx() as conn:
            self._write_in(conn, record)

    def _write_in(self, conn: Connection, record: Record) -> None:
        values = {
            "status": record.status.value,
            "type": record.type.value,
            "key": record.key,
            "body": canonical_json(record),
            "updated_at": utc_now(),
        }
        done = conn.execute(
            update(memory_records)
            .where(memory_records.c.bank == self.bank, memory_records.c.id == record.id)
            .values(**values)
        )
        if done.rowcount == 0:
            conn.execute(insert(memory_records).values(bank=self.bank, id=record.id, **values))

    def long_term_hash(self) -> str:
        return snapshot_hash(self.records(*LONG_TERM))

    # ---- usage events (outside the snapshot) --------------------------------------------

    def record_usage(self, run_id: str, record: str, kind: UsageKind) -> None:
        with self._tx() as conn:
            conn.execute(
                insert(memory_usage).values(
                    bank=self.bank,
                    snapshot=self.state().frozen,
                    run_id=run_id,
                    record=record,
                    kind=kind.value,
                    at=utc_now(),
                )
            )

    def usage_counts(self, run_ids: Iterable[str] | None = None) -> dict[str, int]:
        q = select(memory_usage.c.kind, func.count()).where(memory_usage.c.bank == self.bank)
        if run_ids is not None:
            q = q.where(memory_usage.c.run_id.in_(list(run_ids)))
        with self._tx() as conn:
            rows = conn.execute(q.group_by(memory_usage.c.kind)).all()
        return {str(k): int(n) for k, n in rows}

    def record_usage_counts(self) -> dict[str, dict[str, int]]:
        with self._tx() as conn:
            rows = conn.execute(
                select(memory_usage.c.record, memory_usage.c.kind, func.count())
                .where(memory_usage.c.bank == self.bank)
                .group_by(memory_usage.c.record, memory_usage.c.kind)
            ).all()
        out: dict[str, dict[str, int]] = {}
        for rec, kind, n in rows:
            out.setdefault(str(rec), {})[str(kind)] = int(n)
        return out

    # ---- snapshots ---------------------------------------------------------------------

    def freeze(self) -> str:
        """Freeze the bank at a snapshot of M^L; returns its hash (idempotent when frozen)."""
        st = self.state()
        if st.frozen is not None:
            return st.frozen
        records = self.records(*LONG_TERM)
        digest = snapshot_hash(records)
        body = canonical_json([r.model_dump(mode="json") for r in records])
        with self._tx() as conn:
            if (
                conn.execute(
                    select(memory_snapshots.c.hash).where(memory_snapshots.c.hash == digest)
                ).first()
                is None
            ):
                conn.execute(
                    insert(memory_snapshots).values(
                        hash=digest, bank=self.bank, created_at=utc_now(), body=body
                    )
                )
            conn.execute(
                update(memory_state).where(memory_state.c.bank == self.bank).values(frozen=digest)
            )
        self.trace("freeze", None, {"snapshot": digest, "records": len(records)})
        return digest

    def thaw(self) -> None:
        with self._tx() as conn:
            conn.execute(
                update(memory_state).where(memory_state.c.bank == self.bank).values(frozen=None)
            )
        self.trace("thaw", None, {})

    def snapshot_records(self, ref: str) -> tuple[str, list[Record]]:
        """A stored snapshot by hash or unique prefix."""
        with self._tx() as conn:
            rows = conn.execute(
                select(memory_snapshots)
                .where(memory_snapshots.c.hash.startswith(ref, autoescape=True))
                .limit(2)
            ).all()
        if len(rows) != 1:
            what = "no snapshot" if not rows else "several snapshots"
            raise InputError(f"memory snapshot '{ref}': {what} match in {self.store.display_url}")
        records = [Record.model_validate(r) for r in json.loads(rows[0].body)]
        return str(rows[0].hash), records

    # ---- export / import ---------------------------------------------------------------

    def export(self, path: Path, config: MemoryConfig | None = None) -> int:
        """Write the bank's records with a sha256 per record (and an HMAC signature when
        ``memory.export_key_env`` names a key), so that an import can tell edits."""
        from semv.memory._import import export_fields, export_key

        records = [r.model_dump(mode="json") for r in self.records()]
        doc = {
            "format": "semv-memory/1",
            "bank": self.bank,
            "long_term_hash": self.long_term_hash(),
            "records": records,
            **export_fields(records, export_key(config or MemoryConfig())),
        }
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False), "utf-8")
        tmp.replace(path)
        return len(records)

    def import_(self, path: Path, config: MemoryConfig | None = None) -> int:
        """``import_checked``; the number of records imported."""
        return self.import_checked(path, config).imported

    def import_checked(self, path: Path, config: MemoryConfig | None = None) -> ImportReport:
        """Replace the bank's records with an export's, all of which must pass the import
        checks (``semv.memory._import``: hashes/signature, Safe(κ), Eq. 29 and Table 2
        bounds): one refused record refuses the file (``InputError`` naming each), nothing is
        written. Records of an older export without hashes arrive under review. Rejected
        while frozen."""
        from semv.memory._import import check_records

        try:
            doc = loads_json(read_text_bounded(path), str(path))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{path}: cannot read memory export: {exc}") from exc
        if not isinstance(doc, dict) or doc.get("format") != "semv-memory/1":
            raise InputError(f"{path}: not a semv memory export (format semv-memory/1)")
        try:
            report = check_records(doc, config or MemoryConfig(), str(path))
        except ValueError as exc:
            raise InputError(str(exc)) from exc
        if report.rejected:
            listed = "; ".join(f"{rid}: {why}" for rid, why in report.rejected)
            self.trace("import-refused", None, {"file": path.name, **report.as_json()})
            raise InputError(
                f"{path}: {len(report.rejected)} record(s) refused, nothing imported: {listed}"
            )
        self.guard("import")
        with self._tx() as conn:  # one transaction: all records or none
            conn.execute(delete(memory_records).where(memory_records.c.bank == self.bank))
            for rec in report.accepted:
                self._write_in(conn, rec)
        self.trace("import", None, {"file": path.name, **report.as_json()})
        return report
