"""The store's connection: the database engine (SQLite in WAL mode or a server database), the
schema brought up to date on open, and transactions (SQLAlchemy Core, or a raw ``sqlite3``
cursor on the hot paths). ``StoreConnection`` holds the state the other parts of ``Store``
share."""

from __future__ import annotations

import socket
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, Table, create_engine, event, insert, select
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError

from semv.errors import StoreError, StoreUnavailable
from semv.store._headlog import head_log_for
from semv.store._migrate import upgrade as upgrade_schema
from semv.store._url import display_url, mask_in

__all__ = ["StoreConnection", "normalize_url", "open_engine", "pg_insert"]

_SQLITE_BUSY_SECONDS = 30.0
"""How long a writer waits for another process's transaction before giving up."""
_SCHEMA_ATTEMPTS = 5


class StoreConnection:
    """The engine, the schema and transactions; the state every part of the store shares."""

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


def pg_insert(table: Table) -> Any:
    """PostgreSQL's ``INSERT`` (``ON CONFLICT DO NOTHING``); its dialect is imported only by a
    store on PostgreSQL (~30 ms of every SQLite process's start otherwise)."""
    from sqlalchemy.dialects.postgresql import insert

    return insert(table)


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
