"""The offline proponent/opponent rules: one function per dimension, evidence item → findings.

Each rule compares what the subclaim asserts with what one evidence item says and returns at most
one ``Finding`` (a support or an attack) per item: its text states the actual values compared,
``key_facts`` are the literal tokens of the evidence it rests on (checked by the verifier).
The rules are pure functions of (subclaim facts, claim text, evidence item, config), so the
verifier can re-derive a metadata comparison from the evidence.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from semv.config import OfflineAgentConfig
from semv.model import Dimension, Evidence, Modality, SourceType, Stance, Subclaim, UncertaintyCode
from semv.nlp import places as _places
from semv.nlp.dates import (
    Agreement,
    DateMention,
    capture_agreement,
    compare,
    from_iso,
    parse_one,
    signed_days,
)
from semv.nlp.entities import (
    PlaceMention,
    TextFacts,
    extract,
    person_matches,
    place_key,
)
from semv.nlp.markers import editor_in, recontext_marker
from semv.nlp.places import Place, PlaceKind
from semv.nlp.quantities import numbers
from semv.nlp.similarity import similarity
from semv.nlp.text import content_words, fold, normalize_token, tokens

__all__ = ["RULES", "ClaimView", "Finding", "is_metadata", "rule_for", "signal_kind"]

MAX_KEY_FACTS = 5
SNIPPET_CHARS = 160

_DATE_SOURCES = frozenset({SourceType.PRIOR_CAPTION, SourceType.FACT_CHECK, SourceType.FORENSIC})
"""Text sources whose ``published`` date is a date of the media itself (it existed by then)."""


@dataclass(frozen=True)
class Finding:
    stance: Stance
    text: str
    evidence: tuple[str, ...]
    key_facts: tuple[str, ...] = ()
    uncertainty: tuple[UncertaintyCode, ...] = ()


@dataclass
class ClaimView:
    """What a subclaim asserts, resolved once per argue/verify call."""

    subclaim: Subclaim
    claim_text: str
    language: str | None = None
    _cache: dict[str, object] = field(default_factory=dict)

    @cached_property
    def claim(self) -> TextFacts:
        return extract(self.claim_text, self.language)

    @cached_property
    def dates(self) -> list[DateMention]:
        out = []
        for iso in self.subclaim.facts.dates:
            parsed = from_iso(iso)
            if parsed is not None:
                out.append(parsed)
        return out

    @cached_property
    def place_mentions(self) -> list[PlaceMention]:
        names = list(self.subclaim.facts.places)
        resolved = _places.resolve_all(names)
        return [PlaceMention(n, p) for n, p in zip(names, resolved, strict=True)]

    @cached_property
    def places(self) -> list[Place]:
        return _places.specific([m.place for m in self.place_mentions if m.place is not None])

    @cached_property
    def place_keys(self) -> set[str]:
        return {place_key(m.text) for m in self.place_mentions} | {
            place_key(m.name) for m in self.place_mentions
        }

    @cached_property
    def people(self) -> tuple[str, ...]:
        return self.subclaim.facts.people

    @cached_property
    def organizations(self) -> tuple[str, ...]:
        return self.subclaim.facts.organizations

    @cached_property
    def groups(self) -> tuple[str, ...]:
        return self.subclaim.facts.groups


_QUOTED = re.compile(r"“[^“”]{1,400}”|\"[^\"]{1,400}\"|«[^«»]{1,400}»|„[^„“”]{1,400}[“”]")
"""A quotation: what the source reports someone said, not what it asserts."""


def asserted_text(text: str) -> str:
    """``text`` with quotations of three or more words blanked out.

    A fact-check that writes *the photo shared as "Paris under water, 14 March 2024" was
    taken in Lyon* asserts Lyon, not Paris: places, dates and names inside the quoted claim
    are reported speech, so the where/when/who rules do not read them as the source's own.
    Short quotations ("vibration therapy") are names or terms and stay.
    """

    def blank(match: re.Match[str]) -> str:
        quoted = match.group(0)
        return " " * len(quoted) if len(quoted.split()) >= 3 else quoted

    return _QUOTED.sub(blank, text)


def is_metadata(ev: Evidence) -> bool:
    return ev.modality is Modality.METADATA or ev.source_type is SourceType.METADATA


_OBSERVATION_KINDS = frozenset({"file", "container", "keyframes", "visual", "description"})
"""Media evidence that records measurements (hashes, streams, frames, colours), not text
anyone wrote or said: the text rules do not read it."""

_MEDIA_TEXT = {
    "ocr": "the text read in the media (OCR)",
    "transcript": "the speech in the media (ASR)",
}
"""Text found in the case's own media: compared for dates, places, names and numbers, but it
neither describes the scene nor is a caption of it."""


def media_kind(ev: Evidence) -> str:
    """``data["kind"]`` of media evidence (``ocr``, ``transcript``, ``keyframes``...), or ""."""
    kind = ev.data.get("kind")
    return kind if isinstance(kind, str) else ""


def is_observation(ev: Evidence) -> bool:
    """A measurement, not a text: skipped by the text rules."""
    return media_kind(ev) in _OBSERVATION_KINDS


def is_media_text(ev: Evidence) -> bool:
    """OCR or speech transcript of the case's media."""
    return media_kind(ev) in _MEDIA_TEXT


