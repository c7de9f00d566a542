"""Date mentions: regex candidates, ``dateparser.parse`` for non-English ones, ISO output.

``dateparser.search_dates`` is slow and over-eager, so candidates are found with regular
expressions (ISO dates, numeric D.M.Y, English month-name dates with or without a year, "March
2022", bare years, CJK 年月日 dates, and a generic "<day> <word> <year>" / "<word> <day>, <year>"
shape for other languages) and only the non-English candidates are handed to
``dateparser.parse``. Relative expressions ("Saturday", "last year", "recently") have no anchor
and are dropped.

A ``DateMention`` is an interval: a year, a year-month, a day, or a month-day without year
(rendered ``--MM-DD``, the ISO 8601 reduced form) that can only be compared by month and day.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
import threading
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any

__all__ = ["Agreement", "DateMention", "compare", "find_dates", "from_iso", "parse_one"]

_MONTHS: dict[str, int] = {}
for _i, _name in enumerate(calendar.month_name):
    if _name:
        _MONTHS[_name.lower()] = _i
        _MONTHS[_name.lower()[:3]] = _i
_MONTHS["sept"] = 9

_MONTH = (
    r"(?P<{g}>January|February|March|April|May|June|July|August|September|October|November"
    r"|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_DAY = r"(?P<{g}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{g}>1[6-9]\d\d|20\d\d)"


def _p(template: str) -> re.Pattern[str]:
    return re.compile(template, re.IGNORECASE)


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("iso", _p(r"\b" + _YEAR.format(g="y") + r"-(?P<m>[01]?\d)-(?P<d>[0-3]?\d)\b")),
    ("cjk", re.compile(r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月(?:\s*(?P<d>\d{1,2})\s*日)?")),
    ("dmy_num", _p(r"\b(?P<d>[0-3]?\d)\.(?P<m>[01]?\d)\.(?P<y>1[6-9]\d\d|20\d\d)\b")),
    ("slash", _p(r"\b(?P<a>[0-3]?\d)/(?P<b>[0-3]?\d)/(?P<y>1[6-9]\d\d|20\d\d)\b")),
    (
        "dmy",
        _p(
            r"\b"
            + _DAY.format(g="d")
            + r"\s+(?:of\s+)?"
            + _MONTH.format(g="m")
            + r",?\s+"
            + _YEAR.format(g="y")
            + r"\b"
        ),
    ),
    (
        "mdy",
        _p(
            r"\b"
            + _MONTH.format(g="m")
            + r"\s+"
            + _DAY.format(g="d")
            + r"(?:,\s*|\s+)"
            + _YEAR.format(g="y")
            + r"\b"
        ),
    ),
    ("my", _p(r"\b" + _MONTH.format(g="m") + r",?\s+(?:of\s+)?" + _YEAR.format(g="y") + r"\b")),
    ("dm", _p(r"\b" + _DAY.format(g="d") + r"\s+(?:of\s+)?" + _MONTH.format(g="m") + r"(?!\w)")),
    ("md", _p(r"\b" + _MONTH.format(g="m") + r"\s+" + _DAY.format(g="d") + r"(?![\d\w])")),
    (
        "generic_dmy",
        re.compile(
            r"\b(?P<d>[0-3]?\d)\.?\s+(?:de\s+)?(?P<w>[^\W\d_]{3,})\.?\s+(?:de\s+)?(?P<y>1[6-9]\d\d|20\d\d)\b"
        ),
    ),
    (
        "generic_mdy",
        re.compile(r"\b(?P<w>[^\W\d_]{3,})\.?\s+(?P<d>[0-3]?\d),?\s+(?P<y>1[6-9]\d\d|20\d\d)\b"),
    ),
    ("year", re.compile(r"(?<![\w$£€#.,/-])(?P<y>1[6-9]\d\d|20\d\d)(?![\w,]|\.\d|-\d|/\d)")),
)

_NEGATION = re.compile(r"\b(?:not|never|rather than|instead of)\s+(?:in|on|from|during)?\s*$", re.I)


class Agreement(StrEnum):
    AGREE = "agree"
    DISAGREE = "disagree"
    INCOMPARABLE = "incomparable"


@dataclass(frozen=True)
class DateMention:
    """A date in a text, with its character span and whether it is negated ("not 2022")."""

    year: int | None
    month: int | None
    day: int | None
    text: str = ""
    start: int = 0
    end: int = 0
    negated: bool = False

    @property
    def iso(self) -> str:
        if self.year is None:
            return f"--{self.month:02d}-{self.day:02d}"
        if self.month is None:
            return f"{self.year:04d}"
        if self.day is None:
            return f"{self.year:04d}-{self.month:02d}"
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"

    def interval(self) -> tuple[dt.date, dt.date] | None:
        if self.year is None:
            return None
        if self.month is None:
            return dt.date(self.year, 1, 1), dt.date(self.year, 12, 31)
        if self.day is None:
            last = calendar.monthrange(self.year, self.month)[1]
            return dt.date(self.year, self.month, 1), dt.date(self.year, self.month, last)
        day = dt.date(self.year, self.month, self.day)
        return day, day


def _valid(year: int | None, month: int | None, day: int | None) -> bool:
    if month is not None and not 1 <= month <= 12:
        return False
    if day is not None:
        if month is None:
            return False
        try:
            dt.date(year if year is not None else 2000, month, day)
        except ValueError:
            return False
    return True


def from_iso(value: str) -> DateMention | None:
    """Parse an ISO form produced by ``DateMention.iso`` (or a longer ISO timestamp)."""
    value = value.strip()
    m = re.match(r"^--(\d{2})-(\d{2})$", value)
    if m:
        md_month, md_day = int(m.group(1)), int(m.group(2))
        valid = _valid(None, md_month, md_day)
        return DateMention(None, md_month, md_day, value) if valid else None
    m = re.match(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?", value)
    if not m:
        return None
    year = int(m.group(1))
    month = int(m.group(2)) if m.group(2) else None
    day = int(m.group(3)) if m.group(3) else None
    return DateMention(year, month, day, value) if _valid(year, month, day) else None


_DP_LOCK = threading.Lock()


@lru_cache(maxsize=4096)
def _dateparser(text: str, language: str | None) -> tuple[int, int, int] | None:
    import dateparser

    settings: dict[str, Any] = {
        "REQUIRE_PARTS": ["day", "month", "year"],
        "PREFER_DATES_FROM": "past",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    languages = [language] if language else None
    with _DP_LOCK:
        try:
            parsed = dateparser.parse(text, languages=languages, settings=settings)
        except Exception:  # dateparser raises bare errors for unsupported languages
            parsed = None
    if parsed is None:
        return None
    return parsed.year, parsed.month, parsed.day


def parse_one(text: str, language: str | None = None) -> DateMention | None:
    """Parse one free-form date (a case's context date): regex first, then dateparser."""
    found = find_dates(text, language)
    if found:
        return found[0]
    if not text.strip():
        return None
    parts = _dateparser(text.strip(), language)
    if parts is None:
        return None
    return DateMention(parts[0], parts[1], parts[2], text.strip())


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < e and s < span[1] for s, e in taken)


