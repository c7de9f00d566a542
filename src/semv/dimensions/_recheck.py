"""The grounding re-check of an argument against the evidence it cites.

Two parts, both pure functions of the argument and its cited evidence:

- ``key_fact_found``: a key fact is stated by an item — literally after folding, as a date with
  the same ISO form, as a number (thousands separators, coordinates to 1e-3), or as a subset of
  the item's content words;
- ``rederive``: for a cited metadata item (and a signal item the dimension measures: forensic,
  C2PA, a reverse-search match's first-seen date for ``when``), re-running the dimension's rule
  on the item must give the argument's stance.

A backend's verifier (``semv.agents.offline``) builds its v_a from these.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from semv.config import OfflineAgentConfig
from semv.dimensions._common import REVERSE_MATCH, ClaimView, is_metadata, signal_kind
from semv.dimensions._registry import DIMENSIONS, judge
from semv.model import Evidence, Stance
from semv.nlp.dates import find_dates, from_iso
from semv.nlp.text import content_words, fold

__all__ = ["COORD_TOLERANCE", "key_fact_found", "rederive", "rederived"]

COORD_TOLERANCE = 1e-3


def _fields(ev: Evidence) -> list[str]:
    out = [ev.content]
    out += [v for v in (ev.title, ev.published, ev.url) if v]
    out += [str(v) for v in _scalars(ev).values()]
    return out


def _scalars(ev: Evidence) -> dict[str, str | int | float | bool]:
    """The scalar facts of the item's observation (none for a text alone)."""
    return ev.observation.scalars() if ev.observation is not None else {}


def _number(text: str) -> float | None:
    cleaned = text.replace(",", "").replace("\u202f", "").strip()
    if re.fullmatch(r"[-+]?\d+(?:\.\d+)?", cleaned):
        return float(cleaned)
    return None


def key_fact_found(fact: str, ev: Evidence) -> bool:
    """Is ``fact`` stated by ``ev`` (content, title, published, url or data values)?"""
    fields = _fields(ev)
    needle = fold(fact).strip()
    if not needle:
        return False
    if any(needle in fold(f) for f in fields):
        return True
    as_date = from_iso(fact) if re.match(r"^(?:\d{4}|--\d{2})", fact.strip()) else None
    if as_date is None:
        found = find_dates(fact)
        as_date = found[0] if len(found) == 1 else None
    if as_date is not None:
        for f in fields:
            if any(d.iso == as_date.iso for d in find_dates(f)):
                return True
            if f.strip()[:10].startswith(as_date.iso) and as_date.year is not None:
                return True
    number = _number(fact)
    if number is not None:
        for value in _scalars(ev).values():
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            if numeric and abs(float(value) - number) <= COORD_TOLERANCE:
                return True
        for f in fields:
            for token in re.findall(r"[-+]?\d[\d,]*(?:\.\d+)?", f):
                parsed = _number(token)
                if parsed is not None and abs(parsed - number) <= COORD_TOLERANCE:
                    return True
    words = content_words(fact)
    return bool(words) and words <= content_words(ev.content)


def rederived(view: ClaimView, ev: Evidence) -> bool:
    """Does the re-check re-derive findings on ``ev`` (a measurement, not a text)?"""
    if is_metadata(ev):
        return True
    kind = signal_kind(ev)
    if kind is None:
        return False
    return kind != REVERSE_MATCH or DIMENSIONS[view.subclaim.dimension].rederives_match


def rederive(
    view: ClaimView, stance: Stance, cited: Sequence[Evidence], cfg: OfflineAgentConfig
) -> str | None:
    """Why re-deriving the comparison contradicts ``stance``, or None when it agrees."""
    if stance not in (Stance.SUPPORT, Stance.ATTACK):
        return None
    for ev in cited:
        if not rederived(view, ev):
            continue
        stances = {f.stance for f in judge(view.subclaim.dimension, view, ev, cfg)}
        if stance not in stances:
            derived = ", ".join(sorted(s.value for s in stances)) or "no finding"
            return f"re-deriving the comparison from {ev.id} gives {derived}, not {stance.value}"
    return None
