"""Decomposition of a case into the six scoped subclaims, and deterministic research plans."""

from __future__ import annotations

from semv.config import OfflineAgentConfig
from semv.model import (
    Case,
    ClaimFacts,
    Claims,
    Dimension,
    Evidence,
    MemoryView,
    Modality,
    ResearchPlan,
    Scope,
    SourceType,
    Subclaim,
)
from semv.nlp import places as _places
from semv.nlp.dates import from_iso, parse_date
from semv.nlp.entities import extract

__all__ = ["bridge_query", "decompose_case", "media_seeds", "plan_subclaim"]

MAX_QUERIES = 8
MAX_MEDIA_SEEDS = 6
"""Query seeds taken from media text (OCR, transcripts, reverse-search captions)."""
_MEDIA_TEXT = frozenset({Modality.IMAGE, Modality.VIDEO, Modality.AUDIO})
_NOT_SEEDS = frozenset({SourceType.METADATA, SourceType.FORENSIC})
STATEMENT_CHARS = 240

_CLAIM_TYPES: dict[Dimension, str] = {
    Dimension.WHAT: "event",
    Dimension.WHERE: "place",
    Dimension.WHEN: "time",
    Dimension.WHO: "person",
    Dimension.WHY: "context",
    Dimension.AUTHENTICITY: "integrity",
}


def _short(text: str, limit: int = STATEMENT_CHARS) -> str:
    text = " ".join(text.split()).rstrip(" .")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _date_phrase(iso: str) -> str:
    mention = from_iso(iso)
    if mention is None:
        return iso
    if mention.year is None:
        return f"on {iso} (year not stated)"
    if mention.month is None:
        return f"in {iso}"
    if mention.day is None:
        return f"in {iso}"
    return f"on {iso}"


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _unique(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))


def decompose_case(case: Case) -> Claims:
    language = case.context.language
    facts = extract(case.claim, language)
    base = facts.claim_facts()
    places = list(base.places)
    if case.context.location:
        places.insert(0, case.context.location.strip())
    dates = list(base.dates)
    if case.context.date:
        parsed = parse_date(case.context.date, language)
        if parsed is not None:
            dates.insert(0, parsed.iso)
    full = ClaimFacts(
        places=_unique(places),
        dates=_unique(dates),
        people=base.people,
        organizations=base.organizations,
        groups=base.groups,
        events=base.events,
        keywords=base.keywords,
    )
    resolved = _places.resolve_all(list(full.places))
    specific = _places.specific([p for p in resolved if p is not None])
    place_labels = list(
        dict.fromkeys(
            [p.label for p in specific]
            + [n for n, p in zip(full.places, resolved, strict=True) if p is None]
        )
    )
    summary = _short(case.claim)
    seeds = _unique(
        list(full.keywords[:6])
        + list(full.events)
        + list(full.people)
        + list(full.organizations)
        + list(full.places)
        + list(full.dates)
    )
    media_scope = Scope.ASSET if case.media else Scope.CASE

    def sub(
        dim: Dimension, statement: str, asserted: bool, f: ClaimFacts, scope: Scope
    ) -> Subclaim:
        queries = _unique(
            [_short(" ".join((*f.keywords[:4], *f.people, *f.places, *f.dates)), 120), *seeds]
        )
        return Subclaim(
            id=f"claim:{dim.value}",
            dimension=dim,
            statement=statement,
            claim_type=_CLAIM_TYPES[dim],
            scope=scope,
            asserted=asserted,
            facts=f,
            queries=queries[:MAX_QUERIES],
        )

    who_names = list(full.people) + list(full.organizations)
    subclaims = {
        Dimension.WHAT.value: sub(
            Dimension.WHAT,
            f"The media shows: {summary}",
            True,
            ClaimFacts(keywords=full.keywords, events=full.events),
            media_scope,
        ),
        Dimension.WHERE.value: sub(
            Dimension.WHERE,
            f"The events took place in {'; '.join(place_labels)}"
            if full.places
            else "The place of the events (not stated in the claim)",
            bool(full.places),
            ClaimFacts(places=full.places),
            Scope.EVENT,
        ),
        Dimension.WHEN.value: sub(
            Dimension.WHEN,
            f"The events took place {_join([_date_phrase(d) for d in full.dates])}"
            if full.dates
            else "The time of the events (not stated in the claim)",
            bool(full.dates),
            ClaimFacts(dates=full.dates),
            Scope.EVENT,
        ),
        Dimension.WHO.value: sub(
            Dimension.WHO,
            f"The people shown include {_join(who_names)}"
            if who_names
            else f"The people shown are {_join(list(full.groups))}"
            if full.groups
            else "The people shown (not named in the claim)",
            bool(who_names or full.groups),
            ClaimFacts(people=full.people, organizations=full.organizations, groups=full.groups),
            media_scope,
        ),
        Dimension.WHY.value: sub(
            Dimension.WHY,
            f"The media is shared to document {summary}",
            True,
            full,
            Scope.SOURCE,
        ),
        Dimension.AUTHENTICITY.value: sub(
            Dimension.AUTHENTICITY,
            "The media is an authentic, unedited capture",
            True,
            ClaimFacts(),
            media_scope,
        ),
    }
    return Claims(subclaims=subclaims)


