"""Decomposition of a case into one subclaim per registered dimension, and research plans.

The case's facts are extracted once (claim text plus claimed context date and place); each
dimension's ``statement`` turns them into its subclaim and each dimension's ``plan`` adds its
questions, checks and queries to the shared plan shape (query seeds, source types, recalled
guidance).
"""

from __future__ import annotations

from semv.config import OfflineAgentConfig
from semv.dimensions._registry import DIMENSIONS
from semv.dimensions._spec import CaseFacts
from semv.model import (
    Case,
    ClaimFacts,
    Claims,
    Evidence,
    MemoryView,
    Modality,
    ResearchPlan,
    SourceType,
    Subclaim,
)
from semv.nlp import places as _places
from semv.nlp import worker as _nlp_worker
from semv.nlp.dates import parse_date
from semv.nlp.entities import extract

__all__ = ["bridge_query", "decompose_case", "media_seeds", "plan_subclaim"]

MAX_QUERIES = 8
MAX_MEDIA_SEEDS = 6
"""Query seeds taken from media text (OCR, transcripts, reverse-search captions)."""
_MEDIA_TEXT = frozenset({Modality.IMAGE, Modality.VIDEO, Modality.AUDIO})
_NOT_SEEDS = frozenset({SourceType.METADATA, SourceType.FORENSIC})
STATEMENT_CHARS = 240


def _short(text: str, limit: int = STATEMENT_CHARS) -> str:
    text = " ".join(text.split()).rstrip(" .")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _unique(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))


def case_facts(case: Case) -> CaseFacts:
    """The facts of the claim and its claimed context (date and place first). The claimed
    date is parsed once, by the one date parser, in the case's language. The claim's facts
    come from the NLP worker process when the CLI started one (``semv.nlp.worker``: the same
    facts, extracted on the other core), else from here."""
    language = case.context.language
    base = _nlp_worker.facts_for(case.claim, language)
    if base is None:
        base = extract(case.claim, language).claim_facts()
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
    labels = dict.fromkeys(
        [p.label for p in specific]
        + [_unresolved_label(n) for n, p in zip(full.places, resolved, strict=True) if p is None]
    )
    return CaseFacts(
        facts=full,
        summary=_short(case.claim),
        place_labels=tuple(labels),
        has_media=bool(case.media),
    )


def _unresolved_label(name: str) -> str:
    """A place name the case does not settle: as written, with its rivals when ambiguous
    ("Valencia (ambiguous: Valencia, Venezuela or Valencia, Spain)")."""
    rivals = _places.rivals(name)
    if not rivals:
        return name
    return f"{name} (ambiguous: {' or '.join(p.label for p in rivals[:3])})"


def decompose_case(case: Case) -> Claims:
    """One subclaim per registered dimension, each with its statement, facts and seeds."""
    facts = case_facts(case)
    full = facts.facts
    seeds = _unique(
        list(full.keywords[:6])
        + list(full.events)
        + list(full.people)
        + list(full.organizations)
        + list(full.places)
        + list(full.dates)
    )
    subclaims: dict[str, Subclaim] = {}
    for dim, spec in DIMENSIONS.items():
        stated = spec.statement(facts)
        f = stated.facts
        queries = _unique(
            [_short(" ".join((*f.keywords[:4], *f.people, *f.places, *f.dates)), 120), *seeds]
        )
        subclaims[dim.value] = Subclaim(
            id=f"claim:{dim.value}",
            dimension=dim,
            statement=stated.text,
            claim_type=spec.claim_type,
            scope=spec.subclaim_scope(facts.has_media),
            asserted=stated.asserted,
            facts=f,
            queries=queries[:MAX_QUERIES],
        )
    return Claims(subclaims=subclaims)


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
    """The dimension's questions, checks and queries, an English bridge query for a
    non-English claim, then what recalled guidance adds (guidance is never evidence)."""
    dim = subclaim.dimension
    spec = DIMENSIONS[dim]
    seed = spec.plan(subclaim, cfg)
    questions = list(seed.questions)
    checks = list(seed.checks)
    queries = [*subclaim.queries, *seed.queries]
    if language and language.lower().split("-")[0] != "en":
        bridge = bridge_query(subclaim.facts)
        if bridge:
            queries.insert(1, bridge)
            checks.append(f"English bridge query for a '{language}' claim: {bridge}")
    sources = [s.value for s in spec.sources]
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
