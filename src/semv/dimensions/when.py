"""``when``: the claimed date of the events (claim type "time").

- **Statement**: "The events took place on 2024-03-14" from the claimed dates (the case's
  claimed context date first, then the dates the claim names), each with its precision.
- **Plan**: is the EXIF capture time within ``time_tolerance_days`` of each claimed date; was
  the media published or dated before it.
- **Offline rule** (per evidence item, one finding at most): EXIF capture time against the
  claimed date (a time zone the camera did not record is an uncertainty, ±1 day); a date a
  text names for the scene (quotations are reported speech, not read); else a prior caption,
  fact-check or forensic item *published* before the claimed date attacks it. A retrieved
  item attacks only when it refers to this media or event (``refers_to_case``: a
  reverse-image match, a quotation of the claim, shared named entities).
- **Signals**: a reverse-search match first seen before the claimed date attacks it.
- **Re-check**: metadata and reverse-search matches are re-derived by the verifier.
- **Notes**: a numeric claimed date whose day/month order the case's language does not decide
  is an uncertainty item (``date-ambiguous``).
- **Facts**: claimed dates with their precision (the subclaim), and the dates the argument
  rests on (its key facts); evaluation reads these, never the argument's prose.
- **Report**: the "When" section; MV2026 field ``event-time``.
"""

from __future__ import annotations

