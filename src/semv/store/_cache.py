"""The store's content-addressed blobs and the fingerprint cache (fingerprint → output hash)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from semv.errors import StoreError
from semv.store import _schema as t
from semv.store._engine import StoreConnection, pg_insert
from semv.store._records import utc_now

__all__ = ["NodeCache"]

_CACHED_BLOB = (
    "SELECT n.output_hash, b.content FROM node_cache n JOIN blobs b ON b.hash = n.output_hash "
    "WHERE n.fingerprint = ?"
)
_PREFETCH = (
    "SELECT n.fingerprint, n.output_hash, b.content FROM node_cache n "
    "JOIN blobs b ON b.hash = n.output_hash WHERE n.fingerprint IN ("
    "SELECT fingerprint FROM nodes WHERE run_id = ("
    "SELECT p.run_id FROM runs p JOIN runs r ON r.run_id = ? "
    "WHERE p.case_id = r.case_id AND p.adapter = r.adapter AND p.run_id != r.run_id "
    "ORDER BY p.created_at DESC LIMIT 1))"
)
_REMEMBER_BLOB = "INSERT OR IGNORE INTO blobs (hash, content) VALUES (?, ?)"
_REMEMBER_FINGERPRINT = (
    "INSERT OR IGNORE INTO node_cache (fingerprint, stage, output_hash, created_at) "
    "VALUES (?, ?, ?, ?)"
)


class NodeCache(StoreConnection):
    """Blobs and the fingerprint cache: a node whose fingerprint is known reuses its output."""

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
