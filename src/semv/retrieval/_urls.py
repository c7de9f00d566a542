"""URL helpers: registrable-ish domain, Wayback Machine unwrapping."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

__all__ = ["domain_of", "unwrap_archive"]

_WAYBACK = re.compile(r"^https?://web\.archive\.org/web/[0-9a-z_]+/(?P<url>.+)$", re.IGNORECASE)


def unwrap_archive(url: str) -> str:
    """The original URL of a web.archive.org snapshot URL (otherwise ``url`` itself)."""
    match = _WAYBACK.match(url.strip())
    if not match:
        return url
    inner = match.group("url")
    return inner if inner.startswith(("http://", "https://")) else "http://" + inner


def domain_of(url: str) -> str | None:
    """Lower-case host without a leading 'www.' (None when the URL has no host)."""
    host = urlsplit(url.strip()).hostname
    if not host:
        return None
    host = host.lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host
