"""Recall acting on arguments: recalled strength lessons move w_a (Eq. 14) of the arguments
whose typed observations meet their condition, and each moved argument cites the lesson in
M(a) (Def. 3.1: evidence decides, memory guides).

An argument moves only when it cites current-case evidence; its stance, evidence and text stay
its own, with a note of which record scaled it by how much, so a reviewer can contest the
argument (and through it the lesson). Records with the same lesson key count once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from semv.config import Settings
from semv.memory._cues import EvidenceCue, argument_cue, matches
from semv.model import Argument, Evidence, MemoryGuidance, Subclaim
from semv.reasoning import ADJUST_STRENGTH, memory_factor, remembered_strength

__all__ = ["apply_strength_lessons", "strength_lessons"]


def strength_lessons(guidance: Sequence[MemoryGuidance], dimension: str) -> list[MemoryGuidance]:
    """The recalled strength lessons of one subclaim, one per condition (the first, i.e. the
    best-scored, of records stating the same condition and factor)."""
    out: list[MemoryGuidance] = []
    seen: set[tuple[tuple[tuple[str, str], ...], float]] = set()
    for g in guidance:
        if g.action != ADJUST_STRENGTH or g.dimension != dimension or not g.trigger:
            continue
        key = (tuple(sorted(g.trigger.items())), g.params.get("factor", 1.0))
        if key in seen:
            continue
        seen.add(key)
        out.append(g)
    return out


def apply_strength_lessons(
    arguments: Sequence[Argument],
    guidance: Sequence[MemoryGuidance],
    pool: Mapping[str, Evidence],
    *,
    claim: str,
    subclaim: Subclaim,
    language: str | None,
    settings: Settings,
) -> list[Argument]:
    """``arguments`` with every recalled strength lesson applied to those it holds on."""
    lessons = strength_lessons(guidance, subclaim.dimension.value)
    if not lessons:
        return list(arguments)
    cache: dict[str, EvidenceCue] = {}
    out: list[Argument] = []
    for arg in arguments:
        cue = argument_cue(
            arg,
            pool,
            claim=claim,
            subclaim=subclaim,
            language=language,
            settings=settings,
            cache=cache,
        )
        fired = [g for g in lessons if cue is not None and matches(g.trigger, cue)]
        if not fired:
            out.append(arg)
            continue
        memory = tuple(dict.fromkeys((*arg.memory, *(g.id for g in fired))))
        factor = memory_factor(memory, fired)
        notes = "; ".join(f"×{g.params.get('factor', 1.0):.2f} by memory {g.id}" for g in fired)
        out.append(
            arg.model_copy(
                update={
                    "memory": memory,
                    "strength": remembered_strength(arg.strength, factor),
                    "text": f"{arg.text} (strength {notes}: {fired[0].lesson})",
                }
            )
        )
    return out
