"""Closed-class words per language: articles, function words, name connectors, titles and
landmark heads (``data/language_words.json``, with its provenance).

What the name finder of languages without a spaCy pipeline (``semv.nlp.names``) and the guards
of every language (``semv.nlp.entities``, ``semv.nlp.places``) know of a language: an article or
a function word is never a place or a person ("Las inundaciones...": *Las* is an article); a
lowercase connector may sit inside a name ("Puerta del Sol", "São Paulo", "Ponte Vecchio"); a
title precedes a person's name ("M. Macron", "Frau Merkel"); a landmark head makes the name
that follows it a landmark, never a person ("promenade des Anglais", "Torre de Belém").
Words are stored folded (lowercase, no diacritics: ``semv.nlp.text.fold``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from semv.nlp.text import fold

__all__ = [
    "LEXICON_FILE",
    "LanguageWords",
    "function_word_anywhere",
    "is_article",
    "landmark_head",
    "languages",
    "words_of",
]

LEXICON_FILE = "language_words.json"


@dataclass(frozen=True)
class LanguageWords:
    """The closed-class words of one language, folded."""

    language: str
    articles: frozenset[str]
    function_words: frozenset[str]
    """Articles and every other function word of the language."""
    connectors: frozenset[str]
    titles: frozenset[str]
    landmark_heads: frozenset[str]


def _folded(items: object, name: str, field: str) -> frozenset[str]:
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise ValueError(f"{name}: {field} must be a list of words")
    return frozenset(fold(i) for i in items)


@cache
def _table() -> dict[str, LanguageWords]:
    ref = resources.files("semv.nlp").joinpath("data", LEXICON_FILE)
    name = f"semv/nlp/data/{LEXICON_FILE}"
    try:
        data = json.loads(ref.read_text("utf-8"))
        raw = data["languages"]
        if not str(data.get("provenance", "")).strip():
            raise ValueError("no provenance")
    except (OSError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{name}: cannot read the word lists ({exc})") from None
    table: dict[str, LanguageWords] = {}
    for code, words in raw.items():
        articles = _folded(words.get("articles"), name, f"{code}.articles")
        table[code] = LanguageWords(
            language=code,
            articles=articles,
            function_words=articles | _folded(words.get("function_words"), name, code),
            connectors=_folded(words.get("connectors"), name, f"{code}.connectors"),
            titles=_folded(words.get("titles"), name, f"{code}.titles"),
            landmark_heads=_folded(words.get("landmark_heads"), name, f"{code}.landmarks"),
        )
    return table


def languages() -> tuple[str, ...]:
    """The languages the word lists cover."""
    return tuple(_table())


def words_of(language: str | None) -> LanguageWords | None:
    """The words of ``language`` (ISO 639-1), None when the lists do not cover it."""
    return _table().get(language or "")


@cache
def _union(field: str) -> frozenset[str]:
    out: set[str] = set()
    for words in _table().values():
        out |= getattr(words, field)
    return frozenset(out)


def is_article(word: str) -> bool:
    """``word`` is an article in some covered language (articles are never places)."""
    return fold(word) in _union("articles")


def function_word_anywhere(word: str) -> bool:
    """``word`` is a function word in some covered language."""
    return fold(word) in _union("function_words")


def landmark_head(word: str) -> bool:
    """``word`` is the head noun of a landmark, street or natural feature in some covered
    language ("tour", "puente", "Brücke", "piazza", "Colosseum")."""
    return fold(word) in _union("landmark_heads")