def _cap(text: str) -> str:
    """``text`` with its first letter upper-cased (``str.capitalize`` would lower "OCR")."""
    return text[:1].upper() + text[1:]


def _kind(ev: Evidence) -> str:
    if is_media_text(ev):
        return _MEDIA_TEXT[media_kind(ev)]
    return {
        SourceType.PRIOR_CAPTION: "the prior caption",
        SourceType.FACT_CHECK: "the fact-check",
        SourceType.NEWS: "the news report",
        SourceType.SUPPLIED: "the supplied evidence",
    }.get(ev.source_type, "the evidence")


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1].rstrip() + "…"


def _days(n: int) -> str:
    return f"{n:,} day" + ("" if n == 1 else "s")


def _capture(ev: Evidence) -> tuple[DateMention, dt.datetime | None] | None:
    raw = ev.data.get("capture_time")
    if not raw:
        return None
    text = str(raw).strip()
    stamp: dt.datetime | None = None
    try:
        stamp = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        stamp = None
    mention = from_iso(text[:10])
    if mention is None or mention.day is None:
        return None
    return mention, stamp


# ---- when --------------------------------------------------------------------------------


def _best_pair(
    claimed: list[DateMention], observed: list[DateMention], tolerance: int, capture: bool
) -> tuple[Agreement, DateMention, DateMention, int | None] | None:
    """The agreeing pair if any, else the closest disagreeing pair, else None.

    ``capture``: the observed dates are capture times, compared by ``capture_agreement`` (the
    one EXIF-versus-claim check, shared with ReMMD); else dates at their common precision."""
    agree: tuple[Agreement, DateMention, DateMention, int | None] | None = None
    disagree: tuple[Agreement, DateMention, DateMention, int | None] | None = None
    for c in claimed:
        for o in observed:
            result, gap = (
                capture_agreement(c, o, tolerance) if capture else compare(c, o, tolerance)
            )
            if result is Agreement.AGREE and agree is None:
                agree = (result, c, o, gap)
            elif result is Agreement.DISAGREE:
                key = gap if gap is not None else 10**9
                if disagree is None or key < (disagree[3] if disagree[3] is not None else 10**9):
                    disagree = (result, c, o, gap)
    return agree or disagree


def _gap_text(c: DateMention, o: DateMention, gap: int | None) -> str:
    signed = signed_days(c, o)
    if signed is not None and gap is not None and gap > 0:
        return f"{_days(gap)} {'before' if signed < 0 else 'after'}"
    if gap is not None and gap > 0:
        return f"{_days(gap)} apart from"
    return "different from"


