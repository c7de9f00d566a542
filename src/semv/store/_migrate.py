"""Bring a store's schema to the newest Alembic revision when it is opened.

Every schema change is a migration under ``semv/store/migrations/versions`` (SQLite and
PostgreSQL alike); nobody edits a database by hand. A store already at the newest revision
costs one ``SELECT`` on open. Otherwise the upgrade runs under a lock, so two processes opening
one store at the same moment migrate it once:

- PostgreSQL: a transaction-scoped advisory lock; the whole upgrade is one transaction
  (PostgreSQL's DDL is transactional), so a failed migration leaves the schema as it was.
- SQLite: an exclusive ``flock`` on ``<database>.migrate-lock`` next to the database file.

A data directory made before migrations existed (tables, no ``alembic_version``) is adopted by
the baseline revision, which creates only the tables that are missing. An empty SQLite
database gets the head's schema from ``semv.store._fresh`` (the statements Alembic's migrations
produce, replayed) without importing Alembic.
"""

from __future__ import annotations

import fcntl
import functools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from semv.store import _fresh

if TYPE_CHECKING:
    from alembic.config import Config

__all__ = ["alembic_head", "current_revision", "head_revision", "upgrade"]

_PG_LOCK_KEY = 0x73656D76
_REVISION = re.compile(r'^revision(?::[^=]*)?\s*=\s*"([^"]+)"', re.MULTILINE)
_DOWN_REVISION = re.compile(
    r'^down_revision(?::[^=]*)?\s*=\s*(None|"([^"]+)")', re.MULTILINE
)  # "semv": the advisory lock every semv process migrates under


def _script_location() -> str:
    return str(resources.files("semv.store") / "migrations")


def _config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", _script_location())
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@functools.cache
def head_revision() -> str:
    """The newest revision id of the migrations shipped with this semv: read from the
    migration files' ``revision`` / ``down_revision`` lines, the one revision no other names
    as its predecessor (importing Alembic to ask it cost ~0.1 s of every process that opens
    a store). Alembic answers when the files do not give one head (``alembic_head``)."""
    revisions: dict[str, str | None] = {}
    for file in (resources.files("semv.store") / "migrations" / "versions").iterdir():
        if not file.name.endswith(".py") or file.name.startswith("__"):
            continue
        text_ = file.read_text(encoding="utf-8")
        rev = _REVISION.search(text_)
        down = _DOWN_REVISION.search(text_)
        if rev is None or down is None:
            return alembic_head()
        revisions[rev.group(1)] = down.group(2)
    heads = set(revisions) - {d for d in revisions.values() if d is not None}
    return heads.pop() if len(heads) == 1 else alembic_head()


def alembic_head() -> str:
    """The newest revision id as Alembic's script directory reports it."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_config()).get_current_head()
    if head is None:
        raise RuntimeError("semv ships no store migrations")
    return head


def current_revision(connection: Connection) -> str | None:
    """The revision a database is at; None for a fresh or pre-migration database."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    row = connection.execute(text("SELECT version_num FROM alembic_version")).first()
    return None if row is None else str(row[0])


def upgrade(engine: Engine) -> None:
    """Upgrade the database behind ``engine`` to ``head_revision()`` (no-op when there)."""
    with engine.connect() as conn:
        if current_revision(conn) == head_revision():
            return
    with _migration_lock(engine) as conn:
        if current_revision(conn) == head_revision():
            return  # another process migrated while this one waited for the lock
        if _fresh.create(conn, head_revision()):
            return  # an empty SQLite database: the head's schema without importing Alembic
        from alembic import command

        command.upgrade(_config(conn), "head")


@contextmanager
def _migration_lock(engine: Engine) -> Iterator[Connection]:
    if engine.dialect.name == "postgresql":
        with engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})
            yield conn
        return
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        with engine.begin() as conn:
            yield conn
        return
    lock_path = Path(database).with_name(Path(database).name + ".migrate-lock")
    with lock_path.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            with engine.begin() as conn:
                yield conn
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
