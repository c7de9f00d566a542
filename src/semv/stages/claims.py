"""``claims`` (C, Eq. 12): scoped subclaims from the claim, context and media evidence.

The agents' decomposer runs first (an LLM backend's, or the offline one). Any dimension it
leaves out, or returns malformed (wrong dimension or id, an empty statement), is completed by
the deterministic decomposer — the paper's "deterministic fallbacks" — so every configured
dimension always reaches the graph. Query seeds from media text (OCR, speech transcripts,
captions found by reverse search) are added to the subclaims' seeds.
"""

from __future__ import annotations

import logging

from semv.agents import DecomposeInput
from semv.dimensions import DIMENSIONS, decompose_case, media_seeds
from semv.graph import StageContext, StageDef
from semv.model import Case, Claims, Evidence, MediaEvidence, Stage, Subclaim

log = logging.getLogger(__name__)

MAX_SEEDS = 12
"""Upper bound on a subclaim's query seeds after the media seeds are added."""


def well_formed(key: str, sub: Subclaim | None) -> bool:
    """A subclaim the graph can use for dimension ``key``."""
    return (
        sub is not None
        and sub.dimension.value == key
        and sub.id == f"claim:{key}"
        and bool(sub.statement.strip())
    )


def complete(claims: Claims, fallback: Claims) -> tuple[Claims, list[str]]:
    """Fill missing or malformed dimensions from ``fallback``; return what was completed."""
    out: dict[str, Subclaim] = {}
    completed: list[str] = []
    for dim in DIMENSIONS:
        key = dim.value
        sub = claims.subclaims.get(key)
        if sub is not None and well_formed(key, sub):
            out[key] = sub
        else:
            out[key] = fallback.subclaims[key]
            completed.append(key)
    return Claims(subclaims=out), completed


def with_seeds(claims: Claims, seeds: tuple[str, ...]) -> Claims:
    if not seeds:
        return claims
    return Claims(
        subclaims={
            k: s.model_copy(
                update={"queries": tuple(dict.fromkeys((*s.queries, *seeds)))[:MAX_SEEDS]}
            )
            for k, s in claims.subclaims.items()
        }
    )


async def decompose(
    ctx: StageContext, *, case: Case, supplied: tuple[Evidence, ...], media: list[MediaEvidence]
) -> Claims:
    evidence = supplied + tuple(e for m in media for e in m.evidence)
    claims = await ctx.agents.decompose(DecomposeInput(case=case, evidence=evidence))
    if not all(well_formed(d.value, claims.subclaims.get(d.value)) for d in DIMENSIONS):
        claims, completed = complete(claims, decompose_case(case))
        log.warning("%s: decomposer output completed for %s", ctx.node, ", ".join(completed))
    return with_seeds(claims, media_seeds(tuple(e for m in media for e in m.evidence)))


STAGE = StageDef(
    name="claims",
    version="2",
    fn=decompose,
    output=Claims,
    uses_agents=True,
    symbol=Stage.CLAIMS,
    code=("semv.dimensions", "semv.nlp"),
)
