"""``aggregate`` (F): priority-ordered aggregation, confidence (Eq. 19), class probabilities
(Eq. 20), the calibrated probability beside them (``semv.calibration``) and the mapping into
the adapter's label contract."""

from __future__ import annotations

from statistics import fmean

from semv.calibration import calibrated, calibration_id
from semv.graph import StageContext, StageDef
from semv.model import (
    Arguments,
    Band,
    CalibratedProbability,
    CosmosLabel,
    Dimension,
    Exif,
    InternalLabel,
    MediaEvidence,
    SolvedQbaf,
    Stage,
    Stance,
    Subclaim,
    UncertaintyCode,
    UncertaintyItem,
    Verdict,
)
from semv.reasoning import aggregate, confidence, contract, media_grounds


def case_uncertainty(
    media: list[MediaEvidence], arguments: list[Arguments], qbafs: list[SolvedQbaf]
) -> tuple[UncertaintyItem, ...]:
    """Ξ: the case-level codes, deduplicated by (code, subject)."""
    items: dict[tuple[str, str], UncertaintyItem] = {}
    for group in (
        *(m.uncertainty for m in media),
        *(a.uncertainty for a in arguments),
        *(q.uncertainty for q in qbafs),
    ):
        for item in group:
            items.setdefault((item.code.value, item.subject), item)
    return tuple(items.values())


GROUND_CHARS = 240
"""Longest clause the verdict's sentence quotes from one argument about the media."""


def missing_metadata(media: list[MediaEvidence]) -> dict[Dimension, str]:
    """What the media's own metadata lacks for ``where`` (a GPS position) and ``when`` (a
    capture time), as clauses for the verdict's sentence: absent or stripped, or dropped as
    implausible. Empty when no asset was read (a text-only run says nothing about metadata)."""
    read = [
        m
        for m in media
        if not any(u.code is UncertaintyCode.MEDIA_NOT_LOADED for u in m.uncertainty)
    ]
    if not read:
        return {}
    exifs = [x for m in read for e in m.evidence if (x := e.observed(Exif)) is not None]
    codes = {u.code: u.detail for m in read for u in m.uncertainty}
    out: dict[Dimension, str] = {}
    if not any(x.latitude is not None and x.longitude is not None for x in exifs):
        out[Dimension.WHERE] = (
            "the media's GPS position was implausible and dropped "
            f"({codes[UncertaintyCode.GPS_INVALID]})"
            if UncertaintyCode.GPS_INVALID in codes
            else "the media carries no GPS position (absent or stripped)"
        )
    if not any(x.capture_time for x in exifs):
        out[Dimension.WHEN] = (
            "the media's capture time was implausible and dropped "
            f"({codes[UncertaintyCode.METADATA_INVALID]})"
            if UncertaintyCode.METADATA_INVALID in codes
            else "the media carries no capture time (absent or stripped)"
        )
    return out


async def decide(
    ctx: StageContext,
    *,
    subclaims: dict[str, Subclaim],
    qbafs: list[SolvedQbaf],
    arguments: list[Arguments],
    media: list[MediaEvidence],
) -> Verdict:
    decisions = tuple(q.decision for q in qbafs)
    asserted = {Dimension(k): s.asserted for k, s in subclaims.items()}
    dimension_of = {s.id: Dimension(k) for k, s in subclaims.items()}
    by_dimension = {
        dimension_of[a.subclaim]: a.arguments for a in arguments if a.subclaim in dimension_of
    }
    unargued = {
        d.dimension
        for d in decisions
        if d.band is Band.UNCERTAIN
        and not any(
            a.stance in (Stance.SUPPORT, Stance.ATTACK) and a.admissible
            for a in by_dimension.get(d.dimension, ())
        )
    }
    grounds = media_grounds(
        by_dimension,
        {d.dimension: d.band for d in decisions},
        missing_metadata(media),
        clause_chars=GROUND_CHARS,
    )
    outcome = aggregate(
        decisions,
        asserted=asserted,
        argued=any(a.arguments for a in arguments),
        unargued=unargued,
        grounds=grounds,
        config=ctx.settings.aggregation,
        bands=ctx.settings.decision,
    )
    mean = fmean(d.score for d in decisions)
    active = contract(str(ctx.params["contract"]), config=ctx.settings.confidence)
    return Verdict(
        label=active.map(outcome.label),
        internal_label=outcome.label,
        rule=outcome.rule,
        aggregation_rule=outcome.fired,
        probabilities=active.probabilities(mean, outcome.label),
        confidence=confidence(mean, outcome.label, config=ctx.settings.confidence),
        mean_score=mean,
        decisions=decisions,
        uncertainty=case_uncertainty(media, arguments, qbafs),
        calibrated=calibrated_probability(active.name, outcome.label, mean),
    )


def calibrated_probability(
    contract_name: str, label: InternalLabel, mean_score: float
) -> CalibratedProbability | None:
    """The shipped calibration's probability of the contract's positive class (COSMOS: OOC)
    from the decision and ψ̄, the inputs of Eq. 20; None for a contract without one."""
    ident = calibration_id(contract_name)
    p = calibrated(contract_name, label is InternalLabel.FALSE_CONTEXT, mean_score)
    if ident is None or p is None:
        return None
    return CalibratedProbability(label=CosmosLabel.OOC.value, probability=p, calibration=ident)


STAGE = StageDef(
    name="aggregate",
    version="3",
    fn=decide,
    output=Verdict,
    reads=("aggregation", "decision", "confidence"),
    symbol=Stage.AGGREGATE,
    code=("semv.reasoning", "semv.calibration"),
)