def when_rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    claimed = view.dates
    if not claimed:
        return []
    tol = cfg.time_tolerance_days
    if is_metadata(ev):
        cap = _capture(ev)
        if cap is None:
            return []
        mention, _ = cap
        pair = _best_pair(claimed, [mention], tol, True)
        if pair is None:
            return []
        result, c, o, gap = pair
        unc: tuple[UncertaintyCode, ...] = ()
        note = ""
        if ev.data.get("timezone_known") is False:
            unc = (UncertaintyCode.TIMEZONE_UNKNOWN,)
            note = " (camera time zone unknown: the date may be off by one day)"
        if result is Agreement.AGREE:
            text = (
                f"EXIF capture time {o.iso} ({ev.id}) agrees with the claimed date {c.iso} "
                f"(within {_days(tol)}){note}."
            )
            return [Finding(Stance.SUPPORT, text, (ev.id,), (o.iso,), unc)]
        text = (
            f"EXIF capture time {o.iso} ({ev.id}) is {_gap_text(c, o, gap)} the claimed date "
            f"{c.iso}{note}."
        )
        return [
            Finding(
                Stance.ATTACK,
                text,
                (ev.id,),
                (o.iso,),
                (*unc, UncertaintyCode.METADATA_CLAIM_CONFLICT),
            )
        ]
    if is_observation(ev):
        return []
    observed = list(extract(asserted_text(ev.content), view.language).dates)
    pair = _best_pair(claimed, observed, tol, False) if observed else None
    findings: list[Finding] = []
    if pair is not None:
        result, c, o, gap = pair
        src = _kind(ev)
        if result is Agreement.AGREE:
            text = (
                f"{_cap(src)} ({ev.id}) dates the scene to {o.text!r} ({o.iso}), "
                f"in agreement with the claimed {c.iso}."
            )
            findings.append(Finding(Stance.SUPPORT, text, (ev.id,), (o.text,)))
        else:
            text = (
                f"{_cap(src)} ({ev.id}) dates the scene to {o.text!r} ({o.iso}), "
                f"{_gap_text(c, o, gap)} the claimed {c.iso}."
            )
            findings.append(Finding(Stance.ATTACK, text, (ev.id,), (o.text,)))
    elif ev.published and ev.source_type in _DATE_SOURCES:
        published = parse_one(ev.published)
        if published is not None and published.year is not None:
            dated = [(iv[0], c) for c in claimed if (iv := c.interval()) is not None]
            earliest = min(dated, key=lambda pair: pair[0])[1] if dated else None
            if earliest is not None:
                result, gap = compare(earliest, published, tol, intervals=True)
                signed = signed_days(earliest, published)
                if result is Agreement.DISAGREE and signed is not None and signed < 0:
                    text = (
                        f"The media was already published on {published.iso} ({ev.id}), "
                        f"{_days(gap or 0)} before the claimed {earliest.iso}."
                    )
                    findings.append(Finding(Stance.ATTACK, text, (ev.id,), (published.iso,)))
    return findings


# ---- where -------------------------------------------------------------------------------


def _gps(ev: Evidence) -> tuple[float, float] | None:
    lat, lon = ev.data.get("latitude"), ev.data.get("longitude")
    if not isinstance(lat, int | float) or not isinstance(lon, int | float):
        return None
    return float(lat), float(lon)


def _gps_relation(
    place: Place, lat: float, lon: float, tol: float, country_km: float
) -> tuple[bool, str]:
    near, near_km = _places.nearest_city(lat, lon)
    coords = f"EXIF GPS {lat:.4f}, {lon:.4f}"
    if place.kind is PlaceKind.CITY:
        assert place.latitude is not None and place.longitude is not None
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


