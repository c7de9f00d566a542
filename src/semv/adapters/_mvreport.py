"""Reading an MV2026 verification report (Markdown): status, sections, URLs, times, fields.

Used for the gold ``output/report.md`` of an MV2026 case and, by ``semv.eval``, for semv's own
Markdown report, so that both sides of Eq. 34-36 are read the same way.

The 14 required fields of Eq. 36 are not listed in the papers; they are read here from the
MV2026 report layout (case summary, source, where, when, who, why, forensic analysis, other
evidence, final status; A-QBAF MV2026 §2.7) and the challenge rubric (summary and content
classification, verified evidence, forensic analysis, supporting evidence and cross-checking,
clarity) as the fields a complete report fills: ``REQUIRED_FIELDS``.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field
from typing import Final

from semv.model import InternalLabel

__all__ = [
    "REQUIRED_FIELDS",
    "MvReport",
    "parse_date",
    "parse_mv_report",
    "status_label",
]

REQUIRED_FIELDS: Final[tuple[str, ...]] = (
    "summary",
    "content-classification",
    "source",
    "publication-time",
    "location",
    "event-time",
    "people-and-organisations",
    "motivation",
    "evidence-urls",
    "forensic-analysis",
    "cross-checking",
    "uncertainty",
    "final-status",
    "confidence",
)
"""The M = 14 required report fields of Eq. 36."""


@functools.cache
def _headings() -> dict[str, tuple[str, ...]]:
    """Section-heading keywords (lower-case substrings) that fill a field; each dimension's
    field and headings come from its ``DimensionSpec`` (``mv_field``, ``mv_headings``). Built
    on first use: loading a case imports no dimension module (and no NLP)."""
    from semv.dimensions import DIMENSIONS

    return {
        "summary": ("summary", "overview"),
        "source": ("source", "provenance", "origin"),
        **{s.mv_field: s.mv_headings for s in DIMENSIONS.values() if s.mv_field is not None},
        "cross-checking": ("evidence", "cross", "corroborat"),
        "uncertainty": ("uncertaint", "limitation", "caveat", "open question"),
    }


_LINES: Final[dict[str, tuple[str, ...]]] = {
    "content-classification": ("claim", "category", "classification"),
    "source": ("source url", "original source", "social media link", "posted by"),
    "publication-time": ("publication time", "published", "posted on", "upload"),
    "location": ("location",),
    "event-time": ("event time", "event date", "date of event"),
    "final-status": ("final verification status", "label"),
    "confidence": ("confidence",),
}
"""``Key: value`` line keywords (lower-case substrings of the key) that fill a field."""

_EMPTY: Final = frozenset({"", "none", "none.", "n/a", "na", "not given", "unknown", "-", "tbd"})

_STATUS_ALIASES: Final[dict[str, InternalLabel]] = {
    "verified": InternalLabel.VERIFIED,
    "true": InternalLabel.VERIFIED,
    "authentic": InternalLabel.VERIFIED,
    "mostly verified": InternalLabel.MOSTLY_VERIFIED,
    "mostly true": InternalLabel.MOSTLY_VERIFIED,
    "partially verified": InternalLabel.PARTIALLY_VERIFIED,
    "partly verified": InternalLabel.PARTIALLY_VERIFIED,
    "mixture": InternalLabel.PARTIALLY_VERIFIED,
    "false context": InternalLabel.FALSE_CONTEXT,
    "out of context": InternalLabel.FALSE_CONTEXT,
    "misleading context": InternalLabel.FALSE_CONTEXT,
    "miscaptioned": InternalLabel.FALSE_CONTEXT,
    "manipulated or synthetic": InternalLabel.MANIPULATED_OR_SYNTHETIC,
    "manipulated": InternalLabel.MANIPULATED_OR_SYNTHETIC,
    "synthetic": InternalLabel.MANIPULATED_OR_SYNTHETIC,
    "fabricated": InternalLabel.MANIPULATED_OR_SYNTHETIC,
    "ai generated": InternalLabel.MANIPULATED_OR_SYNTHETIC,
    "deepfake": InternalLabel.MANIPULATED_OR_SYNTHETIC,
    "insufficient evidence": InternalLabel.INSUFFICIENT_EVIDENCE,
    "unverified": InternalLabel.INSUFFICIENT_EVIDENCE,
    "inconclusive": InternalLabel.INSUFFICIENT_EVIDENCE,
    "uncertain": InternalLabel.UNCERTAIN,
}

_URL = re.compile(r"https?://[^\s<>()\[\]\"'`]+")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_KEY_VALUE = re.compile(
    r"^[\s>*\-+]*(?:\*\*|__)?([^:*_]{2,60}?)(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*)$"
)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTHS: Final = {
    m: i + 1
    for i, m in enumerate(
        (
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        )
    )
}
_DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})\s+([A-Za-z]+)\s+(\d{4})\b")
_MONTH_DAY_YEAR = re.compile(r"\b([A-Za-z]+)\s+(\d{1,2}),?\s+(\d{4})\b")


def _clean(text: str) -> str:
    return re.sub(r"[*_`#>]", "", text).strip().strip(".").strip()


def status_label(text: str) -> InternalLabel | None:
    """The internal label a status text names (``"False context"``, ``"MANIPULATED"``...)."""
    key = re.sub(r"[^a-z]+", " ", _clean(text).lower()).strip()
    if key in _STATUS_ALIASES:
        return _STATUS_ALIASES[key]
    for value in InternalLabel:
        if key == value.value.replace("-", " "):
            return value
    # longest alias that starts the text ("False context: the video is from 2019")
    for alias in sorted(_STATUS_ALIASES, key=len, reverse=True):
        if key.startswith(alias + " ") or key == alias:
            return _STATUS_ALIASES[alias]
    return None


def parse_date(text: str) -> dt.date | None:
    """The first calendar date in ``text``: ISO ``2025-05-07``, ``7 May 2025``, ``May 7, 2025``."""
    found: list[tuple[int, dt.date]] = []
    for m in _ISO.finditer(text):
        try:
            found.append((m.start(), dt.date(int(m[1]), int(m[2]), int(m[3]))))
        except ValueError:
            continue
    for m in _DAY_MONTH_YEAR.finditer(text):
        month = _MONTHS.get(m[2].lower())
        if month:
            try:
                found.append((m.start(), dt.date(int(m[3]), month, int(m[1]))))
            except ValueError:
                continue
    for m in _MONTH_DAY_YEAR.finditer(text):
        month = _MONTHS.get(m[1].lower())
        if month:
            try:
                found.append((m.start(), dt.date(int(m[3]), month, int(m[2]))))
            except ValueError:
                continue
    return min(found)[1] if found else None


@dataclass(frozen=True)
class MvReport:
    """What an MV2026 report states, as read from its Markdown."""

    status: str | None
    """The text after ``Final Verification Status:`` (or the report's ``Label:``)."""
    sections: dict[str, str]
    """Heading (lower-case) → body text."""
    urls: tuple[str, ...]
    event_time: dt.date | None
    publication_times: tuple[dt.date, ...]
    fields: dict[str, bool] = field(default_factory=dict)
    """Which of ``REQUIRED_FIELDS`` the report fills."""


def _sections(markdown: str) -> dict[str, str]:
    sections: dict[str, list[str]] = {}
    current = ""
    for line in markdown.splitlines():
        m = _HEADING.match(line)
        if m:
            current = _clean(m[2]).lower()
            sections.setdefault(current, [])
            continue
        sections.setdefault(current, []).append(line)
    return {k: "\n".join(v).strip() for k, v in sections.items()}


def _filled(body: str) -> bool:
    lines = [_clean(line).lower() for line in body.splitlines()]
    return any(line not in _EMPTY for line in lines)


def _key_values(markdown: str) -> list[tuple[str, str]]:
    pairs = []
    for line in markdown.splitlines():
        if _HEADING.match(line):
            heading = _clean(_HEADING.match(line)[2])  # type: ignore[index]
            if ":" in heading:
                key, _, value = heading.partition(":")
                pairs.append((key.strip().lower(), value.strip()))
            continue
        m = _KEY_VALUE.match(line)
        if m and not m[1].lower().startswith(("http", "https")):
            pairs.append((_clean(m[1]).lower(), _clean(m[2])))
    return pairs


def parse_mv_report(markdown: str) -> MvReport:
    """Read status, sections, cited URLs, event and publication times, and filled fields."""
    sections = _sections(markdown)
    pairs = _key_values(markdown)
    status = next(
        (v for k, v in pairs if k == "final verification status" and v),
        next((v for k, v in pairs if k == "label" and v), None),
    )
    urls = tuple(dict.fromkeys(u.rstrip(".,;") for u in _URL.findall(markdown)))
    event = next(
        (d for k, v in pairs if any(x in k for x in _LINES["event-time"]) and (d := parse_date(v))),
        None,
    )
    publications = tuple(
        d
        for k, v in pairs
        if any(x in k for x in _LINES["publication-time"]) and (d := parse_date(v))
    )
    fields: dict[str, bool] = dict.fromkeys(REQUIRED_FIELDS, False)
    for name, keywords in _headings().items():
        fields[name] = any(
            any(k in heading for k in keywords) and _filled(body)
            for heading, body in sections.items()
            if heading
        )
    for name, keywords in _LINES.items():
        if not fields[name]:
            fields[name] = any(
                any(x in k for x in keywords) and v.lower() not in _EMPTY for k, v in pairs
            )
    fields["evidence-urls"] = bool(urls)
    if fields["publication-time"] is False:
        fields["publication-time"] = bool(publications)
    return MvReport(
        status=status,
        sections=sections,
        urls=urls,
        event_time=event,
        publication_times=publications,
        fields=fields,
    )
