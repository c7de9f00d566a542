"""Post-prediction reflection (SEMV §4.6): the ``Reflector`` role and its offline backend.

Reflection runs only after a report is committed, only in a learning or bootstrap run, with
the gold label (or human feedback) revealed through ``SealedGold.reveal``. A reflector reads the
finalized trace and proposes candidate drafts; the learning loop adds ids, source case, run and
fingerprint, and the gate (Eq. 26) decides what is staged.

An LLM backend implements the same protocol (:class:`Reflector`): one async method
``reflect(request: ReflectInput) -> ReflectOutput``.
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

from pydantic import Field

from semv.config import Settings
from semv.dimensions import ClaimView, describes_same_media, shared_entities
from semv.memory._lessons import DOWN, lesson_text, strength_drafts, strength_trigger
from semv.memory._model import Action, Diagnosis, MemoryType
from semv.memory._trace import CaseTrace
from semv.model import (
    Dimension,
    Evidence,
    Frozen,
    InternalLabel,
    Stance,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.nlp.entities import extract
from semv.nlp.similarity import similarity

__all__ = [
    "CandidateDraft",
    "OfflineReflector",
    "ReflectInput",
    "ReflectOutput",
    "Reflector",
    "context_signal",
]

_CONTEXT_LABELS = frozenset({"OOC", InternalLabel.FALSE_CONTEXT.value})


class ReflectInput(Frozen):
    """What a reflector sees: the committed trace, the task, and the revealed supervision."""

    trace: CaseTrace
    task: str = Field(description="The dataset's label contract.")
    gold: str = Field(description="The revealed gold label (after commit).")
    supervision: str = Field("gold", description="gold | human")


class CandidateDraft(Frozen):
    """A reflected lesson before the loop attaches ids and provenance."""

    type: MemoryType
    diagnosis: Diagnosis
    lesson: str = Field(min_length=1)
    dimension: str
    trigger: dict[str, str]
    pattern: dict[str, float] = Field(default_factory=dict)
    action: str
    params: dict[str, float] = Field(default_factory=dict)
    queries: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    polarity: int = 1
    evidence: tuple[str, ...] = ()
    arguments: tuple[str, ...] = ()
    confidence: float = Field(ge=0.0, le=1.0)


class ReflectOutput(Frozen):
    drafts: tuple[CandidateDraft, ...] = ()
    reflector: str | None = Field(
        None, description="Who produced the drafts when not the reflector asked (a fallback)."
    )
    notes: tuple[UncertaintyItem, ...] = Field(
        (), description="What went wrong on the way (e.g. a model fallback); never a lesson."
    )


@runtime_checkable
class Reflector(Protocol):
    """The reflection role: diagnose a committed case against revealed supervision."""

    name: str

    async def reflect(self, request: ReflectInput) -> ReflectOutput:
        """Diagnose label mismatch, overconfident error, context misuse vs. manipulation,
        retrieval/tool failure, unresolved clash, temporal/geolocation error and weak
        provenance; propose episodic observations, failure lessons or semantic rules, each
        grounded in evidence and argument ids of the trace."""
        ...


def context_signal(
    trace: CaseTrace, ev: Evidence, settings: Settings
) -> tuple[float, tuple[str, ...]] | None:
    """For a caption of the case's own media: (similarity to the claim, shared entities), the
    two quantities the offline ``why`` rule compares; None for other evidence."""
    if not describes_same_media(ev) or not ev.content.strip():
        return None
    sub = trace.claims.subclaims.get(Dimension.WHY.value)
    if sub is None:
        return None
    cfg = settings.offline
    view = ClaimView(
        subclaim=sub, claim_text=trace.case.claim, language=trace.case.context.language
    )
    shared = shared_entities(view, extract(ev.content, view.language), cfg.place_tolerance_km)
    return similarity(trace.case.claim, ev.content, cfg).value, shared


def bucket(value: float, width: float) -> float:
    """Upper edge of the similarity bucket holding ``value`` (e.g. 0.34 → 0.4 for width 0.1)."""
    return round(math.floor(value / width + 1e-9) * width + width, 6)


class OfflineReflector:
    """Deterministic reflection from the trace: which subclaim and which evidence pattern drove
    the decision, and whether the revealed label says it drove it the right way."""

    name = "offline-reflector/1"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def reflect(self, request: ReflectInput) -> ReflectOutput:
        drafts = [
            *self._context_lessons(request),
            *self._clash_lessons(request),
            *self._strength_lessons(request),
        ]
        return ReflectOutput(drafts=tuple(drafts))

    def _strength_lessons(self, request: ReflectInput) -> list[CandidateDraft]:
        """Which kind of argument was over- or under-trusted on the subclaims the revealed
        label speaks about (``semv.memory._lessons``), one candidate per lesson key,
        direction of evidence (polarity) and type."""
        cfg = self.settings.memory
        out: list[CandidateDraft] = []
        seen: set[tuple[str, int, MemoryType]] = set()
        for d in strength_drafts(request.trace, request.gold, self.settings):
            trigger = strength_trigger(d.cue, d.direction)
            key = (
                d.dimension + "|" + ",".join(f"{k}={v}" for k, v in sorted(trigger.items())),
                d.polarity,
                d.type,
            )
            if key in seen:
                continue
            seen.add(key)
            factor = cfg.strength_down if d.direction == DOWN else cfg.strength_up
            out.append(
                CandidateDraft(
                    type=d.type,
                    diagnosis=d.diagnosis,
                    lesson=lesson_text(d.dimension, d.cue, d.direction, factor),
                    dimension=d.dimension,
                    trigger=trigger,
                    action=Action.ADJUST_STRENGTH.value,
                    params={"factor": factor},
                    checks=(
                        f"{d.dimension}: {d.cue['stance']} on {d.cue['evidence']} evidence, "
                        f"strength × {factor:.2f}",
                    ),
                    polarity=d.polarity,
                    evidence=d.evidence,
                    arguments=(d.argument,),
                    confidence=d.confidence,
                )
            )
        return out

    def _context_lessons(self, request: ReflectInput) -> list[CandidateDraft]:
        """The ``why`` dimension: a caption of the same media that names none of the claim's
        entities but was not dissimilar enough for the configured rule to call it another
        event. Gold tells whether reading it as another context would have been right."""
        trace = request.trace
        dim = Dimension.WHY.value
        if dim not in trace.ranked:
            return []
        base = self.settings.offline.context_attack
        cfg = self.settings.memory
        predicted_context = trace.verdict.internal_label is InternalLabel.FALSE_CONTEXT
        gold_context = request.gold in _CONTEXT_LABELS
        args = trace.arguments[dim].arguments
        out: list[CandidateDraft] = []
        for ev in trace.ranked[dim].evidence:
            signal = context_signal(trace, ev, self.settings)
            if signal is None:
                continue
            sim, shared = signal
            if shared or sim < base:
                continue  # the configured rule already decides this pattern
            edge = bucket(sim, cfg.similarity_bucket)
            citing = tuple(a.id for a in args if ev.id in a.evidence)
            memory_fired = tuple(
                a.id for a in args if ev.id in a.evidence and a.memory and a.stance is Stance.ATTACK
            )
            penalty = cfg.reflect_weak_provenance if ev.provenance is None else 0.0
            trigger = {
                "evidence": "same-media-caption",
                "shared_entities": "none",
                "similarity_below": f"{edge:.2f}",
            }
            lesson = (
                "A caption of the same media that names none of the claim's people, places or "
                f"events, with claim similarity below {edge:.2f}, describes a different event "
                "than the claimed context: check it as a context attack."
            )
            common = {
                "dimension": dim,
                "trigger": trigger,
                "pattern": {"similarity": round(sim, 4)},
                "action": Action.CONTEXT_THRESHOLD.value,
                "params": {"threshold": edge},
                "queries": (),
                "source_types": ("prior-caption", "fact-check"),
                "checks": (
                    f"same-media caption without shared entities and similarity < {edge:.2f}",
                ),
                "evidence": (ev.id,),
            }
            if gold_context and not predicted_context:
                out.append(
                    CandidateDraft(
                        type=MemoryType.FAILURE,
                        diagnosis=(
                            Diagnosis.OVERCONFIDENT_ERROR
                            if trace.verdict.confidence >= self.settings.decision.weakly_supported
                            else Diagnosis.LABEL_MISMATCH
                        ),
                        lesson=lesson,
                        polarity=1,
                        arguments=citing,
                        confidence=max(0.0, cfg.reflect_mismatch - penalty),
                        **common,
                    )
                )
            elif gold_context and memory_fired:
                out.append(
                    CandidateDraft(
                        type=MemoryType.EPISODIC,
                        diagnosis=Diagnosis.SUCCESS,
                        lesson=lesson,
                        polarity=1,
                        arguments=memory_fired,
                        confidence=max(0.0, cfg.reflect_success - penalty),
                        **common,
                    )
                )
            elif not gold_context:
                # Counter-evidence: the same pattern on a case whose context was right.
                kind = MemoryType.FAILURE if predicted_context else MemoryType.EPISODIC
                out.append(
                    CandidateDraft(
                        type=kind,
                        diagnosis=(
                            Diagnosis.LABEL_MISMATCH if predicted_context else Diagnosis.SUCCESS
                        ),
                        lesson=(
                            "A caption of the same media with claim similarity "
                            f"{sim:.2f} and no shared entities still described the claimed "
                            "context: low similarity alone does not show another event."
                        ),
                        polarity=-1,
                        arguments=citing,
                        confidence=max(
                            0.0,
                            (cfg.reflect_mismatch if predicted_context else cfg.reflect_success)
                            - penalty,
                        ),
                        **common,
                    )
                )
        return out

    def _clash_lessons(self, request: ReflectInput) -> list[CandidateDraft]:
        """An error on a case whose subclaim kept an unresolved major conflict: a failure
        lesson asking planning to add a tie-breaking check for that dimension."""
        trace = request.trace
        if _correct(request):
            return []
        out: list[CandidateDraft] = []
        for dim, solved in trace.solved.items():
            if not any(u.code is UncertaintyCode.MAJOR_CONFLICT for u in solved.uncertainty):
                continue
            clash_args = tuple(
                a.id
                for a in trace.arguments[dim].arguments
                if a.stance in (Stance.SUPPORT, Stance.ATTACK) and a.admissible
            )
            cited = tuple(
                dict.fromkeys(
                    e for a in trace.arguments[dim].arguments for e in a.evidence if a.admissible
                )
            )
            out.append(
                CandidateDraft(
                    type=MemoryType.FAILURE,
                    diagnosis=Diagnosis.UNRESOLVED_CLASH,
                    lesson=(
                        f"When support and attack on the {dim} subclaim clash, an independent "
                        "source type should break the tie before the decision."
                    ),
                    dimension=dim,
                    trigger={"uncertainty": UncertaintyCode.MAJOR_CONFLICT.value},
                    action=Action.ADD_CHECK.value,
                    checks=(f"{dim}: seek an independent source when support and attack clash",),
                    source_types=("fact-check", "official"),
                    evidence=cited,
                    arguments=clash_args,
                    confidence=self.settings.memory.reflect_mismatch,
                )
            )
        return out


def _correct(request: ReflectInput) -> bool:
    return request.trace.verdict.label == request.gold
