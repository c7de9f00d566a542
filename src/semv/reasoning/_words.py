"""Lists as phrases in the sentences semv writes (rule texts, statements, reasons)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["is_are", "join_words"]


def join_words(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``: a list as a phrase in a statement."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def is_are(items: Sequence[str]) -> str:
    """The verb that agrees with a list as subject: "where is", "where and when are"."""
    return "is" if len(items) <= 1 else "are"