def where_rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    if not view.place_mentions:
        return []
    tol = cfg.place_tolerance_km
    if is_metadata(ev):
        gps = _gps(ev)
        if gps is None or not view.places:
            return []
        lat, lon = gps
        facts = (f"{lat:.4f}", f"{lon:.4f}")
        results = [_gps_relation(p, lat, lon, tol, cfg.gps_country_max_km) for p in view.places]
        for ok, text in results:
            if ok:
                return [Finding(Stance.SUPPORT, f"{text} ({ev.id}).", (ev.id,), facts)]
        texts = [t for ok, t in results if t]
        if not texts:
            return []
        return [
            Finding(
                Stance.ATTACK,
                f"{texts[0]} ({ev.id}).",
                (ev.id,),
                facts,
                (UncertaintyCode.METADATA_CLAIM_CONFLICT,),
            )
        ]
    if is_observation(ev):
        return []
    observed = extract(asserted_text(ev.content), view.language)
    if not observed.places:
        return []
    src = _cap(_kind(ev))
    # same place by name (also for places no gazetteer knows: "Borno" ~ "Borno State")
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
    if conflict:
        c, m, rel = conflict[0]
        assert m.place is not None
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


def _claimed_places(view: ClaimView) -> str:
    labels = [p.label for p in view.places] or [m.text for m in view.place_mentions]
    return "; ".join(dict.fromkeys(labels))


# ---- who ---------------------------------------------------------------------------------


def _mentions_surname(name: str, text: str) -> str | None:
    words = tokens(name)
    if not words:
        return None
    surname = words[-1]
    if len(surname) < 4:
        return None
    match = re.search(r"\b" + re.escape(surname) + r"\b", fold(text))
    if match is None:
        return None
    return text[match.start() : match.end()] if len(fold(text)) == len(text) else surname


def group_key(name: str) -> str:
    """'Ukrainians' and 'Ukrainian' compare equal (plural demonyms)."""
    key = fold(name)
    return key[:-1] if key.endswith("s") and not key.endswith("ss") else key


def _group_finding(view: ClaimView, ev: Evidence, observed: TextFacts) -> list[Finding]:
    """Nationality/group agreement: the claim says the people are X, the evidence says Y."""
    if not view.groups or not observed.groups:
        return []
    claimed = {group_key(g): g for g in view.groups}
    seen = {group_key(g): g for g in observed.groups}
    shared = [seen[k] for k in seen if k in claimed]
    src = _cap(_kind(ev))
    if shared:
        text = f"{src} ({ev.id}) also describes the people as {', '.join(shared)}."
        return [Finding(Stance.SUPPORT, text, (ev.id,), tuple(shared)[:MAX_KEY_FACTS])]
    others = list(seen.values())
    text = (
        f"The claim describes the people shown as {', '.join(view.groups)}, but "
        f"{_kind(ev)} ({ev.id}) describes them as {', '.join(others)}."
    )
    return [Finding(Stance.ATTACK, text, (ev.id,), tuple(others)[:MAX_KEY_FACTS])]


def who_rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    claimed = tuple(view.people) + tuple(view.organizations)
    if not (claimed or view.groups) or is_metadata(ev) or is_observation(ev):
        return []
    observed = extract(asserted_text(ev.content), view.language)
    names = tuple(observed.people) + tuple(observed.organizations)
    matched: list[tuple[str, str]] = []
    for c in claimed:
        hit = next((n for n in names if person_matches(c, n) or fold(c) == fold(n)), None)
        if hit is None and c in view.people:
            surname = _mentions_surname(c, ev.content)
            hit = surname
        if hit is not None:
            matched.append((c, hit))
    src = _cap(_kind(ev))
    if matched:
        shown = ", ".join(dict.fromkeys(h for _, h in matched))
        claimed_names = ", ".join(dict.fromkeys(c for c, _ in matched))
        text = f"{src} ({ev.id}) also names {shown}, as the claim does ({claimed_names})."
        return [
            Finding(
                Stance.SUPPORT,
                text,
                (ev.id,),
                tuple(dict.fromkeys(h for _, h in matched))[:MAX_KEY_FACTS],
            )
        ]
    others = [
        p for p in observed.people if not any(person_matches(p, o) for o in view.organizations)
    ]
    if view.people and others:
        text = (
            f"The claim names {', '.join(view.people)}, but {_kind(ev)} ({ev.id}) identifies "
            f"{', '.join(others)} instead."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), tuple(others)[:MAX_KEY_FACTS])]
    return _group_finding(view, ev, observed)


