"""``aggregate`` (F): priority-ordered aggregation, confidence (Eq. 19), class probabilities
(Eq. 20) and the mapping into the adapter's label contract."""

from __future__ import annotations

from statistics import fmean

from semv.graph import StageContext, StageDef
from semv.model import (
    Arguments,
    Dimension,
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
    )


STAGE = StageDef(
    name="aggregate",
    version="1",
    fn=decide,
    output=Verdict,
    reads=("aggregation", "decision", "confidence"),
    symbol=Stage.AGGREGATE,
    code=("semv.reasoning",),
)
