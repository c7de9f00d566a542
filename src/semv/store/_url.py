"""Store URLs fit for printing: ``display_url`` masks a password wherever a URL carries one.

A database URL holds its password either as ``user:password@host`` or as a query parameter
(``?password=…``, libpq's keyword, which SQLAlchemy's own masking does not know). Every
message, log line and page that names a store goes through ``display_url``; ``mask_in``
cleans a foreign error text that may quote the URL verbatim (a driver's parse error).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["display_url", "mask_in"]

MASK: Final = "***"
_USERINFO: Final = re.compile(r"^(?P<head>[A-Za-z][\w+.-]*://[^/?#@:]*):(?P<secret>[^/?#@]*)@")
_QUERY_SECRET: Final = re.compile(
    r"(?P<head>[?&](?:password|passwd|pwd|sslpassword)=)(?P<secret>[^&#]*)", re.IGNORECASE
)


def display_url(url: str) -> str:
    """``url`` with the password of its user part and of any ``password=`` query parameter
    replaced by ``***``; a URL without a password is returned unchanged."""
    shown = _USERINFO.sub(lambda m: f"{m.group('head')}:{MASK}@", url, count=1)
    return _QUERY_SECRET.sub(lambda m: m.group("head") + MASK, shown)


def mask_in(text: str, *urls: str) -> str:
    """``text`` with every occurrence of each of ``urls`` shown as ``display_url`` shows it."""
    for url in sorted(filter(None, urls), key=len, reverse=True):
        text = text.replace(url, display_url(url))
    return text
