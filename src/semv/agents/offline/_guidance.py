"""Recalled memory as reasoning checks for the offline rules (guidance, never evidence).

A ``context-threshold`` record raises, for the ``why`` subclaim, the similarity below which a
caption of the same media that names none of the claim's entities is read as describing a
different event. The argument such a check yields cites that caption (current-case
evidence) and lists the memory ids that suggested the check in M(a); with no evidence it
would be inadmissible (Def. 3.1)."""

from __future__ import annotations

from semv.config import OfflineAgentConfig
from semv.model import Dimension, MemoryView

__all__ = ["memory_config"]

CONTEXT_THRESHOLD = "context-threshold"


def memory_config(
    cfg: OfflineAgentConfig, memory: MemoryView, dimension: Dimension
) -> tuple[OfflineAgentConfig | None, tuple[str, ...]]:
    """The rule configuration the recalled checks ask for, and the records behind it; None
    when no recalled record changes a check for this subclaim."""
    if dimension is not Dimension.WHY:
        return None, ()
    best = cfg.context_attack
    ids: list[str] = []
    for g in memory.guidance:
        if g.action != CONTEXT_THRESHOLD or g.dimension != dimension.value:
            continue
        threshold = g.params.get("threshold")
        if threshold is None or threshold <= cfg.context_attack:
            continue
        ids.append(g.id)
        best = max(best, threshold)
    if not ids:
        return None, ()
    return cfg.model_copy(update={"context_attack": best}), tuple(ids)
