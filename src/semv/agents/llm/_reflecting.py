"""The ``reflect`` role: memory lesson candidates from a finished run and its gold label,
each grounded in ids of the run."""

from __future__ import annotations

from collections.abc import Sequence

from semv.agents.llm._calls import LlmCalls
from semv.agents.llm._contracts import LessonCandidate, ReflectInput, ReflectOutput
from semv.agents.llm._prompts import render
from semv.agents.llm._schemas import ReflectAnswer
from semv.model import Dimension, Stage

__all__ = ["ReflectingRoles"]


class ReflectingRoles(LlmCalls):
    """``reflect``."""

    async def reflect(self, request: ReflectInput) -> ReflectOutput:
        """Memory candidates from a finished run and its gold label; a lesson must be grounded
        in ids of this run (unknown ids are dropped, an ungrounded lesson is discarded)."""
        known = {a.id for s in request.subclaims for a in s.arguments}
        known |= {e.id for e in request.evidence}
        lines = []
        for s in request.subclaims:
            lines.append(
                f"{s.id} [{s.dimension.value}] {s.statement} -> {s.decision} ({s.score:.2f})"
            )
            for a in s.arguments:
                lines.append(
                    f"  {a.id} {a.stance.value} w={a.strength:.2f} "
                    f"{'verified' if a.verified else 'unverified'} cites "
                    f"{','.join(a.evidence)}: {a.text}"
                )
        for ev in request.evidence:
            lines.append(f"{ev.id} ({ev.source_type.value}, {ev.source}): {ev.content[:300]}")
        user = render(
            "reflect",
            max_lessons=request.max_lessons,
            dimensions=[d.value for d in Dimension],
            gold=request.gold,
            predicted=request.predicted,
            case_id=request.case_id,
            summary=_whole_lines(lines, self.config.evidence_chars * 8),
        )
        answer, problem = await self._ask(
            role="reflect",
            prompt="reflect",
            answer=ReflectAnswer,
            user=user,
            invocation=self._invocation(),
        )
        if answer is None:
            return ReflectOutput(
                candidates=(),
                uncertainty=(
                    self._fallback_note(request.case_id, "reflect", str(problem), Stage.AGGREGATE),
                ),
            )
        candidates = []
        for lesson in answer.lessons[: request.max_lessons]:
            cited = tuple(dict.fromkeys(g.strip() for g in lesson.grounding if g.strip()))
            grounding = tuple(g for g in cited if g in known)
            if grounding and lesson.text.strip():
                candidates.append(
                    LessonCandidate(
                        text=" ".join(lesson.text.split()),
                        dimension=lesson.dimension,
                        kind=lesson.kind,
                        grounding=grounding,
                        unresolved=tuple(g for g in cited if g not in known),
                    )
                )
        return ReflectOutput(candidates=tuple(candidates))


def _whole_lines(lines: Sequence[str], chars: int) -> str:
    """The first lines that fit in ``chars`` characters, never a line cut in the middle."""
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > chars:
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join(kept)
