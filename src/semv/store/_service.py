"""The web service's state in the store: verification jobs and login sessions.

Jobs are rows, so a restarted ``semv serve`` still shows the finished ones and runs the
unfinished ones, and several servers on one PostgreSQL store share one queue. A server *claims*
a queued job with a conditional update (``status = 'queued'`` in the WHERE clause): of two
servers racing for one job exactly one update matches, on SQLite (one writer) and on PostgreSQL
(the loser's update re-reads the row after the winner's commit and no longer matches). A
running job carries its owner (``host:pid:token``) and a heartbeat; a job whose owner stopped
beating (a killed server) is queued again.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import SQLAlchemyError

from semv.errors import StoreError
from semv.store import _schema as t
from semv.store._hashing import sha256_text
from semv.store._store import Store, utc_now

__all__ = ["JobTable", "SessionTable"]

_FINISHED = ("committed", "failed")


class _Table:
    def __init__(self, store: Store) -> None:
        self.engine = store.engine

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        try:
            with self.engine.begin() as conn:
                yield conn
        except SQLAlchemyError as exc:
            raise StoreError(f"store operation failed: {exc}") from exc


class JobTable(_Table):
    """Rows of ``web_jobs`` as plain dicts (``spec`` decoded)."""

    def add(self, row: dict[str, Any]) -> None:
        values = {**row, "spec": json.dumps(row["spec"], sort_keys=True)}
        with self._tx() as conn:
            conn.execute(insert(t.web_jobs).values(**values))

    def update(self, job_id: str, **values: Any) -> None:
        with self._tx() as conn:
            conn.execute(update(t.web_jobs).where(t.web_jobs.c.job_id == job_id).values(**values))

    def get(self, job_id: str) -> dict[str, Any] | None:
        with self._tx() as conn:
            row = conn.execute(select(t.web_jobs).where(t.web_jobs.c.job_id == job_id)).first()
        return None if row is None else _decode(row._mapping)

    def recent(self, limit: int) -> list[dict[str, Any]]:
        """Unfinished jobs and the newest ``limit`` finished ones, newest first."""
        c = t.web_jobs.c
        with self._tx() as conn:
            open_rows = conn.execute(
                select(t.web_jobs).where(c.status.not_in(_FINISHED)).order_by(c.created_at.desc())
            ).all()
            done_rows = conn.execute(
                select(t.web_jobs)
                .where(c.status.in_(_FINISHED))
                .order_by(c.finished_at.desc())
                .limit(limit)
            ).all()
        rows = [_decode(r._mapping) for r in [*open_rows, *done_rows]]
        return sorted(rows, key=lambda r: (r["created_at"], r["job_id"]), reverse=True)

    def claim(self, owner: str) -> dict[str, Any] | None:
        """Take the oldest queued job for ``owner`` (running, heartbeat now), or None."""
        c = t.web_jobs.c
        for _ in range(20):
            with self._tx() as conn:
                row = conn.execute(
                    select(c.job_id)
                    .where(c.status == "queued")
                    .order_by(c.created_at, c.job_id)
                    .limit(1)
                ).first()
                if row is None:
                    return None
                taken = conn.execute(
                    update(t.web_jobs)
                    .where(c.job_id == row[0], c.status == "queued")
                    .values(status="running", owner=owner, heartbeat_at=time.time())
                ).rowcount
            if taken == 1:
                return self.get(str(row[0]))
        return None  # heavy contention: the next poll tries again

    def beat(self, owner: str, job_ids: list[str]) -> None:
        if not job_ids:
            return
        c = t.web_jobs.c
        with self._tx() as conn:
            conn.execute(
                update(t.web_jobs)
                .where(c.job_id.in_(job_ids), c.owner == owner, c.status == "running")
                .values(heartbeat_at=time.time())
            )

    def requeue(self, *, stale_after: float, owners: list[str] | None = None) -> int:
        """Queue again the running jobs whose heartbeat is older than ``stale_after`` seconds,
        and (``owners``) those of owners known to be gone; how many."""
        c = t.web_jobs.c
        gone = c.heartbeat_at < time.time() - stale_after
        if owners:
            gone = gone | c.owner.in_(owners)
        with self._tx() as conn:
            return int(
                conn.execute(
                    update(t.web_jobs)
                    .where(c.status == "running", gone)
                    .values(status="queued", owner=None, heartbeat_at=None, done=0, reused=0)
                ).rowcount
            )

    def running_owners(self) -> list[str]:
        c = t.web_jobs.c
        with self._tx() as conn:
            rows = conn.execute(select(c.owner).where(c.status == "running").distinct()).all()
        return [str(r[0]) for r in rows if r[0]]


def _decode(m: Any) -> dict[str, Any]:
    row = dict(m)
    row["spec"] = json.loads(row["spec"])
    return row


_SALT_BYTES = 16
_KDF = {"n": 2**14, "r": 8, "p": 1, "maxmem": 64 * 1024 * 1024, "dklen": 16}
"""scrypt's cost (RFC 7914's interactive parameters, ~16 MiB and tens of ms a derivation) and
a 128-bit output: salt and key fit the 64 characters of ``web_sessions.token_hash``."""


@functools.lru_cache(maxsize=1024)
def _derive(token: str, salt: bytes) -> bytes:
    """scrypt(token, salt): a few hundred derivations at most per process (one per session
    and configured token), so each costs its tens of milliseconds once."""
    return hashlib.scrypt(token.encode("utf-8"), salt=salt, **_KDF)


def token_digest(token: str, salt: bytes | None = None) -> str:
    """What ``web_sessions.token_hash`` holds for ``token``: a random salt and
    scrypt(token, salt), 32 hex characters each. A stolen database gives no token, and guessing
    one costs a scrypt per guess and per session."""
    salt = salt if salt is not None else secrets.token_bytes(_SALT_BYTES)
    return salt.hex() + _derive(token, salt).hex()


def _token_matches(stored: str, tokens: Iterable[str]) -> bool:
    try:
        salt, key = (
            bytes.fromhex(stored[: 2 * _SALT_BYTES]),
            bytes.fromhex(stored[2 * _SALT_BYTES :]),
        )
    except ValueError:
        return False
    if len(salt) != _SALT_BYTES or len(key) != _KDF["dklen"]:
        return False
    return any(hmac.compare_digest(_derive(token, salt), key) for token in tokens)


class SessionTable(_Table):
    """Login sessions: ``sha256(cookie)`` → reviewer name, creation time and a salted scrypt
    digest of the token that logged in (``token_digest``). Neither the cookie nor the token is
    stored, so reading the database does not let anyone log in; a session whose token is no
    longer configured, or older than its maximum age, is refused. A row from before salted
    digests (a plain sha256 of the token) matches no token: such a session has to log in
    again."""

    def add(self, session: str, reviewer: str | None, token: str) -> None:
        with self._tx() as conn:
            conn.execute(
                insert(t.web_sessions).values(
                    session_hash=sha256_text(session),
                    reviewer=reviewer,
                    token_hash=token_digest(token),
                    created_at=utc_now(),
                )
            )

    def lookup(
        self, session: str, tokens: Iterable[str], *, max_age_s: float | None = None
    ) -> tuple[bool, str | None]:
        """(valid, reviewer name) of a session cookie, given the tokens configured now and the
        longest a session lives (``max_age_s``; an expired session is deleted)."""
        c = t.web_sessions.c
        with self._tx() as conn:
            row = conn.execute(
                select(c.reviewer, c.token_hash, c.created_at).where(
                    c.session_hash == sha256_text(session)
                )
            ).first()
        if row is None:
            return False, None
        if max_age_s is not None:
            created = datetime.fromisoformat(str(row[2]))
            if (datetime.now(UTC) - created).total_seconds() > max_age_s:
                self.remove(session)
                return False, None
        if not _token_matches(str(row[1]), tokens):
            return False, None
        return True, row[0]

    def remove(self, session: str) -> None:
        with self._tx() as conn:
            conn.execute(
                delete(t.web_sessions).where(t.web_sessions.c.session_hash == sha256_text(session))
            )
