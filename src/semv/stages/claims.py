"""``claims`` (C, Eq. 12): scoped subclaims from the claim, context and media evidence."""

from __future__ import annotations

from semv.agents import DecomposeInput
from semv.graph import StageContext, StageDef
from semv.model import Case, Claims, Dimension, Evidence, MediaEvidence, Stage


async def decompose(
    ctx: StageContext, *, case: Case, supplied: tuple[Evidence, ...], media: list[MediaEvidence]
) -> Claims:
    evidence = supplied + tuple(e for m in media for e in m.evidence)
    claims = await ctx.agents.decompose(DecomposeInput(case=case, evidence=evidence))
    missing = [d.value for d in Dimension if d.value not in claims.subclaims]
    if missing:
        raise ValueError(f"decomposer left dimensions out: {missing}")
    return claims


STAGE = StageDef(
    name="claims", version="1", fn=decompose, output=Claims, uses_agents=True, symbol=Stage.CLAIMS
)