def find_dates(text: str, language: str | None = None) -> list[DateMention]:
    """Every absolute date mentioned in ``text``, in order of appearance."""
    return list(_find_dates(text, (language or "").lower()[:2] or None))


@lru_cache(maxsize=8192)
def _find_dates(text: str, language: str | None) -> tuple[DateMention, ...]:
    taken: list[tuple[int, int]] = []
    out: list[DateMention] = []
    english = language in (None, "en")
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            span = m.span()
            if _overlaps(span, taken):
                continue
            parsed = _interpret(kind, m, language, english)
            if parsed is None:
                continue
            year, month, day = parsed
            if not _valid(year, month, day):
                continue
            negated = bool(_NEGATION.search(text[max(0, span[0] - 24) : span[0]]))
            taken.append(span)
            out.append(DateMention(year, month, day, m.group(0), span[0], span[1], negated))
    out.sort(key=lambda d: d.start)
    return tuple(out)


def _interpret(
    kind: str, m: re.Match[str], language: str | None, english: bool
) -> tuple[int | None, int | None, int | None] | None:
    g = m.groupdict()
    if kind in ("iso", "dmy_num"):
        return int(g["y"]), int(g["m"]), int(g["d"])
    if kind == "cjk":
        return _cjk(m.group(0), int(g["y"]), int(g["m"]), int(g["d"]) if g.get("d") else None)
    if kind == "slash":
        a, b = int(g["a"]), int(g["b"])
        if a > 12 >= b:
            return int(g["y"]), b, a
        if b > 12 >= a or english:
            return int(g["y"]), a, b
        return int(g["y"]), b, a
    if kind in ("dmy", "mdy", "my", "dm", "md"):
        if not g["m"][0].isupper():
            return None  # English month names are capitalized; "may" is a modal verb
        month = _MONTHS[g["m"].lower().rstrip(".")]
        year = int(g["y"]) if g.get("y") else None
        day = int(g["d"]) if g.get("d") else None
        if kind == "my":
            return year, month, None
        return year, month, day
    if kind in ("generic_dmy", "generic_mdy"):
        if g["w"].lower() in _MONTHS:
            return None  # handled (or rejected) by the English patterns
        parts = _dateparser(m.group(0), language)
        return parts
    if kind == "year":
        return int(g["y"]), None, None
    return None


