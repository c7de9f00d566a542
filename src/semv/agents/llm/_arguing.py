"""The ``argue`` role: proponent and opponent drafts per subclaim (one batched call or two),
with each cited evidence id repaired onto the case's ids (``repair_evidence_id``)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

from semv.agents._protocol import ArgueInput, ArgueOutput, ArgumentDraft
from semv.agents.llm._budget import EvidencePrompt
from semv.agents.llm._calls import LlmCalls
from semv.agents.llm._evidence import select_for_dimension
from semv.agents.llm._prompts import render
from semv.agents.llm._schemas import ArgueAnswer, ArgumentAnswer, BatchedArgueAnswer
from semv.model import Stage, Stance, UncertaintyItem

__all__ = ["ArguingRoles", "repair_evidence_id"]

_ID_JUNK = re.compile(r"[\s\"'`\[\]()<>{}]")


class ArguingRoles(LlmCalls):
    """``argue``: the debaters' drafts, the offline rules for a side whose answer is unusable."""

    async def argue(self, request: ArgueInput) -> ArgueOutput:
        """Proponent and opponent as two concurrent calls (``batch_argue``: one call). A side
        whose answer is unusable is argued by the offline rules instead. No call when no
        evidence fits the subclaim: an argument must cite evidence to be admissible (Eq. 6),
        so there is nothing to argue about (the argue stage records ``no-evidence``)."""
        sub = request.subclaim
        shown, beyond = select_for_dimension(
            request.evidence, sub.dimension, self.config.evidence_per_role
        )
        if not shown:
            return ArgueOutput(drafts=(), uncertainty=())
        common: dict[str, Any] = {
            "dimension": sub.dimension.value,
            "subclaim_id": sub.id,
            "statement": sub.statement,
            "claim": request.case.claim,
            "max_arguments": self.config.max_arguments,
        }

        def argue_prompt(side: str) -> EvidencePrompt:
            return self._evidence_prompt(
                lambda items: render("argue", side=side, evidence=items, **common),
                shown,
                subject=sub.id,
                query=f"{sub.statement} {request.case.claim}",
                beyond_k=beyond,
            )

        invocation = self._invocation()
        ids = [e.id for e in request.evidence]
        drafts: list[ArgumentDraft] = []
        notes: list[UncertaintyItem] = []
        failed: list[Stance] = []
        if self.config.batch_argue:
            both, problem = await self._ask(
                role="debaters",
                prompt="argue",
                answer=BatchedArgueAnswer,
                user=argue_prompt("both"),
                invocation=invocation,
                config_role="argue",
            )
            if both is None:
                failed = [Stance.SUPPORT, Stance.ATTACK]
                notes.append(self._fallback_note(sub.id, "argue", str(problem), Stage.ARGUE))
            else:
                for stance in (Stance.SUPPORT, Stance.ATTACK):
                    chosen = [a for a in both.arguments if a.stance == stance.value]
                    drafts += self._drafts(stance, chosen, ids, request.memory.records)
        else:
            sides = (("proponent", Stance.SUPPORT), ("opponent", Stance.ATTACK))
            answers = await asyncio.gather(
                *(
                    self._ask(
                        role=role,
                        prompt="argue",
                        answer=ArgueAnswer,
                        user=argue_prompt(stance.value),
                        invocation=invocation,
                        task=role,
                        config_role="argue",
                    )
                    for role, stance in sides
                )
            )
            for (role, stance), (answer, problem) in zip(sides, answers, strict=True):
                if answer is None:
                    failed.append(stance)
                    notes.append(self._fallback_note(sub.id, role, str(problem), Stage.ARGUE))
                else:
                    drafts += self._drafts(stance, answer.arguments, ids, request.memory.records)
        if failed:
            offline = await self.fallback.argue(request)
            drafts += [d for d in offline.drafts if d.stance in failed]
            notes += list(offline.uncertainty)
        return ArgueOutput(drafts=tuple(drafts), uncertainty=tuple(notes))

    def _drafts(
        self,
        stance: Stance,
        answers: Sequence[ArgumentAnswer],
        ids: Sequence[str],
        memory: Sequence[str],
    ) -> list[ArgumentDraft]:
        out = []
        for ans in answers[: self.config.max_arguments]:
            text = " ".join(ans.text.split())
            if not text:
                continue
            cited = tuple(dict.fromkeys(repair_evidence_id(i, ids) for i in ans.evidence))
            out.append(
                ArgumentDraft(
                    stance=stance,
                    text=text,
                    evidence=cited,
                    key_facts=tuple(k.strip() for k in ans.key_facts if k.strip())[:6],
                    memory=tuple(m for m in memory if m in text),
                )
            )
        return out


def repair_evidence_id(raw: str, ids: Sequence[str]) -> str:
    """Map a sloppy citation onto a current-case id when exactly one matches after normalising
    case, quotes, brackets, whitespace and a missing ``ev:`` prefix; otherwise return it as is
    (the argue stage then drops it and the argument may fail admissibility)."""
    if raw in ids:
        return raw
    cleaned = _ID_JUNK.sub("", raw).lower()
    if not cleaned:
        return raw
    wanted = cleaned if cleaned.startswith("ev:") else f"ev:{cleaned}"
    matches = [i for i in ids if i.lower() == wanted]
    return matches[0] if len(matches) == 1 else raw
