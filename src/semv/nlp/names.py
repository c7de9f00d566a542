"""Proper names in a language without a spaCy pipeline, from capitalisation and the language's
closed-class words (``semv.nlp.lexicon``).

The documented fallback of ``semv.nlp.entities`` for languages no real spaCy pipeline ships
for on PyPI (Spanish, German, Portuguese, Italian, Dutch), and a second opinion beside the
French pipeline:

1. A *name* is a run of capitalised words, joined by the lowercase connectors of the language
   ("Puerta del Sol", "São Paulo", "Rio de Janeiro"); commas, other punctuation and other
   lowercase words end it. Dates found by ``semv.nlp.dates`` are never part of a name.
2. Leading articles, function words and titles are stripped ("Las inundaciones": *Las* is an
   article; "M. Macron": *M.* is a title, and a title makes the rest a person).
3. A name right after a landmark head is a *landmark* ("promenade des Anglais", "tour
   Eiffel"): never a person, never a city of the gazetteer.
4. A name the gazetteer knows is a *place* (whole, as written: "Nueva York", "España",
   "Rio de Janeiro", "Porto"); one word right after an article is a noun phrase ("die Kais")
   and a place only as a country, a state or a city of ``NOUN_PLACE_MIN_POPULATION`` by its
   own name. Otherwise a name that starts or ends with a landmark head is a landmark ("Torre
   de Belém", "Ponte Vecchio"); a landmark head alone ("Ufer", "Île") is no name.
5. A name of two or more capitalised words, not all of them places, none a landmark head,
   and not right after an article ("in der Nähe des Hafens"), is a *person*; so is any name
   after a title. In German every noun is capitalised, so a German name also needs no noun
   suffix (-ung, -heit, -keit, -schaft...) to be a person.
6. Anything else is a *name* of unknown kind (kept as a keyword, never a person).

The first word of a sentence (or of a line) is capitalised by the sentence: alone, it is a
name only when it is a place or written in capitals ("OBERWIESENBACH" on a sign). Names of
unknown kind are kept apart by ``semv.nlp.entities`` (``TextFacts.names``: matched by name,
never a place, a person or a subclaim's fact).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from semv.nlp import places as _places
from semv.nlp.lexicon import LanguageWords, landmark_head, words_of
from semv.nlp.places import PlaceKind
from semv.nlp.text import fold

__all__ = ["NameKind", "NameSpan", "find_names"]

_WORD: Final = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*|\d+|[^\w\s'’]", re.UNICODE)
"""Words (apostrophes split elisions: "l'île" is "l" and "île"), numbers, punctuation."""
NOUN_PLACE_MIN_POPULATION: Final = 100_000
"""A word after an article names a city only when the city is this large ("die Kais" is
quays, not Kaïs in Algeria)."""
_SENTENCE_END: Final = frozenset('.!?:;«»"“”„()[]…')
_GERMAN_NOUN_SUFFIXES: Final = (
    "ung",
    "heit",
    "keit",
    "schaft",
    "tion",
    "tät",
    "ismus",
    "chen",
    "lein",
    "wasser",
    "flut",
)
"""German noun endings (derivational suffixes, and the flood words of news captions)."""


class NameKind(StrEnum):
    PLACE = "place"
    PERSON = "person"
    LANDMARK = "landmark"
    NAME = "name"


@dataclass(frozen=True)
class NameSpan:
    """A proper name in a text, its character span and kind."""

    text: str
    start: int
    end: int
    kind: NameKind


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def _strip_leading(
    words: list[tuple[str, int, int]], lexicon: LanguageWords
) -> tuple[list[tuple[str, int, int]], bool]:
    """Drop leading articles, function words and titles (a place's own first word stays:
    "São Paulo", "San Sebastián"); True when a title was dropped."""
    titled = False
    while words:
        if _places.candidates(" ".join(w for w, _, _ in words)):
            break
        key = fold(words[0][0]).rstrip(".")
        if key in lexicon.titles:
            titled = True
        elif key not in lexicon.function_words:
            break
        words = words[1:]
    while words and fold(words[-1][0]) in lexicon.connectors:
        words = words[:-1]
    return words, titled


def _place_tail(
    words: list[tuple[str, int, int]], lexicon: LanguageWords
) -> tuple[list[tuple[str, int, int]], list[tuple[str, int, int]]]:
    """Split "Puerta del Sol de Madrid" into the landmark and the place after its last
    connector, when that tail is a country, a state or a city of
    ``NOUN_PLACE_MIN_POPULATION`` ("Marine Le Pen" keeps "Pen"); else
    (words, [])."""
    for k in range(len(words) - 1, 0, -1):
        if fold(words[k - 1][0]) in lexicon.connectors and _capitalised(words[k][0]):
            tail = words[k:]
            found = _places.candidates(" ".join(w for w, _, _ in tail))
            if found and (
                found[0].kind is not PlaceKind.CITY
                or found[0].population >= NOUN_PLACE_MIN_POPULATION
            ):
                head = words[: k - 1]
                while head and fold(head[-1][0]) in lexicon.connectors:
                    head = head[:-1]
                return head, tail
    return words, []


def _landmark_before(tokens: list[tuple[str, int, int]], index: int) -> int | None:
    """The index of a landmark head within three words before ``index`` ("promenade des",
    "tour"), None when there is none."""
    for back in (1, 2, 3):
        j = index - back
        if j < 0:
            return None
        word = tokens[j][0]
        if landmark_head(word):
            return j
        if _capitalised(word) or not word[:1].isalpha():
            return None
    return None


def _kind(
    words: list[tuple[str, int, int]],
    titled: bool,
    landmark: bool,
    language: str,
    after_article: bool = False,
) -> NameKind:
    text = " ".join(w for w, _, _ in words)
    if landmark:
        return NameKind.LANDMARK  # "promenade des Anglais", "tour Eiffel"
    # one word after an article is a noun ("die Kais"): a place only as a country, a state
    # or a large city by its own name
    if after_article and len(words) == 1:
        if any(
            p.kind is not PlaceKind.CITY or p.population >= NOUN_PLACE_MIN_POPULATION
            for p in _places.candidates(text, alternates=False)
        ):
            return NameKind.PLACE
    elif _places.candidates(text, alternates=len(words) > 1 or not landmark_head(text)):
        return NameKind.PLACE  # "Rio de Janeiro", "Porto", "Nueva York"
    if len(words) == 1 and landmark_head(text):
        return NameKind.NAME  # a common noun ("Ufer", "Île"), not a landmark's name
    if landmark_head(words[0][0]) or landmark_head(words[-1][0]):
        return NameKind.LANDMARK  # "Torre de Belém", "Ponte Vecchio"
    if titled:
        return NameKind.PERSON
    capitals = [w for w, _, _ in words if _capitalised(w)]
    if len(capitals) < 2:
        return NameKind.NAME
    if any(landmark_head(w) for w in capitals) or all(
        _places.candidates(w, alternates=False) for w in capitals
    ):
        return NameKind.NAME
    if language == "de" and any(fold(w).endswith(_GERMAN_NOUN_SUFFIXES) for w in capitals):
        return NameKind.NAME
    return NameKind.PERSON


def find_names(
    text: str, language: str, blocked: tuple[tuple[int, int], ...] = ()
) -> list[NameSpan]:
    """The proper names of ``text`` in ``language`` (a language of ``semv.nlp.lexicon``;
    none for another), outside the ``blocked`` character spans (dates)."""
    lexicon = words_of(language)
    if lexicon is None:
        return []
    tokens = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text)]
    out: list[NameSpan] = []
    i = 0
    sentence_start = True
    while i < len(tokens):
        word, start, _ = tokens[i]
        if i > 0 and "\n" in text[tokens[i - 1][2] : start]:
            sentence_start = True  # a line of its own (OCR, subtitles)
        if any(s <= start < e for s, e in blocked) or not _capitalised(word):
            sentence_start = word in _SENTENCE_END or (sentence_start and not word[:1].isalnum())
            i += 1
            continue
        run = [tokens[i]]
        j = i + 1
        while j < len(tokens):
            w, s, _ = tokens[j]
            if any(b <= s < e for b, e in blocked) or "\n" in text[tokens[j - 1][2] : s]:
                break
            if _capitalised(w) and w[:1].isalpha():
                run.append(tokens[j])
                j += 1
                continue
            # connectors join two capitalised words ("Puerta del Sol", "Rio de Janeiro")
            k = j
            while k < len(tokens) and fold(tokens[k][0]) in lexicon.connectors:
                k += 1
            if k > j and k < len(tokens) and _capitalised(tokens[k][0]):
                run.extend(tokens[j:k])
                j = k
                continue
            break
        at_start = sentence_start
        sentence_start = False
        head = _landmark_before(tokens, i)
        words, titled = _strip_leading(run, lexicon)
        first = i
        i = j
        if not words:
            continue
        after_article = first > 0 and fold(tokens[first - 1][0]) in lexicon.articles
        tail: list[tuple[str, int, int]] = []
        if not _places.candidates(" ".join(w for w, _, _ in words)):
            words, tail = _place_tail(words, lexicon)  # "Puerta del Sol de Madrid"
        kind = (
            _kind(words, titled, head is not None, language, after_article)
            if words
            else NameKind.NAME
        )
        if kind is NameKind.PERSON and after_article:
            kind = NameKind.NAME  # "der Nähe des Hafens": a noun phrase, not a person
        if len(words) == 1 and kind is NameKind.NAME and landmark_head(words[0][0]):
            words = []  # a common noun ("Ufer", "Île"), not a name
        if head is not None and kind is NameKind.LANDMARK:
            words = [tokens[head], *words]  # "promenade des Anglais", whole
        if words:
            sentence_cased = not (words[0][0].isupper() and len(words[0][0]) >= 3)
            alone = at_start and words[0] == run[0] and len(words) == 1
            if alone and kind is NameKind.NAME and sentence_cased:
                words = []  # a sentence's capitalised first word, nothing more
        for part, part_kind in ((words, kind), (tail, NameKind.PLACE)):
            if part:
                out.append(_span(text, part, part_kind))
    return out


def _span(text: str, words: list[tuple[str, int, int]], kind: NameKind) -> NameSpan:
    return NameSpan(text[words[0][1] : words[-1][2]], words[0][1], words[-1][2], kind)