# ---- what --------------------------------------------------------------------------------


def _surface_words(words: set[str], text: str, limit: int = MAX_KEY_FACTS) -> tuple[str, ...]:
    """Evidence tokens (as written) whose normalized form is in ``words``, in text order."""
    out: list[str] = []
    for match in re.finditer(r"[^\W_]+", text):
        token = match.group(0)
        norm = normalize_token(fold(token))
        if norm in words and token not in out:
            out.append(token)
            words = words - {norm}
        if len(out) >= limit:
            break
    return tuple(out)


def _number_finding(view: ClaimView, ev: Evidence) -> list[Finding]:
    """OCR/ASR text that states a number the claim states (a count, a score, a toll)."""
    claimed = numbers(view.claim_text)
    if not claimed:
        return []
    seen = numbers(ev.content)
    shared = [value for value in claimed if value in seen]
    if not shared:
        return []
    facts = tuple(seen[v] for v in shared)[:MAX_KEY_FACTS]
    text = (
        f"{_cap(_kind(ev))} ({ev.id}) states {', '.join(facts)}, as the claim does: "
        f"“{_snippet(ev.content)}”."
    )
    return [Finding(Stance.SUPPORT, text, (ev.id,), facts)]


def what_rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    if is_metadata(ev) or is_observation(ev) or not ev.content.strip():
        return []
    if is_media_text(ev):
        return _number_finding(view, ev)
    claim_scene = view.claim.scene
    ev_scene = extract(ev.content, view.language).scene
    if not content_words(claim_scene) or not content_words(ev_scene):
        return []  # one side names only who/where/when: nothing depicted to compare
    sim = similarity(claim_scene, ev_scene, cfg)
    shared = content_words(claim_scene) & content_words(ev_scene)
    src = _cap(_kind(ev))
    emb = f", embedding {sim.embedding:.2f}" if sim.embedding is not None else ""
    if sim.value >= cfg.overlap_support:
        facts = _surface_words(shared, ev_scene)
        detail = f"shared: {', '.join(facts)}; " if facts else ""
        text = (
            f"{src} ({ev.id}) describes the same scene as the claim ({detail}similarity "
            f"{sim.value:.2f}: lexical {sim.lexical:.2f}{emb}): “{_snippet(ev.content)}”."
        )
        return [Finding(Stance.SUPPORT, text, (ev.id,), facts)]
    if sim.value <= cfg.overlap_attack:
        own = _surface_words(content_words(ev_scene) - shared, ev_scene, 3)
        text = (
            f"{src} ({ev.id}) describes a different scene ({', '.join(own)}; similarity "
            f"{sim.value:.2f}: lexical {sim.lexical:.2f}{emb}): “{_snippet(ev.content)}”."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), own)]
    return []


# ---- why (caption context) ---------------------------------------------------------------


def _shared_entities(view: ClaimView, observed: TextFacts, tol: float) -> tuple[str, ...]:
    shared: list[str] = []
    for m in observed.places:
        if place_key(m.text) in view.place_keys or (
            m.place is not None
            and any(
                _places.relation(c, m.place, tol) in (_places.Relation.SAME, _places.Relation.NEAR)
                for c in view.places
            )
        ):
            shared.append(m.text)
    claim_names = (
        tuple(view.claim.people) + tuple(view.claim.organizations) + tuple(view.claim.events)
    )
    claim_names += tuple(m.text for m in view.claim.places if m.place is None)
    observed_names = (
        tuple(observed.people)
        + tuple(observed.organizations)
        + tuple(observed.events)
        + tuple(m.text for m in observed.places if m.place is None)
    )
    for n in observed_names:
        if any(person_matches(c, n) or _names_overlap(c, n) for c in claim_names):
            shared.append(n)
    return tuple(dict.fromkeys(shared))


