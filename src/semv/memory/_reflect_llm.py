"""The reflection role over the LLM backend (SEMV §4.6 "Post-Prediction Reflection").

:class:`LlmReflector` implements :class:`semv.memory.Reflector` on top of
``LlmAgents.reflect``: the committed trace is summarised into the backend's reflect input
(subclaims with their decisions, arguments and cited evidence), and each lesson the model
proposes becomes a :class:`CandidateDraft` whose grounding is split into evidence and argument
ids of that trace. Ids that do not resolve in the trace are dropped and the lesson's c_κ is
lowered; a lesson with no resolvable id is dropped. The drafts then go through the same gate
(Eq. 26) as the offline reflector's: nothing here decides what is staged or promoted.

When the model fails (unreachable, malformed answer after one repair) the deterministic
:class:`OfflineReflector` reflects instead, and the output records the fallback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from semv.config import Settings
from semv.memory._model import Action, Diagnosis, MemoryType
from semv.memory._reflect import CandidateDraft, OfflineReflector, ReflectInput, ReflectOutput
from semv.memory._trace import CaseTrace
from semv.model import Dimension, UncertaintyCode, UncertaintyItem

if TYPE_CHECKING:
    from semv.agents.llm import LessonCandidate, LlmAgents
    from semv.agents.llm import ReflectInput as LlmReflectInput

__all__ = ["LlmReflector", "llm_reflect_input", "to_draft"]


def llm_reflect_input(request: ReflectInput, *, max_lessons: int = 3) -> LlmReflectInput:
    """The backend's reflect input from a committed trace: every subclaim with its decision
    band and score, its arguments (stance, text, cited ids, verification, strength) and the
    evidence of the trace. Only these ids can ground a lesson."""
    from semv.agents.llm import ReflectInput as LlmInput
    from semv.agents.llm import TraceArgument, TraceSubclaim

    trace = request.trace
    subclaims = []
    for dim, sub in trace.claims.subclaims.items():
        decision = trace.solved[dim].decision if dim in trace.solved else None
        args = trace.arguments[dim].arguments if dim in trace.arguments else ()
        subclaims.append(
            TraceSubclaim(
                id=sub.id,
                dimension=sub.dimension,
                statement=sub.statement,
                decision=decision.band.value if decision is not None else "not-decided",
                score=decision.score if decision is not None else 0.0,
                arguments=tuple(
                    TraceArgument(
                        id=a.id,
                        stance=a.stance,
                        text=a.text,
                        evidence=a.evidence,
                        verified=a.verified,
                        strength=a.strength,
                    )
                    for a in args
                ),
            )
        )
    return LlmInput(
        case_id=trace.case.id,
        claim=trace.case.claim,
        predicted=trace.verdict.label,
        gold=request.gold,
        subclaims=tuple(subclaims),
        evidence=tuple(trace.evidence().values()),
        max_lessons=max_lessons,
    )


def to_draft(
    lesson: LessonCandidate, request: ReflectInput, settings: Settings
) -> CandidateDraft | None:
    """One model lesson as a candidate draft, or None when none of its ids is in the trace.

    kind ``pitfall`` → failure lesson, ``strategy`` → episodic observation; the action is an
    added check (the lesson itself), scoped by a trigger naming the subclaim decision band and
    the source types of the grounding evidence. c_κ follows the offline reflector's constants
    (error vs. correct case, weak provenance) minus ``reflect_llm_unresolved`` when the model
    also cited ids outside the trace."""
    trace = request.trace
    cfg = settings.memory
    evidence_ids, argument_ids = trace.evidence_ids(), trace.argument_ids()
    evidence = tuple(g for g in lesson.grounding if g in evidence_ids)
    arguments = tuple(g for g in lesson.grounding if g in argument_ids)
    unresolved = (
        *lesson.unresolved,
        *(g for g in lesson.grounding if g not in evidence_ids and g not in argument_ids),
    )
    if not evidence and not arguments:
        return None
    dim = lesson.dimension.value
    correct = trace.verdict.label == request.gold
    pool = trace.evidence()
    cited = set(evidence)
    for args in trace.arguments.values():
        cited |= {e for a in args.arguments if a.id in arguments for e in a.evidence}
    grounded = [pool[e] for e in sorted(cited) if e in pool]
    source_types = tuple(sorted({e.source_type.value for e in grounded}))
    decision = trace.solved[dim].decision.band.value if dim in trace.solved else "not-decided"
    if correct:
        diagnosis = Diagnosis.SUCCESS
        confidence = cfg.reflect_success
    else:
        confident = trace.verdict.confidence >= settings.decision.weakly_supported
        diagnosis = Diagnosis.OVERCONFIDENT_ERROR if confident else Diagnosis.LABEL_MISMATCH
        confidence = cfg.reflect_mismatch
    if any(e.provenance is None for e in grounded):
        confidence -= cfg.reflect_weak_provenance
    if unresolved:
        confidence -= cfg.reflect_llm_unresolved
    return CandidateDraft(
        type=MemoryType.FAILURE if lesson.kind == "pitfall" else MemoryType.EPISODIC,
        diagnosis=diagnosis,
        lesson=lesson.text,
        dimension=dim,
        trigger={
            "reflector": "llm",
            "decision": decision,
            "evidence": "+".join(source_types) or "arguments",
        },
        action=Action.ADD_CHECK.value,
        checks=(f"{dim}: {lesson.text}",),
        source_types=source_types,
        polarity=1,
        evidence=evidence,
        arguments=arguments,
        confidence=min(1.0, max(0.0, confidence)),
    )


class LlmReflector:
    """:class:`semv.memory.Reflector` over ``LlmAgents.reflect``, with the offline reflector
    as the fallback when the model fails."""

    def __init__(
        self,
        agents: LlmAgents,
        settings: Settings,
        *,
        fallback: OfflineReflector | None = None,
        max_lessons: int = 3,
    ) -> None:
        self.agents = agents
        self.settings = settings
        self.fallback = fallback or OfflineReflector(settings)
        self.max_lessons = max_lessons
        self.name = f"llm-reflector/1:{settings.llm.model}"

    async def reflect(self, request: ReflectInput) -> ReflectOutput:
        out = await self.agents.reflect(llm_reflect_input(request, max_lessons=self.max_lessons))
        failed = [u for u in out.uncertainty if u.code is UncertaintyCode.MODEL_FALLBACK]
        if failed:
            offline = await self.fallback.reflect(request)
            return ReflectOutput(
                drafts=offline.drafts,
                reflector=self.fallback.name,
                notes=(*failed, *offline.notes),
            )
        drafts: list[CandidateDraft] = []
        notes: list[UncertaintyItem] = list(out.uncertainty)
        for lesson in out.candidates:
            draft = to_draft(lesson, request, self.settings)
            if draft is None:
                notes.append(_unresolved(request.trace, lesson.dimension, lesson.grounding))
                continue
            drafts.append(draft)
        return ReflectOutput(drafts=tuple(drafts), notes=tuple(notes))


def _unresolved(trace: CaseTrace, dim: Dimension, ids: tuple[str, ...]) -> UncertaintyItem:
    return UncertaintyItem(
        code=UncertaintyCode.UNRESOLVED_EVIDENCE,
        subject=trace.run_id,
        detail=f"reflect: a {dim.value} lesson cited only ids outside the trace {list(ids)}"[:500],
    )
