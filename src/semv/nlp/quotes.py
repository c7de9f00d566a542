"""Quotations of a claim: does a text quote what the claim says?

A fact-check or a report that quotes the claim ("the photo shared as “Paris under water, 14
March 2024”...") is about that claim, whatever else it says: the claim-relevance gate of
retrieved evidence admits it (``semv.retrieval``), and the when/where rules accept it as
referring to the case (``semv.dimensions``).
"""

from __future__ import annotations

import re

from semv.nlp.language import language_of
from semv.nlp.lexicon import words_of
from semv.nlp.text import STOPWORDS, tokens

__all__ = ["QUOTATION", "QUOTE_CLAIM_SHARE", "QUOTE_MIN_WORDS", "asserted", "quotes_claim"]

QUOTATION = re.compile(
    r"“[^“”]{1,400}[”“]|\"[^\"]{1,400}\"|«[^«»]{1,400}»|»[^«»]{1,400}«|„[^„“”]{1,400}[“”]"
    r"|‚[^‚‘’]{1,400}[‘’]|‘[^‘’]{3,400}’|「[^「」]{1,400}」|『[^『』]{1,400}』"
)
"""A quotation in the quotes of any language: “ ” (English, Spanish, Portuguese, Italian),
" ", « » (French, Spanish, Portuguese, Italian, Russian), » « (German alternative), „ “ and
‚ ‘ (German, Dutch, Polish), ‘ ’ (British single quotes), 「 」 and 『 』 (Japanese, Chinese)."""
QUOTE_MIN_WORDS = 3
QUOTE_CLAIM_SHARE = 0.6
"""A quotation of three or more content words, at least 60 % of them words of the claim, is a
quotation of the claim (declared, not fitted)."""


def asserted(text: str) -> str:
    """``text`` with quotations of three or more words blanked out (same length, so offsets
    hold): what a text reports someone said is not what it asserts. A fact-check that writes
    *the photo shared as "Paris under water, 14 March 2024" was taken in Lyon* asserts Lyon,
    not Paris: the names, dates, places, numbers and cues inside the quoted claim are reported
    speech. Short quotations ("heat dome") are names or terms and stay."""

    def blank(match: re.Match[str]) -> str:
        quoted = match.group(0)
        return " " * len(quoted) if len(quoted.split()) >= 3 else quoted

    return QUOTATION.sub(blank, text)


def _content(text: str, closed: frozenset[str] = frozenset()) -> set[str]:
    """Content words: neither stopwords nor ``closed`` (the claim language's function words)."""
    return {t for t in tokens(text) if t not in STOPWORDS and t not in closed and len(t) > 1}


def quotes_claim(claim_text: str, text: str) -> bool:
    """``text`` quotes the claim: a quotation most of whose content words are the claim's
    (function words of the claim's language do not count)."""
    lexicon = words_of(language_of(claim_text))
    closed = lexicon.function_words if lexicon is not None else frozenset()
    claim = _content(claim_text, closed)
    if not claim:
        return False
    for match in QUOTATION.finditer(text):
        words = _content(match.group(0), closed)
        if len(words) >= QUOTE_MIN_WORDS and len(words & claim) / len(words) >= QUOTE_CLAIM_SHARE:
            return True
    return False
