"""Invisible characters of untrusted text made visible in the reports.

A claim (or any case text) may carry characters that change how the text around them reads
without being seen: bidirectional overrides and isolates (U+202E turns "2024" into "4202"),
zero-width spaces and joiners used to hide words from a reader or a filter, the byte-order
mark, NUL and other control characters. The HTML and Markdown reports print each of them as
a visible ``[U+XXXX]`` marker instead; tab, newline and carriage return stay (the templates
decide line layout), and so do the zero-width joiner and non-joiner (U+200D, U+200C), which
Persian, Indic scripts and emoji sequences need to render correctly.
"""

from __future__ import annotations

import re
from typing import Final

from markupsafe import Markup

__all__ = ["neutralise", "visible_controls"]

_HIDDEN: Final = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"  # C0 and C1 controls but tab, newline, CR
    "\u061c\u200b\u200e\u200f"  # Arabic letter mark, zero-width space, LRM, RLM
    "\u202a-\u202e\u2066-\u2069"  # bidi embeddings, overrides and isolates
    "\u2060-\u2064\ufeff\ufff9-\ufffb]"  # word joiner, invisible operators, BOM, annotations
)


def visible_controls(text: str) -> str:
    """``text`` with every hidden character above replaced by ``[U+XXXX]``."""
    return _HIDDEN.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


def neutralise(value: object) -> object:
    """Jinja ``finalize``: a plain string printed by a template goes through
    ``visible_controls``; markup already rendered (``Markup``) and non-strings pass as they
    are."""
    if isinstance(value, str) and not isinstance(value, Markup) and _HIDDEN.search(value):
        return visible_controls(value)
    return value
