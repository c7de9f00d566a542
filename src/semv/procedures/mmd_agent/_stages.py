"""MMD-Agent as a procedure: its nodes on the shared stage graph.

```
bundle ─► media:<a> ─► describe:<a> ─► claims ─► recall/plan/retrieve/validate:what
mmd:text ─► mmd:image ─► mmd:cross ─► findings ─► verdict ─► render
```

The prefix is SEMV's (perception, decomposition, one retrieval chain for the event claim: the
original's single evidence search per post). Every stage reads ``reviewed_pool`` (the case's
supplied and media evidence and the ranked retrieved items, minus what a reviewer removed):
``mmd:text`` its world text, ``mmd:image`` the integrity observations, ``mmd:cross`` the media
context and world text; each later stage also receives the
earlier stages' answers (the original's sequential text → image → cross flow, which the model
prompts show). ``verdict`` applies the label rule of ``_rule`` (weights .45/.25/.30, cascade,
bands ±1.5 / ±0.6; L2 = union of the stage codes).
"""

from __future__ import annotations

from typing import Any

from semv.graph import Input, NodeSpec, StageContext, StageDef
from semv.model import (
    Case,
    Claims,
    MediaKind,
    RankedEvidence,
    Retrieved,
    Stage,
    Verdict,
)
from semv.procedures._ask import asker
from semv.procedures._baseline_graph import Inputs, baseline_builder, reviewed_pool
from semv.procedures._cues import claim_views
from semv.procedures._labelled import Finding, Findings, labelled_verdict
from semv.procedures.mmd_agent._assess import (
    QUESTIONS,
    StageOutcome,
    cross_stage,
    image_stage,
    text_stage,
)
from semv.procedures.mmd_agent._llm import ask_stage
from semv.procedures.mmd_agent._rule import MmdStage, combine_signals, union_codes

__all__ = ["build_mmd_graph", "decide"]

_CODE = (
    "semv.procedures.mmd_agent",
    "semv.procedures._cues",
    "semv.dimensions",
    "semv.nlp",
    "semv.procedures._ask",
)


def loaded_images(case: Case) -> int:
    """Images (and videos, through their keyframes) the stages can look at."""
    return sum(a.loaded and a.kind in (MediaKind.IMAGE, MediaKind.VIDEO) for a in case.media)


async def _text(
    ctx: StageContext,
    *,
    case: Case,
    claims: Claims,
    retrieved: Retrieved,
    ranked: RankedEvidence,
) -> StageOutcome:
    evidence = reviewed_pool(retrieved, ranked)
    offline = text_stage(
        claim_views(case, claims), evidence, ctx.settings.baselines, ctx.settings.offline
    )
    model = asker(ctx.agents)
    return await ask_stage(model, offline, case, evidence) if model else offline


async def _image(
    ctx: StageContext,
    *,
    case: Case,
    claims: Claims,
    retrieved: Retrieved,
    ranked: RankedEvidence,
    text: StageOutcome,
) -> StageOutcome:
    evidence = reviewed_pool(retrieved, ranked)
    offline = image_stage(
        claim_views(case, claims),
        evidence,
        loaded_images(case),
        ctx.settings.baselines,
        ctx.settings.offline,
    )
    model = asker(ctx.agents)
    return await ask_stage(model, offline, case, evidence, (text,)) if model else offline


async def _cross(
    ctx: StageContext,
    *,
    case: Case,
    claims: Claims,
    retrieved: Retrieved,
    ranked: RankedEvidence,
    text: StageOutcome,
    image: StageOutcome,
) -> StageOutcome:
    evidence = reviewed_pool(retrieved, ranked)
    offline = cross_stage(
        claim_views(case, claims),
        evidence,
        loaded_images(case),
        ctx.settings.baselines,
        ctx.settings.offline,
    )
    model = asker(ctx.agents)
    return await ask_stage(model, offline, case, evidence, (text, image)) if model else offline


_KINDS = {
    MmdStage.TEXT: "text veracity",
    MmdStage.IMAGE: "image veracity",
    MmdStage.CROSS: "cross-modal consistency",
}


