"""Typed facts a dimension established: dates with their precision, places, quantities.

Parsed once by the dimension that compared them (``semv.dimensions``) and carried in the
argument node and the JSON result, so no consumer (evaluation, reports, adapters) re-derives a
date or a place from the prose of an argument.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from semv.model._base import Frozen

__all__ = ["DateFact", "DatePrecision", "Facts", "PlaceFact", "QuantityFact"]


class DatePrecision(StrEnum):
    """How much of a calendar date is known."""

    DAY = "day"
    MONTH = "month"
    YEAR = "year"
    DAY_OF_YEAR = "day-of-year"
    """Day and month without a year ("14 March")."""
    RANGE = "range"
    """From one date to another (``iso`` is ``start/end``)."""


class DateFact(Frozen):
    """A date as written and as ISO 8601 (``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD``, ``--MM-DD``,
    or ``start/end`` for a range)."""

    text: str = Field(description="The date as written in the evidence or the claim.")
    iso: str
    precision: DatePrecision


class PlaceFact(Frozen):
    """A place named in the evidence or the claim, with its gazetteer entry when it has one."""

    text: str = Field(description="The place as written.")
    label: str | None = Field(None, description="The gazetteer's label ('Lyon, FR').")
    latitude: float | None = None
    longitude: float | None = None
    country: str | None = Field(None, description="ISO 3166-1 alpha-2 code, when resolved.")


class QuantityFact(Frozen):
    """A number as written ("12,000") and its value (thousands separators removed)."""

    text: str
    value: float


class Facts(Frozen):
    """What one argument (observed) or one subclaim (claimed) states, typed."""

    dates: tuple[DateFact, ...] = ()
    places: tuple[PlaceFact, ...] = ()
    quantities: tuple[QuantityFact, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.dates or self.places or self.quantities)
