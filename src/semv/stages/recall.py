"""``recall:k``: active long-term memory for one subclaim (guidance, never evidence).

Two stage definitions share the node key ``recall:k``:

- ``STAGE`` (memory off): the view is empty and says so; planning proceeds without guidance.
- ``MEMORY_STAGE`` (memory on): retrieves from the graph source ``memory``
  (:class:`semv.memory.ActiveMemory`), whose bank and long-term-memory hash enter this node's
  fingerprint; plan and argue nodes downstream are therefore reused only while memory is
  unchanged. The case's supplied evidence gives the evidence pattern records are matched to,
  and, for strength lessons, the typed observations their condition is matched to.

``semv.memory`` is imported by the memory-on stage only, so a memory-off run never loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from semv.graph import StageContext, StageDef
from semv.model import Case, Evidence, MemoryView, Subclaim

if TYPE_CHECKING:
    from semv.memory import ActiveMemory


async def recall(ctx: StageContext, *, subclaim: Subclaim) -> MemoryView:
    return MemoryView(subclaim=subclaim.id, records=(), note="long-term memory is not enabled")


async def recall_memory(
    ctx: StageContext,
    *,
    case: Case,
    subclaim: Subclaim,
    supplied: tuple[Evidence, ...],
    memory: ActiveMemory,
) -> MemoryView:
    from semv.memory import evidence_cue, evidence_pattern, guidance  # memory-on runs only

    index = memory.index
    if index is None:
        raise ValueError(f"memory bank {memory.bank} was passed without its records")
    observed = (
        [
            evidence_cue(
                ev,
                claim=case.claim,
                subclaim=subclaim,
                language=case.context.language,
                settings=ctx.settings,
            ).as_dict()
            for ev in supplied
        ]
        if index.has_typed
        else []
    )
    found = index.search(
        task=str(ctx.params.get("contract", case.adapter)),
        subclaim=subclaim,
        claim=case.claim,
        pattern=evidence_pattern(supplied),
        observed=observed,
    )
    return MemoryView(
        subclaim=subclaim.id,
        records=tuple(s.record.id for s in found),
        note=f"{len(found)} of {len(index)} active records (bank {memory.bank})",
        guidance=tuple(guidance(s) for s in found),
        memory_hash=memory.hash,
    )


STAGE = StageDef(name="recall", version="1", fn=recall, output=MemoryView)
MEMORY_STAGE = StageDef(
    name="recall",
    version="2",
    fn=recall_memory,
    output=MemoryView,
    reads=("memory", "offline"),
    code=(
        "semv.memory",
        "semv.dimensions",
        "semv.nlp",
    ),
)