def _names_overlap(a: str, b: str) -> bool:
    """Equal names, or a multi-word name inside the other ("Grand National" in "the Randox
    Grand National Festival")."""
    fa, fb = fold(a), fold(b)
    if fa == fb:
        return True
    return (len(fa.split()) >= 2 and f" {fa} " in f" {fb} ") or (
        len(fb.split()) >= 2 and f" {fb} " in f" {fa} "
    )


def why_rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    if is_metadata(ev) or is_observation(ev) or not ev.content.strip():
        return []
    src = _cap(_kind(ev))
    marker = recontext_marker(ev.content)
    if marker is not None:
        label, phrase = marker
        what = {
            "refutation": "disputes the claimed context",
            "origin": "gives the media another origin",
            "fiction": "describes the media as staged, artificial or fictional",
        }[label]
        text = f"{src} ({ev.id}) {what} (“{phrase}”): “{_snippet(ev.content)}”."
        return [Finding(Stance.ATTACK, text, (ev.id,), (phrase,))]
    sim = similarity(view.claim_text, ev.content, cfg)
    observed = extract(ev.content, view.language)
    shared = _shared_entities(view, observed, cfg.place_tolerance_km)
    if not shared and describes_same_media(ev) and sim.value < cfg.context_attack:
        # Two captions of the same media that share no named entity and describe different
        # events: the claimed context is not the one the media was published with.
        text = (
            f"{src} ({ev.id}) is a caption of the same media that describes a different "
            f"event (similarity {sim.value:.2f} < {cfg.context_attack:.2f}) and names none "
            f"of the claim's people or places: “{_snippet(ev.content)}”."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), ())]
    if shared:
        text = (
            f"{src} ({ev.id}) restates the claimed event with the same entities "
            f"({', '.join(shared)}; similarity {sim.value:.2f})."
        )
        return [Finding(Stance.SUPPORT, text, (ev.id,), shared[:MAX_KEY_FACTS])]
    claim_entities = _entities(view.claim)
    ev_entities = _entities(observed)
    if claim_entities and ev_entities and not shared and not _places_related(view, observed, cfg):
        text = (
            f"{src} ({ev.id}) ties the media to other people, places or events "
            f"({', '.join(ev_entities[:4])}) and names none of the claim's "
            f"({', '.join(claim_entities[:4])}); similarity {sim.value:.2f}."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), tuple(ev_entities[:3]))]
    return []


def describes_same_media(ev: Evidence) -> bool:
    """A text that describes the case's own media: a prior caption, or any text evidence tied
    to one of the case's assets (``location.asset_id``)."""
    if is_metadata(ev) or is_observation(ev) or is_media_text(ev):
        return False
    return ev.source_type is SourceType.PRIOR_CAPTION or ev.location is not None


def _entities(facts: TextFacts) -> list[str]:
    names = [m.text for m in facts.places] + list(facts.people) + list(facts.organizations)
    names += list(facts.events)
    return list(dict.fromkeys(names))


def _places_related(view: ClaimView, observed: TextFacts, cfg: OfflineAgentConfig) -> bool:
    """Any claimed place equal to, near, containing or inside a place the evidence names."""
    claimed = [m.place for m in view.claim.places if m.place is not None]
    for c in claimed:
        for m in observed.places:
            if m.place is not None and _places.relation(c, m.place, cfg.place_tolerance_km).agrees:
                return True
    return False


# ---- authenticity ------------------------------------------------------------------------


