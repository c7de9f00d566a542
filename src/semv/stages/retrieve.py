"""``retrieve:k`` (R): candidate evidence for one subclaim.

Pools the current case's evidence (supplied and media-derived). External sources (local
corpus, fact-check records, web search) plug in here through the retrieval module and use the
plan's queries; a subclaim with nothing to look at gets a retrieval-gap uncertainty item.
"""

from __future__ import annotations

from semv.graph import StageContext, StageDef
from semv.model import (
    Evidence,
    MediaEvidence,
    ResearchPlan,
    Retrieved,
    Stage,
    UncertaintyCode,
    UncertaintyItem,
)


async def retrieve(
    ctx: StageContext,
    *,
    plan: ResearchPlan,
    supplied: tuple[Evidence, ...],
    media: list[MediaEvidence],
) -> Retrieved:
    pool = supplied + tuple(e for m in media for e in m.evidence)
    gaps: tuple[UncertaintyItem, ...] = ()
    if not pool:
        gaps = (
            UncertaintyItem(
                code=UncertaintyCode.RETRIEVAL_GAP,
                subject=plan.subclaim,
                detail="no supplied or media evidence to examine; no external source enabled",
                stages=(Stage.RETRIEVE,),
            ),
        )
    return Retrieved(subclaim=plan.subclaim, evidence=pool, uncertainty=gaps)


STAGE = StageDef(name="retrieve", version="1", fn=retrieve, output=Retrieved, symbol=Stage.RETRIEVE)
