"""How camera metadata's capture time and GPS position compare with a reported date or place.

The metadata-contradiction relation of A-QBAF MV2026 §2.5 (``semv.reasoning.build_relations``)
asks these questions; the answers need the one date parser (``dates``) and the gazetteer
(``places``), so they live here and reach the pure reasoning as a :class:`CaptureChecks`
object built by the caller from ``offline.time_tolerance_days``,
``offline.place_tolerance_km`` and ``offline.gps_country_max_km``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from semv.model import DateFact, PlaceFact
from semv.nlp import places
from semv.nlp.dates import Agreement, DateMention, capture_agreement, from_iso

__all__ = ["CaptureChecks"]


def _capture(timestamp: str) -> DateMention | None:
    if not timestamp:
        return None
    mention = from_iso(timestamp.strip())  # the date of an ISO 8601 timestamp
    return mention if mention is not None and mention.day is not None else None


@dataclass(frozen=True)
class CaptureChecks:
    """Date and place comparisons with the tolerances of the ``offline`` section."""

    time_tolerance_days: int
    place_tolerance_km: float
    gps_country_max_km: float

    def capture_day(self, timestamp: str) -> str | None:
        """The ISO day of an ISO 8601 capture timestamp; None without a day."""
        mention = _capture(timestamp)
        return None if mention is None else mention.iso

    def date_contradicted(self, reported: Sequence[DateFact], timestamp: str) -> DateFact | None:
        """The first reported date when none of them agrees with the capture date (and at
        least one is comparable), else None."""
        captured = _capture(timestamp)
        if captured is None:
            return None
        verdicts: list[tuple[DateFact, Agreement]] = []
        for fact in reported:
            mention = from_iso(fact.iso)
            if mention is None:
                continue
            agreement = capture_agreement(mention, captured, self.time_tolerance_days)[0]
            verdicts.append((fact, agreement))
        comparable = [(f, v) for f, v in verdicts if v is not Agreement.INCOMPARABLE]
        if not comparable or any(v is Agreement.AGREE for _, v in comparable):
            return None
        return comparable[0][0]

    def place_contradicted(self, fact: PlaceFact, lat: float, lon: float) -> bool | None:
        """Whether a GPS point contradicts a reported place: True, False, or None (undecidable:
        the place is unknown to the gazetteer or the point too remote to put in a country)."""
        named = places.candidates(fact.text)
        place = next((p for p in named if fact.label and p.label == fact.label), None)
        place = place or places.resolve(fact.text)
        if place is None or place.latitude is None or place.longitude is None:
            return None
        if place.kind is places.PlaceKind.CITY:
            km = places.haversine_km(lat, lon, place.latitude, place.longitude)
            return km > self.place_tolerance_km
        near, near_km = places.nearest_city(lat, lon)
        if near_km > self.gps_country_max_km:
            return None
        if place.kind is places.PlaceKind.COUNTRY:
            return near.country != place.country
        if place.kind is places.PlaceKind.STATE:
            return (near.country, near.admin1) != (place.country, place.admin1)
        return near.continent != place.continent