async def _findings(
    ctx: StageContext,
    *,
    text: StageOutcome,
    image: StageOutcome,
    cross: StageOutcome,
    retrieved: Retrieved,
    ranked: RankedEvidence,
) -> Findings:
    stages = (text, image, cross)
    pool = {e.id: e for e in reviewed_pool(retrieved, ranked)}
    cited = dict.fromkeys(i for s in stages for i in s.cited)
    items = tuple(
        Finding(
            id=f"mmd:{s.stage.value}",
            kind=_KINDS[s.stage],
            text=QUESTIONS[s.stage],
            state=s.signal.value,
            score=float(s.score) if s.score is not None else None,
            evidence=s.cited,
            detail=(
                f"{s.rationale} L2 codes: {', '.join(s.codes) or 'none'}. Backend: {s.backend}."
            ),
        )
        for s in stages
    )
    return Findings(items=items, evidence=tuple(pool[i] for i in cited if i in pool))


def decide(
    text: StageOutcome, image: StageOutcome, cross: StageOutcome, contract: str, ctx: StageContext
) -> Verdict:
    """L1 by the cascade, L2 = union of the stage codes, L3 = the stages' rationales.

    Confidence γ = 0.5 + |total|/4 and truthfulness (the ψ̄ slot) = (total + 2)/4 map the
    weighted total's range [−2, 2] onto [0.5, 1] and [0, 1] (ours: the baseline gives a label
    only); a decision without any known stage has γ = 0.5, truthfulness 0.5."""
    cfg = ctx.settings.baselines
    rule = combine_signals(text.signal, image.signal, cross.signal, cfg)
    distortions = union_codes({s.stage: s.codes for s in (text, image, cross)})
    total = rule.total if rule.total is not None else 0.0
    rationale = " ".join(
        f"{_KINDS[s.stage].capitalize()}: {s.rationale}" for s in (text, image, cross)
    )
    return labelled_verdict(
        veracity=rule.label,
        distortions=distortions,
        rationale=rationale,
        confidence=min(1.0, 0.5 + abs(total) / 4),
        score=min(1.0, max(0.0, (total + 2) / 4)),
        contract=contract,
        rule=f"mmd-agent: {rule.rule}",
        uncertainty=tuple(u for s in (text, image, cross) for u in s.uncertainty),
    )


async def _verdict(
    ctx: StageContext, *, text: StageOutcome, image: StageOutcome, cross: StageOutcome
) -> Verdict:
    return decide(text, image, cross, str(ctx.params["contract"]), ctx)


def _agent_stage(name: str, fn: Any) -> StageDef:
    """A stage node that may ask the model (its identity enters the fingerprint)."""
    return StageDef(
        name=name,
        version="1",
        fn=fn,
        output=StageOutcome,
        reads=("baselines", "offline"),
        uses_agents=True,
        symbol=Stage.ARGUE,
        code=_CODE,
    )


TEXT_STAGE = _agent_stage("mmd-text", _text)
IMAGE_STAGE = _agent_stage("mmd-image", _image)
CROSS_STAGE = _agent_stage("mmd-cross", _cross)
FINDINGS_STAGE = StageDef(
    name="mmd-findings", version="1", fn=_findings, output=Findings, code=_CODE
)
VERDICT_STAGE = StageDef(
    name="mmd-verdict",
    version="1",
    fn=_verdict,
    output=Verdict,
    reads=("baselines",),
    symbol=Stage.AGGREGATE,
    code=_CODE,
)


def _own(x: Inputs) -> list[NodeSpec]:
    text, image, cross = (
        Input("text", "mmd:text"),
        Input("image", "mmd:image"),
        Input("cross", "mmd:cross"),
    )
    return [
        NodeSpec("mmd:text", TEXT_STAGE, (x.case, x.claims, x.retrieved, x.ranked)),
        NodeSpec("mmd:image", IMAGE_STAGE, (x.case, x.claims, x.retrieved, x.ranked, text)),
        NodeSpec(
            "mmd:cross",
            CROSS_STAGE,
            (x.case, x.claims, x.retrieved, x.ranked, text, image),
        ),
        NodeSpec("findings", FINDINGS_STAGE, (text, image, cross, x.retrieved, x.ranked)),
        NodeSpec("verdict", VERDICT_STAGE, (text, image, cross), params={"contract": x.contract}),
    ]


build_mmd_graph = baseline_builder("mmd-agent", _own)
"""The mmd-agent graph of a case (module doc)."""
