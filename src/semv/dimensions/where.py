"""``where``: the claimed place of the events (claim type "place").

- **Statement**: "The events took place in Lyon, France" from the claimed places (the case's
  claimed location first), as the gazetteer labels them.
- **Plan**: does EXIF GPS fall within ``place_tolerance_km`` of each claimed place; do captions
  or reports place the media there.
- **Offline rule**: EXIF GPS against the claimed place (distance to a city; the nearest known
  city's country, state or continent for a wider place); a place a text names for the scene,
  by name or by containment and distance (quotations are not read). A retrieved item attacks
  only when it refers to this media or event (``refers_to_case``).
- **Signals**: a reverse-search match's caption is read as a text about the media.
- **Facts**: claimed places with coordinates; an argument's place names and coordinates.
- **Report**: the "Where" section; MV2026 field ``location``.
"""

from __future__ import annotations

from semv.config import OfflineAgentConfig
from semv.dimensions._common import (
    MAX_KEY_FACTS,
    ClaimView,
    Finding,
    asserted_text,
    capitalized,
    is_metadata,
    is_observation,
    metadata_doubt,
    refers_to_case,
    source_phrase,
)
from semv.dimensions._spec import CaseFacts, DimensionSpec, PlanSeed, ReportSection, Statement
from semv.dimensions._typing import place_facts, quantity_fact
from semv.model import (
    ClaimFacts,
    Dimension,
    Distortion,
    Evidence,
    Exif,
    Facts,
    Modality,
    Scope,
    SourceType,
    Stance,
    Subclaim,
    UncertaintyCode,
)
from semv.nlp import places as _places
from semv.nlp.entities import PlaceMention, extract, place_key
from semv.nlp.places import Place, PlaceKind

__all__ = ["WHERE", "where_rule"]


def statement(case: CaseFacts) -> Statement:
    places = case.facts.places
    return Statement(
        text=f"The events took place in {'; '.join(case.place_labels)}"
        if places
        else "The place of the events (not stated in the claim)",
        asserted=bool(places),
        facts=ClaimFacts(places=places),
    )


def plan(subclaim: Subclaim, cfg: OfflineAgentConfig) -> PlanSeed:
    f = subclaim.facts
    questions: list[str] = []
    queries: list[str] = []
    for place in f.places or ("the claimed place",):
        questions.append(f"Does EXIF GPS fall within {cfg.place_tolerance_km:g} km of {place}?")
        questions.append(f"Do captions or reports place the media in {place}?")
        queries.append(f"{place} {' '.join(f.keywords[:3])}".strip())
    return PlanSeed(
        questions=tuple(questions),
        checks=(
            "exif:gps distance to the claimed place",
            "text: places named by evidence (containment)",
        ),
        queries=tuple(queries),
    )


def _gps(ev: Evidence) -> tuple[float, float] | None:
    exif = ev.observed(Exif)
    if exif is None or exif.latitude is None or exif.longitude is None:
        return None
    return float(exif.latitude), float(exif.longitude)


def _gps_relation(
    place: Place, lat: float, lon: float, tol: float, country_km: float
) -> tuple[bool, str]:
    near, near_km = _places.nearest_city(lat, lon)
    coords = f"EXIF GPS {lat:.4f}, {lon:.4f}"
    if place.kind is PlaceKind.CITY:
        if place.latitude is None or place.longitude is None:
            raise ValueError(f"city {place.name!r} has no coordinates")
        km = _places.haversine_km(lat, lon, place.latitude, place.longitude)
        if km <= tol:
            return True, f"{coords} lies {km:,.0f} km from the claimed {place.label}"
        return False, (
            f"{coords} lies {km:,.0f} km from the claimed {place.label}; the nearest known "
            f"city is {near.label} ({near_km:,.0f} km)"
        )
    if near_km > country_km:
        return False, ""  # too remote to place in a country by nearest city
    if place.kind is PlaceKind.COUNTRY:
        ok = near.country == place.country
    elif place.kind is PlaceKind.STATE:
        ok = near.country == place.country and near.admin1 == place.admin1
    else:
        ok = near.continent == place.continent
    if ok:
        return True, f"{coords} lies in {place.label} (nearest known city {near.label}), as claimed"
    return False, (
        f"{coords} lies near {near.label} ({near_km:,.0f} km), not in the claimed {place.label}"
    )


