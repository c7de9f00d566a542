"""``describe:<asset>``: the agents' structured observation of one asset, added to its evidence.

A node of its own after ``media:<asset>``, so that changing the agent backend re-describes the
asset without re-running the extractors (the expensive part). Its output is the asset's final
``MediaEvidence``: the extractors' items plus ``ev:describe:<asset>``.
"""

from __future__ import annotations

from semv.agents import DescribeInput
from semv.graph import StageContext, StageDef
from semv.model import (
    Asset,
    Evidence,
    EvidenceKind,
    Keyframes,
    MediaDescription,
    MediaEvidence,
    MediaKind,
    MediaLocation,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
)
from semv.perception.artifacts import current_artifacts
from semv.perception.integrity import STRUCTURAL_RELEVANCE


def _images(asset: Asset, media: MediaEvidence) -> tuple[str, ...]:
    paths: list[str] = []
    for ev in media.evidence:
        frames = ev.observed(Keyframes)
        if frames is not None:
            for k in frames.keyframes:  # a reused output may name another machine's file
                found = current_artifacts().local(k.artifact)
                paths.append(str(found or k.artifact))
    usable = any(ev.kind is EvidenceKind.VISUAL for ev in media.evidence)
    if asset.kind is MediaKind.IMAGE and usable:
        paths.insert(0, asset.path)
    return tuple(paths)


async def describe(ctx: StageContext, *, asset: Asset, media: MediaEvidence) -> MediaEvidence:
    """Ask the agents' ``describe`` role; nothing to describe leaves the evidence unchanged."""
    if not media.evidence:
        return media
    out = await ctx.agents.describe(
        DescribeInput(asset=asset, evidence=media.evidence, images=_images(asset, media))
    )
    known = {ev.id for ev in media.evidence}
    cited = tuple(i for i in out.evidence if i in known)
    item = Evidence(
        id=f"ev:describe:{asset.id}",
        source=f"describe ({ctx.agents.name})",
        source_type=SourceType.OTHER,
        modality=Modality.IMAGE if asset.kind is not MediaKind.AUDIO else Modality.AUDIO,
        content=out.text,
        observation=MediaDescription(backend=ctx.agents.name, facts=out.observations),
        reliability=0.5,
        relevance=STRUCTURAL_RELEVANCE,
        location=MediaLocation(asset_id=asset.id),
        provenance=Provenance(
            producer=ProducerKind.TOOL,
            agent=f"{ctx.agents.name} agents, describe role",
            tool_version=ctx.agents.version,
            method="structured observation from the extractors' evidence",
            derived_from=(asset.id, *cited),
        ),
    )
    return media.model_copy(update={"evidence": (*media.evidence, item)})


STAGE = StageDef(
    name="describe",
    version="1",
    fn=describe,
    output=MediaEvidence,
    uses_agents=True,
)
