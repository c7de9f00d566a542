"""A persistent cache of text embeddings, shared by every process of one machine.

One SQLite file per embedding model under ``cache_dir()`` (``$SEMV_CACHE_DIR``, else the user
cache directory), named by the model id: ``embeddings-<model id>.sqlite3``. A row's key is the
SHA-256 of the side (``passage`` or ``query``, e5's two prefixes) and the UTF-8 text; its value
is the engine's float32 vector, stored byte for byte, so a cached vector equals a recomputed one
exactly and no result depends on whether the cache was warm.

The cache is a memo of a pure function of (model id, side, text): it holds nothing a run's
fingerprint does not already determine, so it never enters a fingerprint. Concurrent processes
share the file safely: WAL journal, a busy timeout, ``INSERT OR IGNORE`` (the first writer of a
key wins; every writer of a key writes the same bytes). A cache that cannot be opened or written
(read-only home, corrupt file) is skipped with one warning; embeddings are then only computed.
A forked child never uses the connection its parent opened: it opens its own.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
import weakref
from pathlib import Path

import numpy as np
import numpy.typing as npt

from semv._environment import environment

__all__ = ["VectorCache"]

log = logging.getLogger(__name__)

_SCHEMA = "CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vec BLOB NOT NULL)"


def _key(side: str, text: str) -> bytes:
    return hashlib.sha256(side.encode() + b"\0" + text.encode("utf-8")).digest()


_CACHES: weakref.WeakSet[VectorCache] = weakref.WeakSet()
_INHERITED: list[sqlite3.Connection] = []
"""Connections a forked child inherited: kept referenced, never used nor closed, because they
belong to the parent (closing one in the child would run SQLite's close on the parent's file
and WAL state)."""


def _after_fork_in_child() -> None:
    """A forked process (``semv eval --workers``: every worker forks from a forkserver that
    embedded a warm-up text, so the cache was open in it) opens its own connection. SQLite
    forbids carrying an open connection across ``fork()``: two workers writing through copies
    of one connection share its WAL lock bookkeeping without sharing the locks."""
    for cache in list(_CACHES):
        if cache._conn is not None:
            _INHERITED.append(cache._conn)
        cache._conn = None
        cache._lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


class VectorCache:
    """Float32 vectors keyed by (side, text) for one model id, in one SQLite file."""

    def __init__(self, path: Path, dim: int | None = None) -> None:
        self.path = path
        self.dim = dim
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._broken = not environment().embed_cache
        _CACHES.add(self)

    def _connect(self) -> sqlite3.Connection | None:
        if self._conn is None and not self._broken:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(
                    self.path, timeout=30, check_same_thread=False, isolation_level=None
                )
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(_SCHEMA)
                self._conn = conn
            except (OSError, sqlite3.Error) as exc:
                log.warning("embedding cache %s unusable, not caching: %s", self.path, exc)
                self._broken = True
        return self._conn

    def get(self, side: str, text: str) -> npt.NDArray[np.float32] | None:
        """The cached vector of ``text`` on ``side``, or None."""
        with self._lock:
            conn = self._connect()
            if conn is None:
                return None
            try:
                row = conn.execute(
                    "SELECT vec FROM vectors WHERE key = ?", (_key(side, text),)
                ).fetchone()
            except sqlite3.Error as exc:
                log.warning("embedding cache %s unreadable, not caching: %s", self.path, exc)
                self._broken, self._conn = True, None
                return None
        if row is None:
            return None
        vec = np.frombuffer(row[0], dtype=np.float32)
        if self.dim is not None and vec.shape != (self.dim,):
            return None  # a torn or foreign row: recompute
        return vec

    def put(self, side: str, text: str, vec: npt.NDArray[np.float32]) -> None:
        """Store ``vec`` (float32) for ``text`` on ``side``; the first writer of a key wins."""
        raw = np.ascontiguousarray(vec, dtype=np.float32).tobytes()
        with self._lock:
            conn = self._connect()
            if conn is None:
                return
            try:
                conn.execute(
                    "INSERT OR IGNORE INTO vectors (key, vec) VALUES (?, ?)",
                    (_key(side, text), raw),
                )
            except sqlite3.Error as exc:
                log.warning("embedding cache %s not writable, not caching: %s", self.path, exc)
                self._broken, self._conn = True, None