def authenticity_rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    if not is_metadata(ev) or is_observation(ev):
        return []  # file hash and container streams restate no camera or editor claim
    software = str(ev.data.get("software") or "").strip()
    editor = editor_in(software) if software else None
    if editor is not None:
        text = (
            f"EXIF Software tag {software!r} ({ev.id}) names an image editor: the file was "
            f"edited with {editor}."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), (software,))]
    camera = " ".join(str(ev.data.get(k) or "").strip() for k in ("make", "model")).strip()
    if not camera:
        return []
    cap = _capture(ev)
    modified = str(ev.data.get("modify_time") or "").strip()
    if cap is not None and cap[1] is not None and modified:
        try:
            mod = dt.datetime.fromisoformat(modified.replace("Z", "+00:00"))
            a, b = cap[1].replace(tzinfo=None), mod.replace(tzinfo=None)
            if abs((b - a).total_seconds()) > cfg.modify_gap_max_hours * 3600:
                return []
        except ValueError:
            return []
    when = f" with capture time {cap[0].iso}" if cap is not None else ""
    facts = tuple(str(ev.data.get(k)).strip() for k in ("make", "model") if ev.data.get(k))
    text = (
        f"EXIF names the capturing camera ({camera}){when} and no editing software; the "
        f"timestamps are consistent ({ev.id}). Weak evidence of an unedited capture."
    )
    return [Finding(Stance.SUPPORT, text, (ev.id,), facts)]


Rule = Callable[[ClaimView, Evidence, OfflineAgentConfig], list[Finding]]

RULES: dict[Dimension, Rule] = {
    Dimension.WHAT: what_rule,
    Dimension.WHERE: where_rule,
    Dimension.WHEN: when_rule,
    Dimension.WHO: who_rule,
    Dimension.WHY: why_rule,
    Dimension.AUTHENTICITY: authenticity_rule,
}