def _cjk(text: str, year: int, month: int, day: int | None) -> tuple[int, int, int | None] | None:
    """CJK 年月日 dates go through dateparser, as the other non-English forms do."""
    if day is None:
        return year, month, None
    parts = _dateparser(text, None)
    return parts if parts is not None else (year, month, day)


def _doy_gap(a: DateMention, b: DateMention) -> int | None:
    assert a.month is not None and b.month is not None
    if a.day is None or b.day is None:
        return 0 if a.month == b.month else None
    da = dt.date(2000, a.month, a.day).timetuple().tm_yday
    db = dt.date(2000, b.month, b.day).timetuple().tm_yday
    diff = abs(da - db)
    return min(diff, 366 - diff)


def _granularity(d: DateMention) -> int:
    return 0 if d.month is None else (1 if d.day is None else 2)


def compare(
    claimed: DateMention, observed: DateMention, tolerance_days: int, *, intervals: bool = False
) -> tuple[Agreement, int | None]:
    """Compare two dates; returns the agreement and the gap in days between them.

    By default at the common granularity: 2022 agrees with 2022-03-12, 2021-01 disagrees with
    2020 (another year) and with 2021-03, two days agree when at most ``tolerance_days`` apart.
    With ``intervals=True`` (an exact observation such as an EXIF capture time), the dates are
    intervals and agree when the gap between them is at most ``tolerance_days``. A date without
    year compares by month/day only, with a date that has them.
    """
    ia, ib = claimed.interval(), observed.interval()
    if ia is not None and ib is not None:
        if ia[1] < ib[0]:
            gap = (ib[0] - ia[1]).days
        elif ib[1] < ia[0]:
            gap = (ia[0] - ib[1]).days
        else:
            gap = 0
        if intervals:
            return (Agreement.AGREE if gap <= tolerance_days else Agreement.DISAGREE), gap
        level = min(_granularity(claimed), _granularity(observed))
        if level == 0:
            same = claimed.year == observed.year
        elif level == 1:
            same = (claimed.year, claimed.month) == (observed.year, observed.month)
        else:
            same = gap <= tolerance_days
        return (Agreement.AGREE if same else Agreement.DISAGREE), gap
    if claimed.month is None or observed.month is None:
        return Agreement.INCOMPARABLE, None
    if (claimed.day is None) != (observed.day is None) and claimed.month == observed.month:
        return Agreement.AGREE, 0
    doy_gap = _doy_gap(claimed, observed)
    if doy_gap is None:
        return Agreement.DISAGREE, None
    gap = doy_gap
    return (Agreement.AGREE if gap <= tolerance_days else Agreement.DISAGREE), gap


def signed_days(claimed: DateMention, observed: DateMention) -> int | None:
    """observed − claimed in days (midpoints), for readable texts; None without years."""
    ia, ib = claimed.interval(), observed.interval()
    if ia is None or ib is None:
        return None
    mid_a = ia[0] + (ia[1] - ia[0]) / 2
    mid_b = ib[0] + (ib[1] - ib[0]) / 2
    return (mid_b - mid_a).days
