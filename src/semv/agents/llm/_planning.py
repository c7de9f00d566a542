"""The roles before retrieval: ``decompose`` (the model words each subclaim, the offline
extractors give the structured facts) and ``plan``, each call startable ahead of its node
(``start_early``, ``semv.agents._early``)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from semv.agents._early import EarlyStart, current_early
from semv.agents._protocol import DecomposeInput, PlanInput
from semv.agents.llm._calls import LlmCalls
from semv.agents.llm._requests import decompose_user, early_plans, plan_user
from semv.agents.llm._schemas import DecomposeAnswer, PlanAnswer
from semv.dimensions import decompose_case
from semv.model import Case, Claims, ResearchPlan, Stage

__all__ = ["PlanningRoles"]


class PlanningRoles(LlmCalls):
    """``decompose`` and ``plan``, and their calls started ahead of the nodes."""

    # ---- calls started ahead of their nodes -----------------------------------------

    def start_early(self, request: EarlyStart) -> None:
        """Start the decomposer's call (and the offline extractors beside it) now, in the
        running loop: its prompt holds only the claim and its context, so it need not wait
        for the media nodes the ``claims`` node waits for. With ``plan_nodes``, each plan call
        starts as soon as the decomposer's answer gives its subclaim's statement. The nodes
        take these calls when they run (``decompose``, ``plan``); see ``semv.agents._early``."""
        early = current_early.get()
        if early is None or request.decompose_node is None:
            return
        case = request.case
        cfg = self.config
        if cfg.case_prompt_tokens is not None and cfg.vision and any(a.loaded for a in case.media):
            # the case's budget goes first come, first served, and the VLM's describe calls
            # (before the claims node) came first: an early call must not take their share
            return
        user = decompose_user(case)
        # the extractors load spaCy: beside loaded media they wait for the ``claims`` node
        # (the media warm-up loads spaCy after OCR's first read, and the node runs after the
        # media nodes anyway), so they never take the CPU the media extraction needs
        extract = not any(a.loaded for a in case.media)
        early.start(
            ("decompose", user),
            request.decompose_node,
            self._decompose_parts(case, user, plans=request.plan_nodes, extract=extract),
        )

    def _start_plans(self, case: Case, answer: DecomposeAnswer, nodes: Mapping[str, str]) -> None:
        """The plan calls of the subclaims whose statement ``answer`` gives, exactly as the
        plan nodes will render them (``_requests.early_plans``)."""
        early = current_early.get()
        if early is None:
            return
        for dim, user in early_plans(case, answer).items():
            node = nodes.get(dim)
            if node is not None:
                early.start(("plan", user), node, self._plan_answer(user))

    async def _decompose_parts(
        self,
        case: Case,
        user: str,
        *,
        plans: Mapping[str, str] | None = None,
        extract: bool = True,
    ) -> tuple[tuple[DecomposeAnswer | None, str | None], Claims | None]:
        """The model's answer and (``extract``) the offline extractors' claims; the
        extractors (CPU) run in a thread while the model answers, and never hold the answer
        (nor, with ``plans``, the plan calls it lets start) back."""
        base = asyncio.ensure_future(asyncio.to_thread(decompose_case, case)) if extract else None
        try:
            answer, problem = await self._ask(
                role="decompose",
                prompt="decompose",
                answer=DecomposeAnswer,
                user=user,
                invocation=self._invocation(),
            )
            if plans and answer is not None:
                self._start_plans(case, answer, plans)
            return (answer, problem), (await base if base is not None else None)
        finally:
            if base is not None and not base.done():
                base.cancel()

    async def decompose(self, request: DecomposeInput) -> Claims:
        """The model words each dimension's subclaim (statement, type, asserted, queries); the
        structured facts (dates, places, people) come from the offline extractors, which also
        answer any dimension the model leaves out or the whole role when it fails."""
        case = request.case
        user = decompose_user(case)
        early = current_early.get()
        started = early.take(("decompose", user)) if early is not None else None
        parts: tuple[tuple[DecomposeAnswer | None, str | None], Claims | None] = await (
            started if started is not None else self._decompose_parts(case, user)
        )
        (answer, problem), extracted = parts
        if extracted is None:
            base = await asyncio.to_thread(decompose_case, case)
        else:
            base = extracted
        if answer is None:
            self._warn_fallback("decompose", problem)
            self._note(self._fallback_note(case.id, "decompose", str(problem), Stage.CLAIMS))
            return base
        given = {s.dimension.value: s for s in answer.subclaims}
        subclaims = {}
        for dim, sub in base.subclaims.items():
            said = given.get(dim)
            if said is None:
                subclaims[dim] = sub
                continue
            queries = tuple(q.strip() for q in said.queries if q.strip())[:3] or sub.queries
            subclaims[dim] = sub.model_copy(
                update={
                    "statement": said.statement.strip(),
                    "claim_type": said.claim_type.strip()[:40],
                    "asserted": said.asserted,
                    "queries": queries,
                }
            )
        return base.model_copy(update={"subclaims": subclaims})

    async def _plan_answer(self, user: str) -> tuple[PlanAnswer | None, str | None]:
        return await self._ask(
            role="plan",
            prompt="plan",
            answer=PlanAnswer,
            user=user,
            invocation=self._invocation(),
        )

    async def plan(self, request: PlanInput) -> ResearchPlan:
        sub = request.subclaim
        user = plan_user(
            sub.dimension.value, request.case.claim, sub.id, sub.statement, request.memory.records
        )
        early = current_early.get()
        started = early.take(("plan", user)) if early is not None else None
        answer, problem = await (started if started is not None else self._plan_answer(user))
        if answer is None:
            self._warn_fallback(f"plan {sub.id}", problem)
            self._note(self._fallback_note(sub.id, "plan", str(problem), Stage.RETRIEVE))
            return await self.fallback.plan(request)
        known = set(request.memory.records)

        def clean(items: list[str]) -> tuple[str, ...]:
            return tuple(dict.fromkeys(i.strip() for i in items if i.strip()))[:8]

        return ResearchPlan(
            subclaim=sub.id,
            questions=clean(answer.questions),
            queries=clean(answer.queries) or sub.queries,
            source_types=clean(answer.source_types),
            checks=clean(answer.checks),
            memory_used=tuple(m for m in clean(answer.memory_used) if m in known),
        )