_SOURCES: dict[Dimension, tuple[SourceType, ...]] = {
    Dimension.WHAT: (SourceType.PRIOR_CAPTION, SourceType.NEWS, SourceType.FACT_CHECK),
    Dimension.WHERE: (
        SourceType.METADATA,
        SourceType.PRIOR_CAPTION,
        SourceType.NEWS,
        SourceType.OFFICIAL,
    ),
    Dimension.WHEN: (
        SourceType.METADATA,
        SourceType.PRIOR_CAPTION,
        SourceType.NEWS,
        SourceType.FACT_CHECK,
    ),
    Dimension.WHO: (SourceType.NEWS, SourceType.PRIOR_CAPTION, SourceType.OFFICIAL),
    Dimension.WHY: (SourceType.FACT_CHECK, SourceType.PRIOR_CAPTION, SourceType.NEWS),
    Dimension.AUTHENTICITY: (SourceType.METADATA, SourceType.FORENSIC, SourceType.FACT_CHECK),
}


def media_seeds(evidence: tuple[Evidence, ...]) -> tuple[str, ...]:
    """Query seeds from text found in the media: OCR lines, speech transcripts and captions of
    earlier copies (reverse search) — their names, places, dates, events and main keywords."""
    seeds: list[str] = []
    for ev in evidence:
        text_bearing = ev.modality in _MEDIA_TEXT or ev.source_type is SourceType.PRIOR_CAPTION
        if not text_bearing or ev.source_type in _NOT_SEEDS or not ev.content.strip():
            continue
        facts = extract(ev.content).claim_facts()
        seeds += [*facts.people, *facts.organizations, *facts.places, *facts.events]
        seeds += list(facts.dates)
        if facts.keywords:
            seeds.append(" ".join(facts.keywords[:4]))
    return _unique(seeds)[:MAX_MEDIA_SEEDS]


def bridge_query(facts: ClaimFacts) -> str | None:
    """An English bridge query for a non-English claim (ReMMD): the language-independent
    facts — resolved place names in English, ISO dates, names of people, organisations and
    events. Without a translation model the claim's own words are not translated."""
    resolved = _places.resolve_all(list(facts.places))
    places = [p.label for p in resolved if p is not None]
    parts = _unique([*facts.people, *facts.organizations, *facts.events, *places, *facts.dates])
    return " ".join(parts) if parts else None


def plan_subclaim(
    subclaim: Subclaim,
    memory: MemoryView,
    cfg: OfflineAgentConfig,
    language: str | None = None,
) -> ResearchPlan:
    f = subclaim.facts
    dim = subclaim.dimension
    questions: list[str] = []
    checks: list[str] = []
    queries: list[str] = list(subclaim.queries)
    if dim is Dimension.WHAT:
        topic = ", ".join(f.keywords[:6]) or subclaim.statement
        questions += [
            f"Do other descriptions of the media show the same content ({topic})?",
            "Does an earlier caption describe the media differently?",
        ]
        checks += [
            f"scene similarity >= {cfg.overlap_support:g} supports; "
            f"<= {cfg.overlap_attack:g} attacks",
            f"embeddings: {'on' if cfg.embeddings else 'off'}",
        ]
    elif dim is Dimension.WHERE:
        for place in f.places or ("the claimed place",):
            questions.append(f"Does EXIF GPS fall within {cfg.place_tolerance_km:g} km of {place}?")
            questions.append(f"Do captions or reports place the media in {place}?")
            queries.append(f"{place} {' '.join(f.keywords[:3])}".strip())
        checks += [
            "exif:gps distance to the claimed place",
            "text: places named by evidence (containment)",
        ]
    elif dim is Dimension.WHEN:
        for date in f.dates or ("the claimed date",):
            questions.append(
                f"Is the EXIF capture time within {cfg.time_tolerance_days} days of {date}?"
            )
            questions.append(f"Was the media published or dated before {date}?")
        checks += [
            "exif:capture_time vs claimed date",
            "text: dates named by evidence",
            "timezone known?",
        ]
    elif dim is Dimension.WHO:
        for name in (*f.people, *f.organizations) or ("the people shown",):
            questions.append(f"Do other sources identify {name} in the media?")
        checks += ["text: people/organizations named by evidence (surname match)"]
    elif dim is Dimension.WHY:
        questions += [
            "Has a fact-check or earlier caption given the media a different context or origin?",
            "Do independent reports restate the claimed event with the same entities?",
        ]
        queries.append(f"{' '.join(f.keywords[:4])} fact check".strip())
        checks += ["text: refutation / recontextualization markers", "text: shared named entities"]
    else:
        questions += [
            "Does the EXIF Software tag name an image editor?",
            "Are camera make/model and capture/modification times consistent?",
        ]
        checks += ["exif:software", "exif:make/model", "exif:modify_time - capture_time"]
    if language and language.lower().split("-")[0] != "en":
        bridge = bridge_query(f)
        if bridge:
            queries.insert(1, bridge)
            checks.append(f"English bridge query for a '{language}' claim: {bridge}")
    sources = [s.value for s in _SOURCES[dim]]
    used: list[str] = []
    for g in memory.guidance:  # guidance shapes the plan; it is never evidence (Def. 3.1)
        if g.dimension != dim.value:
            continue
        questions.append(f"(memory {g.id}) {g.lesson}")
        checks += [f"(memory {g.id}) {c}" for c in g.checks]
        queries = [*queries[:MAX_QUERIES], *g.queries, *queries[MAX_QUERIES:]]
        sources = [*g.source_types, *sources]
        used.append(g.id)
    return ResearchPlan(
        subclaim=subclaim.id,
        questions=_unique(questions),
        queries=_unique(queries)[: MAX_QUERIES + 4],
        source_types=_unique(sources),
        checks=_unique(checks),
        memory_used=tuple(used),
    )
