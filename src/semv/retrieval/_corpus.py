"""The local corpus: documents in SQLite FTS5 inside the semv store, searched with BM25.

Tables (created on first use, next to the store's own): ``corpus_docs`` (one row per document:
URL, title, publisher, publication date, source type, group, text), the external-content FTS5
index ``corpus_fts`` over title and text (Porter stemming, diacritics folded), and
``corpus_meta`` holding a running digest of the corpus content. The digest changes with every
ingest that adds a document; it enters the retrieve stage's fingerprint, so a node computed
against an older corpus is never reused.

FTS5 exists only in SQLite. A store opened by URL on another database (PostgreSQL) keeps
working for runs, nodes and the replay cache, but ``LocalCorpus`` refuses it with a
``ConfigError`` saying so: point ``--corpus-db`` at a SQLite data directory instead.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.exc import OperationalError

from semv.errors import ConfigError, StoreError
from semv.nlp.dates import published_after
from semv.nlp.text import STOPWORDS, tokens
from semv.retrieval._documents import Document

__all__ = ["CorpusHit", "IngestStats", "LocalCorpus", "fts_query"]

_BATCH = 2000
_MAX_TERMS = 64

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS corpus_docs (
        rowid INTEGER PRIMARY KEY,
        doc_id TEXT NOT NULL UNIQUE,
        url TEXT, title TEXT, publisher TEXT, published TEXT,
        source_type TEXT NOT NULL, grp TEXT, origin TEXT, text TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS ix_corpus_grp ON corpus_docs (grp)",
    """CREATE VIRTUAL TABLE IF NOT EXISTS corpus_fts USING fts5(
        title, text, content='corpus_docs', content_rowid='rowid',
        tokenize='porter unicode61 remove_diacritics 2')""",
    "CREATE TABLE IF NOT EXISTS corpus_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


@dataclass(frozen=True)
class CorpusHit:
    doc_id: str
    rank: int
    bm25: float
    url: str | None
    title: str | None
    publisher: str | None
    published: str | None
    source_type: str
    group: str | None
    text: str


@dataclass(frozen=True)
class IngestStats:
    read: int
    added: int
    duplicates: int
    seconds: float
    digest: str


def fts_query(query: str) -> str | None:
    """An FTS5 MATCH expression for free text: its content tokens, quoted, OR-ed.

    Quoting makes every token a literal string, so FTS5 operators in the text (NEAR, ``*``,
    ``:``, parentheses) are never interpreted. None when nothing searchable remains.
    """
    terms = [t for t in tokens(query) if t not in STOPWORDS and len(t) > 1]
    terms = list(dict.fromkeys(terms))[:_MAX_TERMS]
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def _pragmas(conn: object, _record: object) -> None:
    cur = conn.cursor()  # type: ignore[attr-defined]
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


class LocalCorpus:
    """BM25 search over documents ingested into the store's SQLite database."""

    def __init__(self, url: str) -> None:
        if not url.startswith("sqlite"):
            dialect = url.split(":", 1)[0]
            raise ConfigError(
                f"{url.split('@')[-1]}: the local corpus needs SQLite FTS5, but this store is "
                f"{dialect}; runs still work, but index the corpus into a SQLite data directory "
                "(--corpus-db DIR) instead"
            )
        self.url = url
        self._engine: Engine = create_engine(url, connect_args={"timeout": 30.0})
        event.listen(self._engine, "connect", _pragmas)
        try:
            with self._engine.begin() as conn:
                for stmt in _SCHEMA:
                    conn.execute(text(stmt))
        except OperationalError as exc:
            raise StoreError(f"{url}: cannot create the corpus tables: {exc}") from exc

    def close(self) -> None:
        self._engine.dispose()

    # --- ingest -------------------------------------------------------------------------

    def ingest(
        self, documents: Iterable[Document], *, progress: Callable[[int], None] | None = None
    ) -> IngestStats:
        """Add documents (already present ids are skipped); commit per batch of 2,000."""
        started = time.perf_counter()
        read = added = 0
        batch: list[Document] = []
        for doc in documents:
            batch.append(doc)
            read += 1
            if len(batch) >= _BATCH:
                added += self._add(batch)
                if progress is not None:
                    progress(len(batch))
                batch = []
        if batch:
            added += self._add(batch)
            if progress is not None:
                progress(len(batch))
        return IngestStats(read, added, read - added, time.perf_counter() - started, self.digest())

    def _add(self, docs: list[Document]) -> int:
        rows = {d.doc_id: d for d in docs}
        with self._engine.begin() as conn:
            ids = list(rows)
            existing: set[str] = set()
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                marks = ",".join(f":p{j}" for j in range(len(chunk)))
                found = conn.execute(
                    text(f"SELECT doc_id FROM corpus_docs WHERE doc_id IN ({marks})"),
                    {f"p{j}": v for j, v in enumerate(chunk)},
                )
                existing.update(r[0] for r in found)
            new = [d for i, d in rows.items() if i not in existing]
            if not new:
                return 0
            last = conn.execute(text("SELECT coalesce(max(rowid), 0) FROM corpus_docs")).scalar()
            conn.execute(
                text(
                    "INSERT INTO corpus_docs (doc_id, url, title, publisher, published, "
                    "source_type, grp, origin, text) VALUES (:doc_id, :url, :title, :publisher, "
                    ":published, :source_type, :grp, :origin, :text)"
                ),
                [
                    {
                        "doc_id": d.doc_id,
                        "url": d.url,
                        "title": d.title,
                        "publisher": d.publisher,
                        "published": d.published,
                        "source_type": d.source_type,
                        "grp": d.group,
                        "origin": d.origin,
                        "text": d.text,
                    }
                    for d in new
                ],
            )
            conn.execute(
                text(
                    "INSERT INTO corpus_fts (rowid, title, text) "
                    "SELECT rowid, coalesce(title, ''), text FROM corpus_docs WHERE rowid > :last"
                ),
                {"last": last},
            )
            digest = hashlib.sha256(self._digest(conn).encode())
            for doc_id in sorted(d.doc_id for d in new):
                digest.update(doc_id.encode())
            conn.execute(
                text(
                    "INSERT INTO corpus_meta (key, value) VALUES ('digest', :v) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value"
                ),
                {"v": digest.hexdigest()},
            )
        return len(new)

    @staticmethod
    def _digest(conn: object) -> str:
        row = conn.execute(  # type: ignore[attr-defined]
            text("SELECT value FROM corpus_meta WHERE key = 'digest'")
        ).first()
        return str(row[0]) if row else "empty"

    def digest(self) -> str:
        """The content digest: changes whenever a document is added."""
        with self._engine.connect() as conn:
            return self._digest(conn)

    def count(self) -> int:
        with self._engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM corpus_docs")).scalar() or 0)

    # --- search -------------------------------------------------------------------------

    def search(self, query: str, *, k: int, before: str | None = None) -> list[CorpusHit]:
        """The top ``k`` documents by BM25 that were published by ``before``, preceded by any
        later-published document that outranked them (the caller's leakage guard excludes and
        counts those). Ties are broken by row order, so results are deterministic."""
        expr = fts_query(query)
        if expr is None:
            return []
        limit = k if before is None else k * 4
        with self._engine.connect() as conn:
            rows = conn.execute(
                text(
                    # rank inside the index first, then fetch only the top rows' columns
                    "SELECT d.doc_id, m.score, d.url, d.title, d.publisher, d.published, "
                    "d.source_type, d.grp, d.text FROM (SELECT rowid, bm25(corpus_fts) AS score "
                    "FROM corpus_fts WHERE corpus_fts MATCH :q ORDER BY score, rowid LIMIT :k) m "
                    "JOIN corpus_docs d ON d.rowid = m.rowid ORDER BY m.score, m.rowid"
                ),
                {"q": expr, "k": limit},
            ).all()
        hits: list[CorpusHit] = []
        eligible = 0
        for n, r in enumerate(rows):
            if eligible >= k:
                break
            hit = CorpusHit(r[0], n, float(r[1]), r[2], r[3], r[4], r[5], r[6], r[7], r[8])
            hits.append(hit)
            if before is None or not published_after(hit.published, before):
                eligible += 1
        return hits
