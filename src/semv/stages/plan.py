"""``plan:k``: verification questions, queries, source types and checks for one subclaim."""

from __future__ import annotations

from semv.agents import PlanInput
from semv.graph import StageContext, StageDef
from semv.model import Case, MemoryView, ResearchPlan, Subclaim


async def plan(
    ctx: StageContext, *, case: Case, subclaim: Subclaim, memory: MemoryView
) -> ResearchPlan:
    return await ctx.agents.plan(PlanInput(case=case, subclaim=subclaim, memory=memory))


STAGE = StageDef(name="plan", version="1", fn=plan, output=ResearchPlan, uses_agents=True)