def _gps_finding(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    gps = _gps(ev)
    if gps is None:
        return []
    # an ambiguous claimed name the case did not settle is settled by the GPS, last
    settled = [
        p
        for m in view.place_mentions
        if m.place is None and m.rivals
        for p in _places.resolve_all([m.text], gps=gps)
        if p is not None
    ]
    claimed = [*view.places, *settled]
    if not claimed:
        return []
    lat, lon = gps
    facts = (f"{lat:.4f}", f"{lon:.4f}")
    tol = cfg.place_tolerance_km
    results = [_gps_relation(p, lat, lon, tol, cfg.gps_country_max_km) for p in claimed]
    doubt = metadata_doubt(ev, time=False)
    caveat = f"; but {doubt}" if doubt else ""
    doubtful = (UncertaintyCode.METADATA_DOUBTFUL,) if doubt else ()
    for ok, text in results:
        if ok:
            return [
                Finding(Stance.SUPPORT, f"{text} ({ev.id}){caveat}.", (ev.id,), facts, doubtful)
            ]
    texts = [t for ok, t in results if t]
    if not texts:
        return []
    return [
        Finding(
            Stance.ATTACK,
            f"{texts[0]} ({ev.id}){caveat}.",
            (ev.id,),
            facts,
            (*doubtful, UncertaintyCode.METADATA_CLAIM_CONFLICT),
        )
    ]


def _claimed_places(view: ClaimView) -> str:
    labels = [p.label for p in view.places] or [m.text for m in view.place_mentions]
    return "; ".join(dict.fromkeys(labels))


def where_rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    if not view.place_mentions:
        return []
    tol = cfg.place_tolerance_km
    if is_metadata(ev):
        return _gps_finding(view, ev, cfg)
    if is_observation(ev):
        return []
    observed = extract(asserted_text(ev.content), view.language)
    if not observed.places:
        return []
    src = capitalized(source_phrase(ev))
    # same place by name (also for places no gazetteer knows: "Lagos" ~ "Lagos State")
    named = [
        m
        for m in observed.places
        if place_key(m.text) in view.place_keys or place_key(m.name) in view.place_keys
    ]
    agree: list[tuple[Place, PlaceMention]] = []
    conflict: list[tuple[Place, PlaceMention, _places.Relation]] = []
    obs_specific = _places.specific(observed.resolved_places)
    for c in view.places:
        for m in observed.places:
            if m.place is None or m.place not in obs_specific:
                continue
            rel = _places.relation(c, m.place, tol)
            if rel.agrees:
                agree.append((c, m))
            else:
                conflict.append((c, m, rel))
    if named or agree:
        mentions = named + [m for _, m in agree if m not in named]
        labels = ", ".join(dict.fromkeys(m.place.label if m.place else m.text for m in mentions))
        text = (
            f"{src} ({ev.id}) places the scene in {labels}, consistent with the claimed "
            f"{_claimed_places(view)}."
        )
        return [
            Finding(
                Stance.SUPPORT,
                text,
                (ev.id,),
                tuple(dict.fromkeys(m.text for m in mentions))[:MAX_KEY_FACTS],
            )
        ]
    if conflict and refers_to_case(view, ev, tol):
        c, m, rel = conflict[0]
        if m.place is None:
            raise ValueError(f"place mention {m.text!r} was not resolved")
        if rel is _places.Relation.FAR_SAME_COUNTRY:
            km = _places.distance_km(c, m.place)
            how = f"{km:,.0f} km from" if km is not None else "elsewhere than"
        else:
            how = "in another country than"
        text = (
            f"{src} ({ev.id}) places the scene in {m.place.label} ({m.text!r}), {how} the "
            f"claimed {c.label}."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), (m.text,))]
    return []


def claimed(subclaim: Subclaim) -> Facts:
    """The claimed places, with coordinates when the gazetteer knows them."""
    return Facts(places=place_facts(subclaim.facts.places))


def typed(key_facts: tuple[str, ...], language: str | None) -> Facts:
    """Place names and GPS coordinates an argument rests on."""
    quantities = [q for k in key_facts if (q := quantity_fact(k)) is not None]
    numeric = {q.text for q in quantities}
    return Facts(
        places=place_facts([k for k in key_facts if k not in numeric]),
        quantities=tuple(quantities),
    )


WHERE = DimensionSpec(
    dimension=Dimension.WHERE,
    claim_type="place",
    scope=Scope.EVENT,
    statement=statement,
    plan=plan,
    sources=(SourceType.METADATA, SourceType.PRIOR_CAPTION, SourceType.NEWS, SourceType.OFFICIAL),
    fits=frozenset({Modality.METADATA, Modality.TEXT, Modality.IMAGE}),
    rule=where_rule,
    reads_match_caption=True,
    claimed=claimed,
    typed=typed,
    section=ReportSection(key="where", title="Where", order=1),
    remmd_l2=Distortion.C2,
    mv_field="location",
    mv_headings=("where", "location", "geolocation", "place"),
)
