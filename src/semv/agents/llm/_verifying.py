"""The roles that judge arguments: ``verify`` and the stronger verifier's ``escalate``
(batched per subclaim, fail closed), and ``judge_clash`` (the support's win rate)."""

from __future__ import annotations

from semv.agents._protocol import (
    ClashInput,
    ClashJudgement,
    Verification,
    VerifyInput,
    VerifyOutput,
)
from semv.agents.llm._calls import LlmCalls, ServerUnreachable
from semv.agents.llm._prompts import render
from semv.agents.llm._schemas import JudgeAnswer, VerifyAnswer
from semv.model import Stage, UncertaintyCode

__all__ = ["VerifyingRoles"]


class VerifyingRoles(LlmCalls):
    """``verify``, ``escalate_verify`` and ``judge_clash``."""

    async def verify(self, request: VerifyInput) -> VerifyOutput:
        """Batched per subclaim; fail closed on an unusable answer, the offline verifier when
        the server is unreachable. A draft citing an id outside the given evidence is
        unverified without asking; a draft the model gives no verdict for is unverified with
        ``unverified-argument``; an unusable answer makes every draft unverified with
        ``model-fallback``."""
        return await self._verify(request, role="verify")

    @property
    def stronger_verifier(self) -> str | None:
        """``llm.escalate_model``: the stronger verifier of A-QBAF MV2026 §2.6.3 (the
        ``escalate:k`` stage calls it for subclaims whose score lies in the band)."""
        return self.config.escalate_model

    async def escalate_verify(self, request: VerifyInput) -> VerifyOutput:
        """One final judgment by the stronger verifier (role ``escalate``), fail closed like
        ``verify``."""
        return await self._verify(request, role="escalate")

    async def _verify(self, request: VerifyInput, *, role: str) -> VerifyOutput:
        ids = {e.id for e in request.evidence}
        results: list[Verification | None] = []
        ask: list[int] = []
        for n, draft in enumerate(request.drafts):
            if not draft.evidence or any(i not in ids for i in draft.evidence):
                results.append(
                    Verification(
                        verified=False,
                        reason="cites evidence that is not in this case",
                        uncertainty=(UncertaintyCode.UNRESOLVED_EVIDENCE,),
                    )
                )
            else:
                results.append(None)
                ask.append(n)
        if ask:
            verdicts = await self._verify_batch(request, ask, role=role)
            if verdicts is None:  # no server: the offline verifier's answer, as it gives it
                return await self.fallback.verify(request)
            for n in ask:
                results[n] = verdicts[n]
        return VerifyOutput(results=tuple(r for r in results if r is not None))

    async def _verify_batch(
        self, request: VerifyInput, indices: list[int], *, role: str
    ) -> dict[int, Verification] | None:
        """The model's verdicts; None when the server gave no answer at all. An answer that
        is unusable fails closed (never "verified" by default)."""
        sub = request.subclaim
        drafts = [request.drafts[n] for n in indices]
        arguments = [
            {
                "id": str(position),
                "text": f"stance={d.stance.value} cites={','.join(d.evidence)}: {d.text}",
            }
            for position, d in enumerate(drafts)
        ]
        cited = {i for d in drafts for i in d.evidence}
        user = self._evidence_prompt(
            lambda items: render(
                "verify",
                dimension=sub.dimension.value,
                subclaim_id=sub.id,
                statement=sub.statement,
                arguments=arguments,
                evidence=items,
            ),
            [e for e in request.evidence if e.id in cited],
            subject=sub.id,
            query=" ".join(d.text for d in drafts),
            pinned=frozenset(cited),
        )
        answer, problem = await self._ask(
            role=role,
            prompt="verify",
            answer=VerifyAnswer,
            user=user,
            invocation=self._invocation(),
            config_role=role,
        )
        if isinstance(problem, ServerUnreachable):
            self._warn_fallback(role, problem)
            self._note(self._fallback_note(sub.id, role, str(problem), Stage.ARGUE))
            return None
        if answer is None:
            return {
                n: Verification(
                    verified=False,
                    reason=f"verifier answer unusable ({problem})"[:300],
                    uncertainty=(
                        UncertaintyCode.UNVERIFIED_ARGUMENT,
                        UncertaintyCode.MODEL_FALLBACK,
                    ),
                )
                for n in indices
            }
        by_position: dict[int, Verification] = {}
        for verdict in answer.results:
            if verdict.index < len(indices) and verdict.index not in by_position:
                by_position[verdict.index] = Verification(
                    verified=verdict.verified,
                    reason=(verdict.reason.strip() or "no reason given")[:300],
                    uncertainty=() if verdict.verified else (UncertaintyCode.UNVERIFIED_ARGUMENT,),
                )
        out: dict[int, Verification] = {}
        for position, n in enumerate(indices):
            out[n] = by_position.get(
                position,
                Verification(
                    verified=False,
                    reason="the verifier returned no verdict for this argument",
                    uncertainty=(UncertaintyCode.UNVERIFIED_ARGUMENT,),
                ),
            )
        return out

    async def judge_clash(self, request: ClashInput) -> ClashJudgement:
        sub = request.subclaim
        cited = {*request.support.evidence, *request.attack.evidence}
        user = self._evidence_prompt(
            lambda items: render(
                "judge_clash",
                dimension=sub.dimension.value,
                subclaim_id=sub.id,
                statement=sub.statement,
                support=request.support,
                attack=request.attack,
                evidence=items,
            ),
            [e for e in request.evidence if e.id in cited],
            subject=sub.id,
            query=f"{request.support.text} {request.attack.text}",
            pinned=frozenset(cited),
        )
        answer, problem = await self._ask(
            role="judge_clash",
            prompt="judge_clash",
            answer=JudgeAnswer,
            user=user,
            invocation=self._invocation(),
        )
        if answer is None:
            # the offline judge's answer exactly; the run's model-fallback note says why
            self._note(self._fallback_note(sub.id, "judge_clash", str(problem), Stage.QBAF))
            return await self.fallback.judge_clash(request)
        return ClashJudgement(
            support_win_rate=answer.support_win_rate,
            reason=(answer.reason.strip() or "no reason given")[:300],
        )
