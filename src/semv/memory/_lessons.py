"""Strength lessons from a committed case (SEMV §4.6, "Post-Prediction Reflection").

The revealed label says, for each subclaim it speaks about, which stance was right: the
context subclaims (where, when, who, why) of an out-of-context pair are false (an attack was
right), those of an accurate pair are not (a support was right). Each admissible argument is
then helpful or misleading, and its typed observations (``semv.memory._cues``) name the cue:

- a mistake whose subclaim ended on the wrong side blames the misleading arguments there
  (*over-trusted*: a failure lesson scaling that cue's strength down) and credits the helpful
  ones that lost (*under-trusted*: a failure lesson scaling it up);
- every helpful argument contradicts the lesson that would scale its cue down, every
  misleading one the lesson that would scale its cue up (polarity −1: conflict retention and
  the Eq. 29 lifecycle retire a lesson whose cue is right too often);
- on a correct case, an argument a recalled strength lesson moved the right way is an
  episodic observation of that lesson's success.

A lesson is the condition (subclaim, stance, cue) and a factor; its text is built from those
values only, never from the case's words.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from semv.config import Settings
from semv.memory._cues import CUE_KEYS, EvidenceCue, argument_cue
from semv.memory._model import Diagnosis, MemoryType
from semv.memory._trace import CaseTrace
from semv.model import (
    CONTEXT_DIMENSIONS,
    Argument,
    Band,
    CosmosLabel,
    InternalLabel,
    Stance,
)
from semv.reasoning import memory_factor

__all__ = [
    "DOWN",
    "UP",
    "StrengthDraft",
    "expected_stance",
    "lesson_text",
    "strength_drafts",
    "strength_trigger",
]

DOWN = "down"
UP = "up"
_CONTEXT = frozenset(d.value for d in CONTEXT_DIMENSIONS)
_REFUTED = frozenset({Band.REFUTED, Band.WEAKLY_REFUTED})
_FALSE_CONTEXT = frozenset({CosmosLabel.OOC.value, InternalLabel.FALSE_CONTEXT.value})
_ACCURATE_CONTEXT = frozenset({CosmosLabel.NOOC.value, InternalLabel.VERIFIED.value})


def expected_stance(gold: str, dimension: str) -> Stance | None:
    """The stance the revealed label says was right on ``dimension``; None when the label
    says nothing about it (the event content of an out-of-context pair, any subclaim of a
    label outside the context contracts)."""
    if dimension not in _CONTEXT:
        return None
    if gold in _FALSE_CONTEXT:
        return Stance.ATTACK
    if gold in _ACCURATE_CONTEXT:
        return Stance.SUPPORT
    return None


def _ended_right(expected: Stance, band: Band) -> bool:
    """A context subclaim ends on the right side: refuted when an attack was right, not
    refuted when a support was."""
    refuted = band in _REFUTED
    return refuted if expected is Stance.ATTACK else not refuted


@dataclass(frozen=True)
class StrengthDraft:
    """What reflection found about one argument's cue (before it becomes a candidate)."""

    type: MemoryType
    diagnosis: Diagnosis
    dimension: str
    cue: dict[str, str]
    direction: str
    polarity: int
    argument: str
    evidence: tuple[str, ...]
    confidence: float


_PHRASES = {
    ("shared_names", "some"): "shares a name with the claim",
    ("shared_names", "none"): "shares no name with the claim",
    ("evidence_names", "some"): "names people, places or events",
    ("evidence_names", "none"): "names no person, place or event",
}


def lesson_text(dimension: str, cue: dict[str, str], direction: str, factor: float) -> str:
    """The readable lesson of a strength record, from its condition and factor only."""
    stance = "an attack" if cue.get("stance") == Stance.ATTACK.value else "a support"
    kind = cue.get("evidence", "evidence")
    parts = (
        [f"claim similarity {cue['similarity']}"] if cue.get("similarity", "n/a") != "n/a" else []
    )
    parts += [
        _PHRASES[(k, cue[k])]
        for k in ("shared_names", "evidence_names")
        if (k, cue.get(k)) in _PHRASES
    ]
    details = "; ".join(parts)
    trust = "over-trusted" if direction == DOWN else "under-trusted"
    return (
        f"On the {dimension} subclaim, {stance} citing {kind} evidence"
        f"{' (' + details + ')' if details else ''} was {trust}: scale its strength by "
        f"{factor:.2f}."
    )


def strength_trigger(cue: dict[str, str], direction: str) -> dict[str, str]:
    """The record trigger: the full cue (every key of ``CUE_KEYS``) and the direction."""
    return {**{k: cue[k] for k in CUE_KEYS}, "adjust": direction}


def _moved(arg: Argument, trace: CaseTrace, dim: str) -> str | None:
    """The direction recalled strength lessons moved ``arg`` in, if they moved it."""
    factor = memory_factor(arg.memory, trace.recalled[dim].guidance)
    if factor < 1.0:
        return DOWN
    if factor > 1.0:
        return UP
    return None


def strength_drafts(trace: CaseTrace, gold: str, settings: Settings) -> Iterator[StrengthDraft]:
    """Every strength observation of a committed case (see the module docstring)."""
    cfg = settings.memory
    mistake = trace.verdict.label != gold
    pool = trace.evidence()
    cache: dict[str, EvidenceCue] = {}
    for dim, args in trace.arguments.items():
        expected = expected_stance(gold, dim)
        if expected is None or dim not in trace.solved:
            continue
        right_side = _ended_right(expected, trace.solved[dim].decision.band)
        subclaim = trace.claims.subclaims[dim]
        for arg in args.arguments:
            if not arg.admissible or arg.stance not in (Stance.SUPPORT, Stance.ATTACK):
                continue
            cue = argument_cue(
                arg,
                pool,
                claim=trace.case.claim,
                subclaim=subclaim,
                language=trace.case.context.language,
                settings=settings,
                cache=cache,
            )
            if cue is None:
                continue
            helpful = arg.stance is expected
            weak = any(pool[e].provenance is None for e in arg.evidence if e in pool)
            penalty = cfg.reflect_weak_provenance if weak else 0.0
            # the counter-observation: this cue pointed the right (or wrong) way here
            counter = StrengthDraft(
                type=MemoryType.FAILURE if mistake else MemoryType.EPISODIC,
                diagnosis=Diagnosis.LABEL_MISMATCH if mistake else Diagnosis.SUCCESS,
                dimension=dim,
                cue=cue,
                direction=DOWN if helpful else UP,
                polarity=-1,
                argument=arg.id,
                evidence=arg.evidence,
                confidence=max(
                    0.0, (cfg.reflect_mismatch if mistake else cfg.reflect_success) - penalty
                ),
            )
            yield counter
            if mistake and not right_side:
                yield replace(
                    counter,
                    type=MemoryType.FAILURE,
                    diagnosis=Diagnosis.OVERCONFIDENT_ERROR
                    if trace.verdict.confidence >= settings.decision.weakly_supported
                    else Diagnosis.LABEL_MISMATCH,
                    direction=UP if helpful else DOWN,
                    polarity=1,
                    confidence=max(0.0, cfg.reflect_mismatch - penalty),
                )
            moved = _moved(arg, trace, dim)
            if not mistake and moved == (UP if helpful else DOWN):
                yield replace(
                    counter,
                    type=MemoryType.EPISODIC,
                    diagnosis=Diagnosis.SUCCESS,
                    direction=moved,
                    polarity=1,
                    confidence=max(0.0, cfg.reflect_success - penalty),
                )