from semv.config import OfflineAgentConfig
from semv.dimensions._common import (
    ClaimView,
    Finding,
    asserted_text,
    capitalized,
    capture,
    days,
    describes_same_media,
    is_metadata,
    is_observation,
    join_words,
    metadata_doubt,
    refers_to_case,
    source_phrase,
)
from semv.dimensions._spec import (
    CaseFacts,
    DimensionSpec,
    PlanSeed,
    ReportSection,
    Statement,
)
from semv.dimensions._typing import date_fact, key_fact_date
from semv.model import (
    Case,
    ClaimFacts,
    Dimension,
    Distortion,
    Evidence,
    Exif,
    Facts,
    Modality,
    ReverseSearchMatch,
    Scope,
    SourceType,
    Stage,
    Stance,
    Subclaim,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.nlp.dates import (
    Agreement,
    DateMention,
    capture_agreement,
    compare,
    from_iso,
    parse_date,
    parse_one,
    signed_days,
)
from semv.nlp.entities import extract

__all__ = ["WHEN", "date_phrase", "when_rule"]

_DATE_SOURCES = frozenset({SourceType.PRIOR_CAPTION, SourceType.FACT_CHECK, SourceType.FORENSIC})
"""Text sources whose ``published`` date is a date of the media itself (it existed by then)."""


# ---- statement and plan ---------------------------------------------------------------------


def date_phrase(iso: str) -> str:
    """ "on 2024-03-14", "in 2024-03", "on --03-14 (year not stated)"."""
    mention = from_iso(iso)
    if mention is None:
        return iso
    if mention.year is None:
        return f"on {iso} (year not stated)"
    if mention.month is None or mention.day is None:
        return f"in {iso}"
    return f"on {iso}"


def statement(case: CaseFacts) -> Statement:
    dates = case.facts.dates
    return Statement(
        text=f"The events took place {join_words([date_phrase(d) for d in dates])}"
        if dates
        else "The time of the events (not stated in the claim)",
        asserted=bool(dates),
        facts=ClaimFacts(dates=dates),
    )


def plan(subclaim: Subclaim, cfg: OfflineAgentConfig) -> PlanSeed:
    questions: list[str] = []
    for date in subclaim.facts.dates or ("the claimed date",):
        questions.append(
            f"Is the EXIF capture time within {cfg.time_tolerance_days} days of {date}?"
        )
        questions.append(f"Was the media published or dated before {date}?")
    return PlanSeed(
        questions=tuple(questions),
        checks=(
            "exif:capture_time vs claimed date",
            "text: dates named by evidence",
            "timezone known?",
        ),
    )


# ---- the offline rule -----------------------------------------------------------------------


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
        return f"{days(gap)} {'before' if signed < 0 else 'after'}"
    if gap is not None and gap > 0:
        return f"{days(gap)} apart from"
    return "different from"


def _published_before(
    view: ClaimView, capture_day: DateMention, tol: int
) -> tuple[Evidence, DateMention] | None:
    """The earliest publication of this media (a caption or text tied to it, a reverse-image
    match first seen) more than ``tol`` days before ``capture_day``: a capture after it was
    already published cannot be a true capture time."""
    found: list[tuple[int, Evidence, DateMention]] = []
    for other in view.evidence:
        match = other.observed(ReverseSearchMatch)
        stamp = (match.first_seen if match is not None else None) or (
            other.published if describes_same_media(other) else None
        )
        seen = parse_one(stamp) if stamp else None
        if seen is None or seen.year is None:
            continue
        result, gap = compare(capture_day, seen, tol, intervals=True)
        signed = signed_days(capture_day, seen)
        if result is Agreement.DISAGREE and signed is not None and signed < 0 and gap:
            found.append((gap, other, seen))
    if not found:
        return None
    _, other, seen = max(found, key=lambda item: (item[0], item[1].id))
    return other, seen


def _exif_finding(view: ClaimView, ev: Evidence, tol: int) -> list[Finding]:
    claimed = view.dates
    cap = capture(ev)
    if cap is None:
        return []
    mention, _ = cap
    earlier = _published_before(view, mention, tol)
    if earlier is not None:
        other, seen = earlier
        text = (
            f"EXIF capture time {mention.iso} ({ev.id}) is after the media was already "
            f"published on {seen.iso} ({other.id}): the camera clock or the tag is wrong, so "
            "the capture time is not compared with the claimed date."
        )
        return [
            Finding(
                Stance.NEUTRAL,
                text,
                (ev.id, other.id),
                (mention.iso, seen.iso),
                (UncertaintyCode.METADATA_DOUBTFUL,),
            )
        ]
    pair = _best_pair(claimed, [mention], tol, True)
    if pair is None:
        return []
    result, c, o, gap = pair
    unc: tuple[UncertaintyCode, ...] = ()
    note = ""
    exif = ev.observed(Exif)
    if exif is not None and exif.timezone_known is False:
        unc = (UncertaintyCode.TIMEZONE_UNKNOWN,)
        note = " (camera time zone unknown: the date may be off by one day)"
    doubt = metadata_doubt(ev, time=True)
    if doubt:
        unc = (*unc, UncertaintyCode.METADATA_DOUBTFUL)
        note += f"; but {doubt}"
    if result is Agreement.AGREE:
        text = (
            f"EXIF capture time {o.iso} ({ev.id}) agrees with the claimed date {c.iso} "
            f"(within {days(tol)}){note}."
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


def _earliest(claimed: list[DateMention]) -> DateMention | None:
    dated = [(iv[0], c) for c in claimed if (iv := c.interval()) is not None]
    return min(dated, key=lambda pair: pair[0])[1] if dated else None


def when_rule(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    claimed = view.dates
    if not claimed:
        return []
    tol = cfg.time_tolerance_days
    if is_metadata(ev):
        return _exif_finding(view, ev, tol)
    if is_observation(ev):
        return []
    observed = list(extract(asserted_text(ev.content), view.language).dates)
    pair = _best_pair(claimed, observed, tol, False) if observed else None
    findings: list[Finding] = []
    if pair is not None:
        result, c, o, gap = pair
        src = source_phrase(ev)
        if result is Agreement.AGREE:
            text = (
                f"{capitalized(src)} ({ev.id}) dates the scene to {o.text!r} ({o.iso}), "
                f"in agreement with the claimed {c.iso}."
            )
            findings.append(Finding(Stance.SUPPORT, text, (ev.id,), (o.text,)))
        elif refers_to_case(view, ev, cfg.place_tolerance_km):
            text = (
                f"{capitalized(src)} ({ev.id}) dates the scene to {o.text!r} ({o.iso}), "
                f"{_gap_text(c, o, gap)} the claimed {c.iso}."
            )
            findings.append(Finding(Stance.ATTACK, text, (ev.id,), (o.text,)))
    elif (
        ev.published
        and ev.source_type in _DATE_SOURCES
        and refers_to_case(view, ev, cfg.place_tolerance_km)
    ):
        published = parse_one(ev.published)
        if published is not None and published.year is not None:
            earliest = _earliest(claimed)
            if earliest is not None:
                result, gap = compare(earliest, published, tol, intervals=True)
                signed = signed_days(earliest, published)
                if result is Agreement.DISAGREE and signed is not None and signed < 0:
                    text = (
                        f"The media was already published on {published.iso} ({ev.id}), "
                        f"{days(gap or 0)} before the claimed {earliest.iso}."
                    )
                    findings.append(Finding(Stance.ATTACK, text, (ev.id,), (published.iso,)))
    return findings


def earlier_match(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    """A copy first seen before the claimed date: the media predates the claimed event."""
    match = ev.observed(ReverseSearchMatch)
    if match is None:
        return []
    first = (match.first_seen or "").strip()
    seen = from_iso(first[:10]) if first else None
    earliest = _earliest(view.dates)
    if seen is None or earliest is None:
        return []
    result, gap = compare(earliest, seen, cfg.time_tolerance_days, intervals=True)
    signed = signed_days(earliest, seen)
    if result is not Agreement.DISAGREE or signed is None or signed >= 0:
        return []
    where = f" at {ev.url}" if ev.url else ""
    text = (
        f"Earlier-context reverse-search match ({ev.id}): the same image was already online "
        f"on {seen.iso}{where}, {days(gap or 0)} before the claimed {earliest.iso}."
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


def notes(case: Case, subclaim: Subclaim) -> tuple[UncertaintyItem, ...]:
    """The claimed date's day/month order when the case's language does not decide it
    ("7/3/2024" without a region): one reading was used, the other is named."""
    if not case.context.date:
        return ()
    claimed = parse_date(case.context.date, case.context.language)
    if claimed is None or not claimed.ambiguous:
        return ()
    return (
        UncertaintyItem(
            code=UncertaintyCode.DATE_AMBIGUOUS,
            subject=subclaim.id,
            detail=claimed.ambiguity(),
            stages=(Stage.RETRIEVE, Stage.VALIDATE, Stage.ARGUE),
        ),
    )


# ---- typed facts ----------------------------------------------------------------------------


def claimed(subclaim: Subclaim) -> Facts:
    """The claimed dates with their precision."""
    dates = [(iso, from_iso(iso)) for iso in subclaim.facts.dates]
    return Facts(dates=tuple(date_fact(m, iso) for iso, m in dates if m is not None))


def typed(key_facts: tuple[str, ...], language: str | None) -> Facts:
    """The dates an argument rests on (a capture time, a dated report, a first-seen date)."""
    found = [(k, key_fact_date(k, language)) for k in key_facts]
    return Facts(dates=tuple(date_fact(m, k) for k, m in found if m is not None))


WHEN = DimensionSpec(
    dimension=Dimension.WHEN,
    claim_type="time",
    scope=Scope.EVENT,
    statement=statement,
    plan=plan,
    sources=(SourceType.METADATA, SourceType.PRIOR_CAPTION, SourceType.NEWS, SourceType.FACT_CHECK),
    fits=frozenset({Modality.METADATA, Modality.TEXT}),
    rule=when_rule,
    signals=earlier_match,
    rederives_match=True,
    claimed=claimed,
    typed=typed,
    notes=notes,
    section=ReportSection(key="when", title="When", order=2),
    remmd_l2=Distortion.C2,
    mv_field="event-time",
    mv_headings=("when", "time", "date", "chronology"),
)
