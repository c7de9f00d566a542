"""``recall:k``: active long-term memory for one subclaim (guidance, never evidence).

Module F (verification-gated memory) fills this node; until it is enabled the view is empty
and says so, and planning proceeds without memory guidance.
"""

from __future__ import annotations

from semv.graph import StageContext, StageDef
from semv.model import MemoryView, Subclaim


async def recall(ctx: StageContext, *, subclaim: Subclaim) -> MemoryView:
    return MemoryView(subclaim=subclaim.id, records=(), note="long-term memory is not enabled")


STAGE = StageDef(name="recall", version="1", fn=recall, output=MemoryView)