def rule_for(dimension: Dimension) -> Rule:
    rule = RULES[dimension]

    def with_media_signals(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
        if signal_kind(ev) is None:
            return rule(view, ev, cfg)
        return media_signal_rule(dimension, rule, view, ev, cfg)

    return with_media_signals


# ---- media signals: forensics, content credentials, reverse-search matches ----------------

FORENSIC_KINDS = frozenset({"forensic-map", "forensic-combined", "jpeg-structure", "border-cues"})
REVERSE_MATCH = "reverse-search-match"
C2PA = "c2pa"
_CAPTION_DIMENSIONS = frozenset({Dimension.WHERE, Dimension.WHO, Dimension.WHY})
"""Dimensions whose text rules read a reverse-search match's caption."""


def signal_kind(ev: Evidence) -> str | None:
    """The ``data["kind"]`` of an item from the forensic, C2PA or reverse-search extractors."""
    kind = ev.data.get("kind")
    if kind in FORENSIC_KINDS or kind in (REVERSE_MATCH, C2PA):
        return str(kind)
    return None


def media_signal_rule(
    dimension: Dimension, rule: Rule, view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig
) -> list[Finding]:
    """Forensic and C2PA items bear on authenticity only; a reverse-search match bears on
    when (its first-seen date) and, through its caption, on where, who and why."""
    kind = signal_kind(ev)
    if kind == REVERSE_MATCH:
        if dimension is Dimension.WHEN:
            return _earlier_match(view, ev, cfg)
        caption = str(ev.data.get("caption") or "").strip()
        if dimension in _CAPTION_DIMENSIONS and caption:
            return rule(view, ev.model_copy(update={"content": caption, "published": None}), cfg)
        return []
    if dimension is not Dimension.AUTHENTICITY:
        return []
    if kind == C2PA:
        return _c2pa_finding(ev)
    if kind == "forensic-combined":
        return _forensic_finding(ev)
    if kind == "jpeg-structure":
        markers = str(ev.data.get("editor_markers") or "")
        if "Photoshop" in markers:
            text = (
                f"The JPEG container ({ev.id}) carries Adobe Photoshop image resources: "
                f"the file was saved by an image editor."
            )
            return [Finding(Stance.ATTACK, text, (ev.id,), ("Adobe Photoshop",))]
    return []


def _forensic_finding(ev: Evidence) -> list[Finding]:
    score, threshold = ev.data.get("region_score"), ev.data.get("threshold")
    if not isinstance(score, int | float) or not isinstance(threshold, int | float):
        return []
    traces = str(ev.data.get("editing_traces") or "")
    if score < threshold or not traces:
        # No localized anomaly is not evidence of an unedited image; an anomaly without an
        # editing trace in the container is too common in authentic photos to argue from
        # (the map flags 63% of the COSMOS news photos; benchmarks/forensics.py).
        return []
    region = str(ev.data.get("region") or "")
    text = (
        f"The combined forensic map ({ev.id}: ELA, noise residual, JPEG ghost) scores "
        f"{score:.2f} at or above the threshold {threshold:.2f} in the region {region}, and "
        f"the file shows editing traces ({traces}): that region was compressed or captured "
        f"differently from the rest of the image."
    )
    return [
        Finding(
            Stance.ATTACK,
            text,
            (ev.id,),
            (f"{score:.2f}",),
            (UncertaintyCode.FORENSIC_ANOMALY,),
        )
    ]


def _c2pa_finding(ev: Evidence) -> list[Finding]:
    state = str(ev.data.get("validation_state") or "")
    signer = str(ev.data.get("signer") or "")
    if ev.data.get("hash_mismatch"):
        text = (
            f"The C2PA manifest ({ev.id}, signed by {signer}) no longer matches the file: "
            f"validation state {state}, failures {ev.data.get('failures')}. The content was "
            f"altered after it was signed."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), (state, "mismatch"))]
    if ev.data.get("ai_generated"):
        text = (
            f"The C2PA manifest ({ev.id}, signed by {signer}) declares the media as generated "
            f"by an algorithm or AI (actions: {ev.data.get('actions')})."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), ("trainedAlgorithmicMedia",))]
    if ev.data.get("edited"):
        text = (
            f"The C2PA manifest ({ev.id}, signed by {signer}) declares edits to the content "
            f"(actions: {ev.data.get('actions')})."
        )
        return [Finding(Stance.ATTACK, text, (ev.id,), (signer,))]
    if state in ("Valid", "Trusted"):
        trust = "a trusted" if state == "Trusted" else "an untrusted but intact"
        text = (
            f"The C2PA manifest ({ev.id}) validates ({state}) with {trust} signature by "
            f"{signer} and declares no edits or AI generation."
        )
        return [Finding(Stance.SUPPORT, text, (ev.id,), (state, signer))]
    return []


def _earlier_match(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    """A copy first seen before the claimed date: the media predates the claimed event."""
    first = str(ev.data.get("first_seen") or "").strip()
    seen = from_iso(first[:10]) if first else None
    claimed = [(iv[0], c) for c in view.dates if (iv := c.interval()) is not None]
    if seen is None or not claimed:
        return []
    earliest = min(claimed, key=lambda pair: pair[0])[1]
    result, gap = compare(earliest, seen, cfg.time_tolerance_days, intervals=True)
    signed = signed_days(earliest, seen)
    if result is not Agreement.DISAGREE or signed is None or signed >= 0:
        return []
    where = f" at {ev.url}" if ev.url else ""
    text = (
        f"Earlier-context reverse-search match ({ev.id}): the same image was already online "
        f"on {seen.iso}{where}, {_days(gap or 0)} before the claimed {earliest.iso}."
    )
    return [
        Finding(
            Stance.ATTACK,
            text,
            (ev.id,),
            (seen.iso,),
            (UncertaintyCode.EARLIER_CONTEXT_MATCH,),
        )
    ]
