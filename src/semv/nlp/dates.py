"""Dates: the one parser semv uses for claimed dates, text mentions and publication metadata.

``parse_date`` reads one date field (a case's claimed date, an API's publication date, a
``--before`` cut-off) into a ``ClaimedDate``: machine forms (ISO 8601, compact timestamps, RFC
822) first, then ranges ("3-5 March 2024", "2019-2021", "1 March 2024 to 5 March 2024"), then
the mention patterns below, then ``dateparser``. Its precision is a day, a month, a year or a
range. A numeric date whose day and month can both be read either way ("7/3/2024") is read in
the order of the case's language tag (``date_order``: "en-US" month first, "en-GB", "fr", "de"
day first); when the tag does not decide (no tag, bare "en"), English is read month first, as
before, and the ``ClaimedDate`` keeps the other reading so the ``when`` subclaim can record the
ambiguity as an uncertainty item. The ``when`` subclaim and the ``--before-claim-date`` cut-off
both come from this one parse.

``find_dates`` finds the date mentions of a running text: regex candidates, ``dateparser.parse``
for non-English ones, ISO output.

``dateparser.search_dates`` is slow and over-eager, so candidates are found with regular
expressions (ISO dates, numeric D.M.Y, English month-name dates with or without a year, "March
2022", bare years, CJK 年月日 dates, and a generic "<day> <word> <year>" / "<word> <day>, <year>"
shape for other languages) and only the non-English candidates are handed to
``dateparser.parse``. Relative expressions ("Saturday", "last year", "recently") have no anchor
and are dropped. A bare year may end a clause ("in 2015, not 2022": 2015 is kept, 2022 is
kept as negated); digits after the comma or point ("2015,5", "2015.5") make it a number.

A ``DateMention`` is an interval: a year, a year-month, a day, a range between two of those
(rendered ``start/end``, the ISO 8601 interval form), or a month-day without year (rendered
``--MM-DD``, the ISO 8601 reduced form) that can only be compared by month and day.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
import threading
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache
from typing import Any

__all__ = [
    "Agreement",
    "ClaimedDate",
    "DateMention",
    "DateOrder",
    "Precision",
    "capture_agreement",
    "compare",
    "date_order",
    "find_dates",
    "from_iso",
    "iso_date",
    "parse_date",
    "parse_one",
    "published_after",
    "signed_days",
]

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
_DAY = r"(?P<{g}>[0-3]?\d)(?:st|nd|rd|th|\.)?"
"""A day of the month, with an English ordinal suffix or the German ordinal point."""
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
            r"\b(?P<d>[0-3]?\d)(?:er|re|\.?[ºª°])?\.?\s+(?:de\s+)?(?P<w>[^\W\d_]{3,})\.?\s+"
            r"(?:de\s+)?(?P<y>1[6-9]\d\d|20\d\d)\b"
        ),
    ),
    (
        "generic_mdy",
        re.compile(r"\b(?P<w>[^\W\d_]{3,})\.?\s+(?P<d>[0-3]?\d),?\s+(?P<y>1[6-9]\d\d|20\d\d)\b"),
    ),
    ("year", re.compile(r"(?<![\w$£€#.,/-])(?P<y>1[6-9]\d\d|20\d\d)(?!\w|,\d|\.\d|-\d|/\d)")),
)

_NEGATION = re.compile(r"\b(?:not|never|rather than|instead of)\s+(?:in|on|from|during)?\s*$", re.I)


class Precision(StrEnum):
    """How much of a date is known."""

    DAY = "day"
    MONTH = "month"
    YEAR = "year"
    RANGE = "range"


class DateOrder(StrEnum):
    """The order of day and month in a numeric date such as 7/3/2024."""

    DAY_FIRST = "day-first"
    MONTH_FIRST = "month-first"


_MONTH_FIRST_REGIONS = frozenset({"us", "ph", "fm", "mh", "pw", "as", "gu", "mp", "pr", "vi", "um"})
"""Regions whose numeric dates put the month first (the United States and its territories,
the Philippines, the Pacific states in free association with the US)."""
_UNDECIDED_REGIONS = frozenset({"ca"})
"""Regions where both orders are in common use (Canada)."""
_YEAR_FIRST_LANGUAGES = frozenset({"zh", "ja", "ko", "hu", "lt", "mn"})
"""Languages that write the year first: a numeric date with the year last is not their own."""


def date_order(language: str | None) -> DateOrder | None:
    """The day/month order of numeric dates for a BCP 47 language tag, or None when the tag
    does not decide it (no tag, English without a region, Canada, year-first languages)."""
    if not language:
        return None
    parts = language.replace("_", "-").lower().split("-")
    lang = parts[0]
    region = next((p for p in parts[1:] if len(p) == 2 and p.isalpha()), None)
    if region in _MONTH_FIRST_REGIONS:
        return DateOrder.MONTH_FIRST
    if region in _UNDECIDED_REGIONS and lang == "en":
        return None
    if lang == "en":
        return DateOrder.DAY_FIRST if region is not None else None
    if lang in _YEAR_FIRST_LANGUAGES:
        return None
    return DateOrder.DAY_FIRST


def _numeric_order(language: str | None) -> DateOrder:
    """The order used for a numeric date: the language's, else month first for English (or no
    language) and day first for any other language."""
    decided = date_order(language)
    if decided is not None:
        return decided
    english = not language or language.lower()[:2] == "en"
    return DateOrder.MONTH_FIRST if english else DateOrder.DAY_FIRST


class Agreement(StrEnum):
    AGREE = "agree"
    DISAGREE = "disagree"
    INCOMPARABLE = "incomparable"


@dataclass(frozen=True)
class DateMention:
    """A date in a text, with its character span and whether it is negated ("not 2022").

    ``until`` makes it a range: this date is its first part and ``until`` its last."""

    year: int | None
    month: int | None
    day: int | None
    text: str = ""
    start: int = 0
    end: int = 0
    negated: bool = False
    until: DateMention | None = None

    @property
    def precision(self) -> Precision:
        if self.until is not None:
            return Precision.RANGE
        if self.day is not None:
            return Precision.DAY
        return Precision.MONTH if self.month is not None else Precision.YEAR

    @property
    def iso(self) -> str:
        if self.until is not None:
            return f"{self._iso()}/{self.until.iso}"
        return self._iso()

    def _iso(self) -> str:
        if self.year is None:
            return f"--{self.month:02d}-{self.day:02d}"
        if self.month is None:
            return f"{self.year:04d}"
        if self.day is None:
            return f"{self.year:04d}-{self.month:02d}"
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"

    def interval(self) -> tuple[dt.date, dt.date] | None:
        if self.until is not None:
            head = replace(self, until=None).interval()
            tail = self.until.interval()
            return None if head is None or tail is None else (head[0], tail[1])
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
    if "/" in value:
        first, _, last = value.partition("/")
        a, b = from_iso(first), from_iso(last)
        return _range(a, b, value)
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
        # no relative dates ("yesterday", "3 days ago"): they would be read against today
        "PARSERS": ["timestamp", "custom-formats", "absolute-time"],
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


def _range(a: DateMention | None, b: DateMention | None, text: str) -> DateMention | None:
    """The range from ``a`` to ``b`` (both dated, ``a`` not after ``b``), else None."""
    if a is None or b is None or a.until is not None or b.until is not None:
        return None
    ia, ib = a.interval(), b.interval()
    if ia is None or ib is None or ia[0] > ib[1]:
        return None
    if a == b:
        return a
    return DateMention(a.year, a.month, a.day, text, until=replace(b, text="", start=0, end=0))


@dataclass(frozen=True)
class ClaimedDate:
    """One date field as read by ``parse_date``: the date, and how a numeric date was read.

    ``alternative`` is the other reading of a numeric date ("7/3/2024": 2024-07-03 or
    2024-03-07) when the language did not decide the order; it is None when the reading is
    certain (a day above 12, a month name, ISO form, or a language that decides)."""

    mention: DateMention
    order: DateOrder | None = None
    alternative: DateMention | None = None

    @property
    def precision(self) -> Precision:
        return self.mention.precision

    @property
    def iso(self) -> str:
        return self.mention.iso

    @property
    def ambiguous(self) -> bool:
        return self.alternative is not None

    @property
    def cutoff(self) -> str | None:
        """The latest date the claim covers, as ISO at its precision (a range's last part):
        the ``--before-claim-date`` cut-off. None without a year."""
        last = self.mention.until or self.mention
        return last.iso if last.year is not None else None

    def ambiguity(self) -> str:
        """A readable account of an undecided reading ('' when the reading is certain)."""
        if self.alternative is None or self.order is None:
            return ""
        other = (
            DateOrder.DAY_FIRST if self.order is DateOrder.MONTH_FIRST else DateOrder.MONTH_FIRST
        )
        return (
            f"the date {self.mention.text!r} reads as {self.mention.iso} ({self.order.value}) "
            f"or {self.alternative.iso} ({other.value}); no language tag with a region decides "
            f"the order, so it was read {self.order.value}"
        )


_MACHINE_ISO = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:[T ]\d.*)?$")
_MACHINE_FORMATS = ("%Y%m%dT%H%M%SZ", "%Y%m%d%H%M%S", "%a, %d %b %Y %H:%M:%S %Z")
_NUMERIC_DATE = re.compile(r"^([0-3]?\d)([/-])([0-3]?\d)\2(1[6-9]\d\d|20\d\d)$")
_RANGE_SEPARATOR = re.compile(r"\s*(?:/|–|—|\s-\s|\bto\b|\buntil\b|\bthrough\b)\s*", re.I)
_RANGE_PREFIX = re.compile(r"^(?:from|between)\s+", re.I)
_DAY_RANGE = (
    _p(
        r"^(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?\s*[-–]\s*(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?\s+"
        + _MONTH.format(g="m")
        + r",?\s+"
        + _YEAR.format(g="y")
        + r"$"
    ),
    _p(
        r"^"
        + _MONTH.format(g="m")
        + r"\s+(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?\s*[-–]\s*(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?,?\s+"
        + _YEAR.format(g="y")
        + r"$"
    ),
)
_YEAR_RANGE = re.compile(r"^(1[6-9]\d\d|20\d\d)\s*[-–/]\s*(1[6-9]\d\d|20\d\d)$")


def _machine(text: str) -> DateMention | None:
    """ISO 8601 (a year, a month, a day, or a timestamp), compact and RFC 822 timestamps."""
    m = _MACHINE_ISO.match(text)
    if m:
        year, month, day = (int(g) if g else None for g in m.groups())
        if year is None:  # the pattern's year group is not optional
            return None
        if 1600 <= year <= 2200 and _valid(year, month, day):
            return DateMention(year, month, day, text)
        return None
    for fmt in _MACHINE_FORMATS:
        try:
            stamp = dt.datetime.strptime(text, fmt)
        except ValueError:
            continue
        return DateMention(stamp.year, stamp.month, stamp.day, text)
    return None


def _parse_range(text: str, language: str | None) -> DateMention | None:
    for pattern in _DAY_RANGE:
        m = pattern.match(text)
        if m and m.group("m")[0].isupper():
            year, month = int(m.group("y")), _MONTHS[m.group("m").lower().rstrip(".")]
            d1, d2 = int(m.group("d1")), int(m.group("d2"))
            if _valid(year, month, d1) and _valid(year, month, d2):
                return _range(DateMention(year, month, d1), DateMention(year, month, d2), text)
    m = _YEAR_RANGE.match(text)
    if m:
        return _range(
            DateMention(int(m.group(1)), None, None), DateMention(int(m.group(2)), None, None), text
        )
    body = _RANGE_PREFIX.sub("", text)
    parts = _RANGE_SEPARATOR.split(body)
    if len(parts) == 1 and text[: len(text) - len(body)].lower().startswith("between"):
        parts = re.split(r"\s+and\s+", body, flags=re.I)
    if len(parts) != 2 or not all(parts):
        return None
    last = _single(parts[1], language, None)
    if last is None or last.year is None:
        return None
    first = _single(parts[0], language, None)
    if first is None:
        return None
    if first.year is None and first.month is not None:
        first = replace(first, year=last.year)
    if first.year is None or not _valid(first.year, first.month, first.day):
        return None
    return _range(first, last, text)


def _single(text: str, language: str | None, order: DateOrder | None) -> DateMention | None:
    text = text.strip()
    machine = _machine(text)
    if machine is not None:
        return machine
    numeric = _NUMERIC_DATE.match(text)
    if numeric:
        a, b, year = int(numeric.group(1)), int(numeric.group(3)), int(numeric.group(4))
        first = order or _numeric_order(language)
        day, month = (a, b) if first is DateOrder.DAY_FIRST else (b, a)
        if not _valid(year, month, day):
            day, month = month, day
        return DateMention(year, month, day, text) if _valid(year, month, day) else None
    found = [d for d in find_dates(text, language) if not d.negated]
    return found[0] if found else None


def parse_date(
    text: str,
    language: str | None = None,
    *,
    order: DateOrder | None = None,
    fuzzy: bool = True,
) -> ClaimedDate | None:
    """Read one date field: machine forms, ranges, numeric, mention patterns, then dateparser.

    ``language`` is the case's BCP 47 tag; it decides a numeric date's day/month order unless
    ``order`` fixes it (publication-date fields of known APIs). ``fuzzy=False`` skips the
    ``dateparser`` fallback, which can read relative phrases against today's date.
    """
    text = " ".join(str(text).split())
    if not text:
        return None
    mention = _machine(text) or _parse_range(text, language) or _single(text, language, order)
    if mention is None:
        if not fuzzy:
            return None
        parts = _dateparser(text, (language or "").lower()[:2] or None)
        return None if parts is None else ClaimedDate(DateMention(*parts, text))
    return _with_order(mention, language, order)


_SLASH_SHAPE = re.compile(r"^([0-3]?\d)[/.-]([0-3]?\d)[/.-](\d{4})$")


def _with_order(mention: DateMention, language: str | None, order: DateOrder | None) -> ClaimedDate:
    shape = _SLASH_SHAPE.match(mention.text.strip())
    if shape is None or "." in mention.text or mention.until is not None:
        return ClaimedDate(mention)
    a, b = int(shape.group(1)), int(shape.group(2))
    used = DateOrder.DAY_FIRST if (mention.day, mention.month) == (a, b) else DateOrder.MONTH_FIRST
    if a == b or a > 12 or b > 12 or order is not None or date_order(language) is not None:
        return ClaimedDate(mention, used)
    other = DateMention(mention.year, mention.day, mention.month, mention.text)
    return ClaimedDate(mention, used, other if _valid(other.year, other.month, other.day) else None)


def parse_one(text: str, language: str | None = None) -> DateMention | None:
    """The date of one free-form field (``parse_date`` without the reading's provenance)."""
    parsed = parse_date(text, language)
    return None if parsed is None else parsed.mention


def iso_date(value: str | None) -> str | None:
    """A publication date field as ISO 8601 (day precision at most; a range gives its first
    part), or None when unreadable. Numeric API dates are day first (DD/MM/YYYY)."""
    if value is None:
        return None
    parsed = parse_date(str(value), order=DateOrder.DAY_FIRST, fuzzy=False)
    if parsed is None or parsed.mention.year is None:
        return None
    return replace(parsed.mention, until=None).iso


def published_after(published: str | None, before: str) -> bool:
    """True when ``published`` is certainly later than the cut-off ``before`` (both ISO).

    Compared at the coarser precision of the two: '2024-03' is not after '2024-03-14'.
    Undated items are not 'after' (they are kept and the retrieval records the cut-off).
    """
    if not published:
        return False
    n = min(len(published), len(before))
    return published[:n] > before[:n]


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < e and s < span[1] for s, e in taken)


def find_dates(text: str, language: str | None = None) -> list[DateMention]:
    """Every absolute date mentioned in ``text``, in order of appearance."""
    return list(_find_dates(text, (language or "").lower().replace("_", "-") or None))


@lru_cache(maxsize=8192)
def _find_dates(text: str, tag: str | None) -> tuple[DateMention, ...]:
    taken: list[tuple[int, int]] = []
    out: list[DateMention] = []
    language = tag[:2] if tag else None
    english = language in (None, "en")
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            span = m.span()
            if _overlaps(span, taken):
                continue
            parsed = _interpret(kind, m, language, english, tag)
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
    kind: str, m: re.Match[str], language: str | None, english: bool, tag: str | None
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
        if b > 12 >= a or _numeric_order(tag) is DateOrder.MONTH_FIRST:
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
        if kind == "generic_dmy":  # ordinals and "de" dropped: "1er juin", "1º de junho"
            return _dateparser(f"{int(g['d'])} {g['w']} {g['y']}", language)
        return _dateparser(m.group(0), language)
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
    if a.month is None or b.month is None:
        return None
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
    if claimed.until is not None or observed.until is not None:
        intervals = True  # a range agrees with what falls within tolerance of it
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


def capture_agreement(
    claimed: DateMention, captured: DateMention, tolerance_days: int
) -> tuple[Agreement, int | None]:
    """A capture time (EXIF) against a claimed date: the one check every procedure uses.

    The capture time is exact, so the claimed date is taken as the interval it names and the
    two agree when the gap between them is at most ``tolerance_days``
    (``offline.time_tolerance_days``): a claimed "March 2024" agrees with a photo taken on
    2024-03-31, a claimed 2024-03-07 with one taken two days later."""
    return compare(claimed, captured, tolerance_days, intervals=True)
