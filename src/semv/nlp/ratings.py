"""Fact-check ratings in every covered language: does a text rate a claim false or true?

The vocabulary is ``data/ratings.json`` (with its provenance: public fact-checkers' rating
scales in English, French, Spanish, German, Portuguese, Italian and Dutch; never evaluation
rows). A text is read in its own language (``semv.nlp.language``) and in English, the
language of most rating labels on the web ("FAKE", "FALSE"). What the text quotes is not its
rating: quotations are blanked first (``semv.nlp.quotes.QUOTATION``), so a claim quoted as
“this is not fake” is no rating of it.

Used by the stance reading (``semv.nlp.stance``): a text that quotes the claim and rates it
false refutes it, in every covered language.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources

from semv.nlp.quotes import QUOTATION

__all__ = ["RATINGS_FILE", "Rating", "Verdict", "rating_in", "rating_languages"]

RATINGS_FILE = "ratings.json"


class Verdict(StrEnum):
    REFUTES = "refutes"
    SUPPORTS = "supports"


@dataclass(frozen=True)
class Rating:
    """A rating found in a text: its verdict, the words as written, and their language."""

    verdict: Verdict
    phrase: str
    language: str


@cache
def _patterns() -> dict[str, dict[Verdict, re.Pattern[str]]]:
    ref = resources.files("semv.nlp").joinpath("data", RATINGS_FILE)
    name = f"semv/nlp/data/{RATINGS_FILE}"
    try:
        data = json.loads(ref.read_text("utf-8"))
        if not str(data.get("provenance", "")).strip():
            raise ValueError("no provenance")
        table: dict[str, dict[Verdict, re.Pattern[str]]] = {}
        for language, lists in data["languages"].items():
            table[language] = {
                verdict: re.compile(
                    r"(?<![\w'’])(?:" + "|".join(lists[verdict.value]) + r")(?![\w'’])", re.I
                )
                for verdict in Verdict
            }
    except (OSError, KeyError, TypeError, ValueError, re.error) as exc:
        raise ValueError(f"{name}: cannot read the rating vocabulary ({exc})") from None
    return table


def rating_languages() -> tuple[str, ...]:
    """The languages whose ratings are known."""
    return tuple(_patterns())


def _unquoted(text: str) -> str:
    return QUOTATION.sub(lambda m: " " * len(m.group(0)), text)


def rating_in(text: str, language: str | None) -> Rating | None:
    """The first rating of ``text`` outside its quotations, read in ``language`` and in
    English; a refuting rating wins over a supporting one ("not true" holds "true")."""
    plain = _unquoted(text)
    table = _patterns()
    languages = list(dict.fromkeys([language or "en", "en"]))
    for verdict in (Verdict.REFUTES, Verdict.SUPPORTS):
        best: tuple[int, str, str] | None = None
        for code in languages:
            patterns = table.get(code)
            if patterns is None:
                continue
            match = patterns[verdict].search(plain)
            if match and (best is None or match.start() < best[0]):
                best = (match.start(), match.group(0), code)
        if best is not None:
            return Rating(verdict, best[1], best[2])
    return None
