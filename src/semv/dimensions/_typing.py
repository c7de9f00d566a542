"""Typing facts: a date mention, a place name or a number as the ``Facts`` the result carries."""

from __future__ import annotations

import re

from semv.model import DateFact, DatePrecision, PlaceFact, QuantityFact
from semv.nlp import places as _places
from semv.nlp.dates import DateMention, find_dates, from_iso

__all__ = ["date_fact", "key_fact_date", "place_facts", "quantity_fact"]

_ISO_START = re.compile(r"^(?:\d{4}|--\d{2})")
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
_THOUSANDS = re.compile(r"[,.\u202f ](?=\d{3}\b)")


def date_fact(mention: DateMention, text: str | None = None) -> DateFact:
    """``mention`` with its precision; ``text`` as written (default: the mention's text)."""
    if mention.until is not None:
        precision = DatePrecision.RANGE
    elif mention.year is None:
        precision = DatePrecision.DAY_OF_YEAR
    elif mention.month is None:
        precision = DatePrecision.YEAR
    elif mention.day is None:
        precision = DatePrecision.MONTH
    else:
        precision = DatePrecision.DAY
    return DateFact(text=text or mention.text or mention.iso, iso=mention.iso, precision=precision)


def key_fact_date(fact: str, language: str | None = None) -> DateMention | None:
    """A key fact read as one date: an ISO form, or a text with exactly one date in it (the
    same reading the grounding verifier gives it)."""
    stripped = fact.strip()
    if _ISO_START.match(stripped):
        parsed = from_iso(stripped)
        if parsed is not None:
            return parsed
    found = find_dates(stripped, language)
    return found[0] if len(found) == 1 else None


def place_facts(names: tuple[str, ...] | list[str]) -> tuple[PlaceFact, ...]:
    """``names`` (named together) with their gazetteer entries, where they resolve to one."""
    out: list[PlaceFact] = []
    for name, place in zip(names, _places.resolve_all(list(names)), strict=True):
        if place is None:
            out.append(PlaceFact(text=name))
            continue
        out.append(
            PlaceFact(
                text=name,
                label=place.label,
                latitude=place.latitude,
                longitude=place.longitude,
                country=place.country or None,
            )
        )
    return tuple(out)


def quantity_fact(text: str) -> QuantityFact | None:
    """A number as written ("12,000", "45.7640") and its value; None for anything else."""
    cleaned = _THOUSANDS.sub("", text.strip()).replace(",", ".")
    if not _NUMBER.fullmatch(cleaned):
        return None
    return QuantityFact(text=text, value=float(cleaned))
