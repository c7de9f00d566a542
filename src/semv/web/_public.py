"""Error messages fit for anyone who can reach the server: no store URL, no absolute path."""

from __future__ import annotations

import re
from typing import Final

from semv.store import display_url

__all__ = ["public_message"]

_ABSOLUTE_PATH: Final = re.compile(
    r"(?:sqlite:/+|file:/+|(?<![\w.:/])/)(?:[^\s'\"/]+/)+([^\s'\"/]*)"
)


def public_message(message: str, store_url: str) -> str:
    """``message`` with the store URL (as given and as displayed) replaced by "the store" and
    every absolute server path cut to its last component (ids and file names stay)."""
    if store_url:
        message = message.replace(store_url, "the store")
        message = message.replace(display_url(store_url), "the store")
    return _ABSOLUTE_PATH.sub(lambda m: m.group(1) or "(server path)", message)
