"""``media:<asset>`` (Module B): provenance-bearing evidence extracted from one asset."""

from __future__ import annotations

import asyncio

from semv.graph import StageContext, StageDef
from semv.model import Asset, MediaEvidence
from semv.perception.metadata import read_metadata, tool_versions
from semv.perception.reverse_search import index_fingerprint
from semv.perception.signals import authenticity_signals, signal_tools


async def perceive(ctx: StageContext, *, asset: Asset) -> MediaEvidence:
    """Metadata, then forensics, content credentials and local reverse search."""
    metadata = await asyncio.to_thread(read_metadata, asset)
    return await asyncio.to_thread(authenticity_signals, metadata, asset, ctx.settings)


STAGE = StageDef(
    name="media",
    version="1",
    fn=perceive,
    output=MediaEvidence,
    reads=("forensics", "reverse_search", "sources"),
    code=("semv.perception",),
    tools=lambda: f"{tool_versions()}; {signal_tools()}",
    external=index_fingerprint,
)
