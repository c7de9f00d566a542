"""``aggregate`` (F): priority-ordered aggregation, confidence (Eq. 19), class probabilities
(Eq. 20), the calibrated probability beside them (``semv.calibration``) and the mapping into
the adapter's label contract."""

from __future__ import annotations

from statistics import fmean

from semv.calibration import calibrated, calibration_id
from semv.graph import StageContext, StageDef
from semv.model import (
    Arguments,
    CalibratedProbability,
    CosmosLabel,
    Dimension,
    InternalLabel,
    MediaEvidence,
    SolvedQbaf,
    Stage,
    Subclaim,
    UncertaintyItem,
    Verdict,
)
from semv.reasoning import aggregate, confidence, contract


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
    outcome = aggregate(
        decisions,
        asserted=asserted,
        argued=any(a.arguments for a in arguments),
        config=ctx.settings.aggregation,
        bands=ctx.settings.decision,
    )
    mean = fmean(d.score for d in decisions)
    active = contract(str(ctx.params["contract"]))
    return Verdict(
        label=active.map(outcome.label),
        internal_label=outcome.label,
        rule=outcome.rule,
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
    version="2",
    fn=decide,
    output=Verdict,
    reads=("aggregation", "decision", "confidence"),
    symbol=Stage.AGGREGATE,
    code=("semv.reasoning", "semv.calibration"),
)
