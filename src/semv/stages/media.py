"""``media:<asset>`` (Module B): provenance-bearing evidence extracted from one asset."""

from __future__ import annotations

import asyncio

from semv.graph import StageContext, StageDef
from semv.model import Asset, MediaEvidence
from semv.perception.metadata import read_metadata, tool_versions


async def perceive(ctx: StageContext, *, asset: Asset) -> MediaEvidence:
    """Metadata and integrity for now; OCR, ASR, keyframes, forensics join in Module B."""
    return await asyncio.to_thread(read_metadata, asset)


STAGE = StageDef(
    name="media",
    version="1",
    fn=perceive,
    output=MediaEvidence,
    code=("semv.perception",),
    tools=tool_versions,
)
