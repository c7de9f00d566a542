"""Publication dates as ISO ``YYYY-MM-DD`` (or ``YYYY-MM``/``YYYY``), and the leakage test."""

from __future__ import annotations

import re
from datetime import datetime

__all__ = ["iso_date", "published_after"]

_ISO = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
_FORMATS = (
    "%d-%m-%Y",
    "%d/%m/%Y",
    "%Y%m%dT%H%M%SZ",
    "%Y%m%d%H%M%S",
    "%a, %d %b %Y %H:%M:%S %Z",
    "%b %d, %Y",
    "%d %b %Y",
    "%d %B %Y",
    "%B %d, %Y",
)


def iso_date(value: str | None) -> str | None:
    """The date in ``value`` as ISO 8601 (day precision at most), or None when unreadable."""
    if value is None:
        return None
    text = str(value).strip()
    if not text:
        return None
    match = _ISO.match(text)
    if match and (len(text) == 4 or text[4] in "-T "):
        year, month, day = match.groups()
        if 1800 <= int(year) <= 2200:
            return "-".join(p for p in (year, month, day) if p)
    for fmt in _FORMATS:
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def published_after(published: str | None, before: str) -> bool:
    """True when ``published`` is certainly later than the cut-off ``before`` (both ISO).

    Compared at the coarser precision of the two: '2024-03' is not after '2024-03-14'.
    Undated items are not 'after' (they are kept and the retrieval records the cut-off).
    """
    if not published:
        return False
    n = min(len(published), len(before))
    return published[:n] > before[:n]
