"""Numbers written in a text (counts, tolls, scores), told apart from years and days of the month.

``NUMBER`` matches a number as written, with thousands separators ("12,000", "12 000") or a
decimal part; ``YEAR_NUMBER`` recognises a bare year once separators are removed (a year is a
date, compared by the ``when`` rule, not a count); ``DAY_OF_MONTH`` matches a day written with
its month in English or French ("12 March", "March 12th", "3 mars"), which is a date as well.
"""

from __future__ import annotations

import re

__all__ = ["DAY_OF_MONTH", "NUMBER", "YEAR_NUMBER", "numbers"]

NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:[,.\u202f ]\d{3})+(?![\d])|(?<![\w.,])\d+(?:[.,]\d+)?")
"""A number as written: grouped thousands, or digits with an optional decimal part."""

YEAR_NUMBER = re.compile(r"^(1[89]|20)\d\d$")
"""A value (separators removed) that reads as a year, 1800-2099."""

_MONTHS = (
    r"jan(?:uary|vier)?|feb(?:ruary)?|f[ée]v(?:rier)?|mar(?:ch|s)?|apr(?:il)?|avr(?:il)?|"
    r"may|mai|june?|juin|july?|juil(?:let)?|aug(?:ust)?|ao[ûu]t|sep(?:t|tember|tembre)?|"
    r"oct(?:ober|obre)?|nov(?:ember|embre)?|dec(?:ember)?|d[ée]c(?:embre)?"
)
DAY_OF_MONTH = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th|er)?\s+(?:of\s+)?(?:{_MONTHS})\b"
    rf"|\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b",
    re.IGNORECASE,
)
"""A day of the month written with its month ("12 March", "March 12th"): a date, not a count."""


def numbers(text: str) -> dict[str, str]:
    """Numbers in ``text`` (thousands separators removed) → as written; years and days of the
    month left out (the ``when`` rule compares dates)."""
    out: dict[str, str] = {}
    text = DAY_OF_MONTH.sub(lambda m: " " * len(m.group(0)), text)
    for match in NUMBER.finditer(text):
        written = match.group(0).strip()
        value = re.sub(r"[,.\u202f ](?=\d{3}\b)", "", written)
        if not YEAR_NUMBER.match(value):
            out.setdefault(value, written)
    return out
