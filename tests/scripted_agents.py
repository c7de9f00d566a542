"""A scripted ``Agents`` backend for graph and pipeline tests (keyed by role and input).

It decomposes into the six dimensions with fixed statements, and argues from a script that
maps a dimension to (stance, evidence id, key fact) triples; the verifier accepts a draft
iff every key fact occurs in the content of its cited evidence. Calls are counted per role so
tests can assert what actually ran.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from semv.agents import (
    ArgueInput,
    ArgueOutput,
    ArgumentDraft,
    ClashInput,
    ClashJudgement,
    DecomposeInput,
    DescribeInput,
    Description,
    PlanInput,
    Verification,
    VerifyInput,
    VerifyOutput,
)
from semv.model import Claims, Dimension, ResearchPlan, Stance, Subclaim

Script = Mapping[str, list[tuple[Stance, str, str]]]


class ScriptedAgents:
    name = "scripted"
    version = "1"

    def __init__(self, script: Script | None = None) -> None:
        self.script: Script = script or {}
        self.calls: Counter[str] = Counter()

    @property
    def identity(self) -> str:
        return f"{self.name}/{self.version}"

    async def decompose(self, request: DecomposeInput) -> Claims:
        self.calls["decompose"] += 1
        return Claims(
            subclaims={
                d.value: Subclaim(
                    id=f"claim:{d.value}",
                    dimension=d,
                    statement=(
                        f"where: {request.case.context.location}"
                        if d is Dimension.WHERE and request.case.context.location
                        else f"{d.value}: {request.case.claim}"
                    ),
                    claim_type=d.value,
                    asserted=True,
                )
                for d in Dimension
            }
        )

    async def plan(self, request: PlanInput) -> ResearchPlan:
        self.calls["plan"] += 1
        return ResearchPlan(
            subclaim=request.subclaim.id,
            questions=(f"Is it true that {request.subclaim.statement}?",),
            queries=(request.case.claim,),
            source_types=("news",),
            checks=(),
        )

    async def argue(self, request: ArgueInput) -> ArgueOutput:
        self.calls[f"argue:{request.subclaim.dimension.value}"] += 1
        drafts = tuple(
            ArgumentDraft(
                stance=stance,
                text=f"{'Supports' if stance is Stance.SUPPORT else 'Attacks'}: {fact}",
                evidence=(ev_id,),
                key_facts=(fact,),
            )
            for stance, ev_id, fact in self.script.get(request.subclaim.dimension.value, [])
        )
        return ArgueOutput(drafts=drafts)

    async def verify(self, request: VerifyInput) -> VerifyOutput:
        self.calls["verify"] += 1
        content = {e.id: e.content.lower() for e in request.evidence}
        results = []
        for draft in request.drafts:
            ok = bool(draft.evidence) and all(
                any(f.lower() in content.get(i, "") for i in draft.evidence)
                for f in draft.key_facts
            )
            results.append(Verification(verified=ok, reason="facts found" if ok else "missing"))
        return VerifyOutput(results=tuple(results))

    async def judge_clash(self, request: ClashInput) -> ClashJudgement:
        self.calls["judge_clash"] += 1
        return ClashJudgement(support_win_rate=0.5, reason="scripted tie")

    async def describe(self, request: DescribeInput) -> Description:
        self.calls["describe"] += 1
        return Description(
            text=f"scripted description of {request.asset.id}",
            evidence=tuple(e.id for e in request.evidence[:1]),
        )
