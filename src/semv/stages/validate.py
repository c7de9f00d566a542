"""``validate:k`` (V): normalize (Eq. 13) and rank the evidence for one subclaim.

Normalization merges repeated ids (keeping the strongest reliability and relevance and the
union of uncertainty codes) and drops items without provenance (they cannot ground an
argument, Def. 3.1). Ranking (Table S4 "Evidence ranking"): relevance q_e = prior relevance
+ claim-type bonus (the item's modality or source type fits the subclaim's dimension) + up to
the lexical-overlap bonus × overlap(subclaim, item) − uncertainty penalty, clipped to [0, 1];
the top-k items (default 10) are passed on, ties broken by reliability then id.
"""

from __future__ import annotations

from semv.config import EvidenceRankingConfig
from semv.graph import StageContext, StageDef
from semv.model import (
    Dimension,
    Evidence,
    Modality,
    RankedEvidence,
    Retrieved,
    SourceType,
    Stage,
    Subclaim,
)
from semv.text import lexical_overlap

FITTING: dict[Dimension, frozenset[Modality | SourceType]] = {
    Dimension.WHAT: frozenset({Modality.TEXT, Modality.IMAGE, Modality.VIDEO}),
    Dimension.WHERE: frozenset({Modality.METADATA, Modality.TEXT, Modality.IMAGE}),
    Dimension.WHEN: frozenset({Modality.METADATA, Modality.TEXT}),
    Dimension.WHO: frozenset({Modality.TEXT, Modality.AUDIO}),
    Dimension.WHY: frozenset({SourceType.FACT_CHECK, SourceType.PRIOR_CAPTION, SourceType.NEWS}),
    Dimension.AUTHENTICITY: frozenset({Modality.METADATA, SourceType.FORENSIC}),
}
"""Which modalities/source types fit each dimension's claim type (the +0.20 bonus)."""


def merge_duplicates(items: tuple[Evidence, ...]) -> list[Evidence]:
    """Eq. 13 normalization: one item per id, strongest r and q, union of ω."""
    merged: dict[str, Evidence] = {}
    for item in items:
        seen = merged.get(item.id)
        if seen is None:
            merged[item.id] = item
            continue
        merged[item.id] = seen.model_copy(
            update={
                "reliability": max(seen.reliability, item.reliability),
                "relevance": max(seen.relevance, item.relevance),
                "uncertainty": tuple(dict.fromkeys(seen.uncertainty + item.uncertainty)),
                "provenance": seen.provenance or item.provenance,
            }
        )
    return [e for e in merged.values() if e.provenance is not None]


def relevance(item: Evidence, subclaim: Subclaim, config: EvidenceRankingConfig) -> float:
    fits = FITTING[subclaim.dimension]
    bonus = config.claim_type_bonus if (item.modality in fits or item.source_type in fits) else 0.0
    query = " ".join((subclaim.statement, *subclaim.queries))
    overlap = lexical_overlap(query, item.content)
    penalty = config.uncertainty_penalty if item.uncertainty else 0.0
    score = item.relevance + bonus + config.lexical_overlap_bonus * overlap - penalty
    return min(1.0, max(0.0, score))


async def validate(
    ctx: StageContext, *, retrieved: Retrieved, subclaim: Subclaim
) -> RankedEvidence:
    config = ctx.settings.ranking
    items = merge_duplicates(retrieved.evidence)
    scored = [(relevance(e, subclaim, config), e) for e in items]
    scored.sort(key=lambda pair: (-pair[0], -pair[1].reliability, pair[1].id))
    top = scored[: config.top_k]
    return RankedEvidence(
        subclaim=subclaim.id,
        evidence=tuple(e.model_copy(update={"relevance": q}) for q, e in top),
        scores={e.id: q for q, e in top},
    )


STAGE = StageDef(
    name="validate",
    version="1",
    fn=validate,
    output=RankedEvidence,
    reads=("ranking",),
    symbol=Stage.VALIDATE,
    code=("semv.text",),
)
