"""The dated replay cache (SEMV §5: "all cross-condition comparisons replay the same dated
retrieval cache").

Every external request is stored with its retrieval timestamp under the key
H(source, query, parameters) — parameters are everything that shapes the answer (endpoint,
k, date cut-off, language) and never an API key. Entries are only ever added: asking again
live adds a newer entry. A replay reads the newest entry for the key (or the newest at or
before ``as_of``), so every configuration compared on one cache sees the same responses.

The table lives in the store's database (SQLAlchemy Core, so SQLite and PostgreSQL alike).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    func,
    insert,
    select,
)
from sqlalchemy.exc import SQLAlchemyError

from semv.errors import StoreError
from semv.store import canonical_json, sha256_text, utc_now

__all__ = ["CacheEntry", "ReplayCache", "cache_key"]

_meta = MetaData()
retrieval_cache = Table(
    "retrieval_cache",
    _meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("source", String(64), nullable=False),
    Column("key", String(64), nullable=False, index=True),
    Column("query", Text, nullable=False),
    Column("params", Text, nullable=False),
    Column("status", Integer, nullable=False),
    Column("final_url", Text),
    Column("body", Text, nullable=False),
    Column("body_hash", String(64), nullable=False),
    Column("retrieved_at", String(32), nullable=False),
)


def cache_key(source: str, query: str, params: dict[str, Any]) -> str:
    return sha256_text(canonical_json({"source": source, "query": query, "params": params}))


@dataclass(frozen=True)
class CacheEntry:
    source: str
    key: str
    query: str
    params: dict[str, Any]
    status: int
    final_url: str | None
    body: str
    retrieved_at: str


class ReplayCache:
    """Append-only store of (source, query, params) → dated responses."""

    def __init__(self, url: str) -> None:
        self.url = url
        sqlite = url.startswith("sqlite")
        self._engine: Engine = create_engine(url, connect_args={"timeout": 30.0} if sqlite else {})
        try:
            _meta.create_all(self._engine)
        except SQLAlchemyError as exc:
            raise StoreError(f"{url}: cannot create the replay cache: {exc}") from exc

    def close(self) -> None:
        self._engine.dispose()

    def put(
        self,
        source: str,
        query: str,
        params: dict[str, Any],
        *,
        status: int,
        final_url: str | None,
        body: str,
        retrieved_at: str | None = None,
    ) -> CacheEntry:
        key = cache_key(source, query, params)
        at = retrieved_at or utc_now()
        with self._engine.begin() as conn:
            conn.execute(
                insert(retrieval_cache).values(
                    source=source,
                    key=key,
                    query=query,
                    params=canonical_json(params),
                    status=status,
                    final_url=final_url,
                    body=body,
                    body_hash=hashlib.sha256(body.encode("utf-8")).hexdigest(),
                    retrieved_at=at,
                )
            )
        return CacheEntry(source, key, query, params, status, final_url, body, at)

    def get(
        self, source: str, query: str, params: dict[str, Any], *, as_of: str | None = None
    ) -> CacheEntry | None:
        """The newest entry for the key (at or before ``as_of`` when given)."""
        key = cache_key(source, query, params)
        stmt = select(retrieval_cache).where(retrieval_cache.c.key == key)
        if as_of is not None:
            stmt = stmt.where(retrieval_cache.c.retrieved_at <= as_of)
        stmt = stmt.order_by(retrieval_cache.c.retrieved_at.desc(), retrieval_cache.c.id.desc())
        with self._engine.connect() as conn:
            row = conn.execute(stmt.limit(1)).mappings().first()
        if row is None:
            return None
        return CacheEntry(
            row["source"],
            row["key"],
            row["query"],
            params,
            int(row["status"]),
            row["final_url"],
            row["body"],
            row["retrieved_at"],
        )

    def digest(self, sources: tuple[str, ...], *, as_of: str | None = None) -> str:
        """A hash of every entry of ``sources`` (up to ``as_of``): a replay from an unchanged
        cache is a pure function of the plan, so this may enter a fingerprint."""
        stmt = select(
            retrieval_cache.c.key, retrieval_cache.c.body_hash, retrieval_cache.c.retrieved_at
        ).where(retrieval_cache.c.source.in_(sources))
        if as_of is not None:
            stmt = stmt.where(retrieval_cache.c.retrieved_at <= as_of)
        digest = hashlib.sha256()
        with self._engine.connect() as conn:
            for row in conn.execute(stmt.order_by(retrieval_cache.c.id)):
                digest.update(f"{row[0]}:{row[1]}:{row[2]}\n".encode())
        return digest.hexdigest()

    def count(self) -> int:
        with self._engine.connect() as conn:
            return int(
                conn.execute(select(func.count()).select_from(retrieval_cache)).scalar() or 0
            )
