"""Reviewed stages: the routed nodes of a revision, each the original stage plus the part of
the review state that enters it (a ``review`` parameter, so it is part of the fingerprint).

The wrappers do not change what the stages compute; they apply the reviewer's payload to the
stage's input or output:

* ``retrieve:k`` (R): rejected items leave the pool, E^+ items join it, items whose source a
  reviewer replaced are swapped;
* ``validate:k`` (V): items whose content a reviewer edited are swapped before ranking, and
  reviewer-supplied items are kept in the top-k (a reviewer's evidence is never ranked away);
* ``argue:k`` (A): rejected and edited arguments leave 𝒢_k, and every reviewer argument is
  verified and scored (Eq. 14) against the current evidence, like an agent's; the
  argument-to-argument relations are rebuilt over the reviewed arguments and the rejected
  relations leave them;
* ``qbaf:k`` (Q): accepted arguments keep their Eq. 14 strength through clash resolution.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from typing import Any

from semv.agents import ArgumentDraft, Verification, VerifyInput
from semv.contest._report import with_contestation
from semv.contest._review import ArgumentRef, HumanArgument, RelationRef, ReviewState
from semv.graph import NodeSpec, StageContext, StageDef
from semv.model import (
    Argument,
    Arguments,
    Band,
    Bundle,
    Evidence,
    MediaEvidence,
    Origin,
    RankedEvidence,
    RenderedReport,
    Retrieved,
    SolvedQbaf,
    Stage,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.reasoning import band, propagate
from semv.stages.argue import build_argument, relations_for

__all__ = ["REVIEWED_STAGES", "reviewed_graph", "reviewed_stage", "reviewer_evidence"]

REVIEWED_STAGES: dict[str, Stage] = {
    "retrieve": Stage.RETRIEVE,
    "validate": Stage.VALIDATE,
    "argue": Stage.ARGUE,
    "qbaf": Stage.QBAF,
}
_CODE = ("semv.contest._stages", "semv.contest._review", "semv.contest._report")


def _evidence(items: Sequence[Any]) -> list[Evidence]:
    return [Evidence.model_validate(i) for i in items]


def _refs(items: Sequence[Any]) -> list[ArgumentRef]:
    return [ArgumentRef.model_validate(i) for i in items]


def _relation_refs(items: Sequence[Any]) -> list[RelationRef]:
    return [RelationRef.model_validate(i) for i in items]


def _review_retrieve(out: Retrieved, review: Mapping[str, Any]) -> Retrieved:
    drop = set(review["removed"])
    swap = {e.id: e for e in _evidence(review["replaced"])}
    pool = [swap.get(e.id, e) for e in out.evidence if e.id not in drop]
    known = {e.id for e in pool}
    pool += [e for e in _evidence(review["added"]) if e.id not in known and e.id not in drop]
    return out.model_copy(update={"evidence": tuple(pool)})


def _review_validate_input(retrieved: Retrieved, review: Mapping[str, Any]) -> Retrieved:
    swap = {e.id: e for e in _evidence(review["edited"])}
    pool = tuple(swap.get(e.id, e) for e in retrieved.evidence)
    return retrieved.model_copy(update={"evidence": pool})


def _pin(
    ranked: RankedEvidence, full: Retrieved, pinned: Sequence[str], top_k: int
) -> RankedEvidence:
    """Keep reviewer items in the top-k: a missing one replaces the lowest-ranked agent item."""
    have = {e.id for e in ranked.evidence}
    missing = [e for e in full.evidence if e.id in pinned and e.id not in have]
    if not missing:
        return ranked
    kept = list(ranked.evidence)
    removable = [e for e in reversed(kept) if e.id not in pinned]
    for item in missing:
        if len(kept) >= top_k and removable:
            kept.remove(removable.pop(0))
        kept.append(item)
    scores = {e.id: ranked.scores.get(e.id, e.relevance) for e in kept}
    return ranked.model_copy(update={"evidence": tuple(kept), "scores": scores})


async def _human_arguments(
    ctx: StageContext, kwargs: Mapping[str, Any], humans: Sequence[HumanArgument]
) -> list[Argument]:
    """Verify and score reviewer arguments against the current ranked evidence."""
    ranked: RankedEvidence = kwargs["ranked"]
    subclaim = kwargs["subclaim"]
    evidence = {e.id: e for e in ranked.evidence}
    drafts: list[ArgumentDraft] = []
    lost: list[bool] = []
    for h in humans:
        resolved = tuple(i for i in h.cites if i in evidence)
        lost.append(len(resolved) != len(h.cites))
        drafts.append(ArgumentDraft(stance=h.stance, text=h.text, evidence=resolved))
    checks = (
        await ctx.agents.verify(
            VerifyInput(subclaim=subclaim, drafts=tuple(drafts), evidence=ranked.evidence)
        )
    ).results
    if len(checks) != len(drafts):
        checks = tuple(
            Verification(
                verified=False,
                reason="verifier returned no verdict for this argument",
                uncertainty=(UncertaintyCode.UNVERIFIED_ARGUMENT,),
            )
            for _ in drafts
        )
    out: list[Argument] = []
    for h, draft, check, dropped in zip(humans, drafts, checks, lost, strict=True):
        arg = build_argument(
            subclaim,
            draft,
            check,
            h.number,
            evidence,
            dropped,
            Origin(kind="human", name=h.reviewer),
            config=ctx.settings.strength,
            claim_text=kwargs["case"].claim if "case" in kwargs else "",
        )
        out.append(arg.model_copy(update={"replaces": h.replaces.id if h.replaces else None}))
    return out


def _resolve(
    solved: SolvedQbaf, arguments: Arguments, accepted: Sequence[ArgumentRef], ctx: StageContext
) -> SolvedQbaf:
    """Accepted arguments keep their full strength; re-propagate Eq. 16-18 if that changed."""
    ids = tuple(a.id for a in arguments.arguments if any(r.matches(a) for r in accepted))
    if not ids:
        return solved
    by_id = {a.id: a for a in arguments.arguments}
    weights = dict(solved.qbaf.arguments)
    for arg_id in ids:
        if arg_id in weights:
            weights[arg_id] = by_id[arg_id].strength
    qbaf = solved.qbaf.model_copy(update={"accepted": ids})
    if weights == solved.qbaf.arguments:
        return solved.model_copy(update={"qbaf": qbaf})
    config = ctx.settings.decision
    stances = {k: by_id[k].stance for k in weights}
    solved_graph = propagate(
        solved.qbaf.subclaim,
        solved.qbaf.base,
        weights,
        stances,
        arguments.relations,
        semantics=solved.qbaf.semantics,
    )
    psi = solved_graph.score
    decided = band(psi, config=config)
    notes = [n for n in solved.uncertainty if n.code is not UncertaintyCode.NEUTRAL_BAND]
    if decided is Band.UNCERTAIN:
        notes.append(
            UncertaintyItem(
                code=UncertaintyCode.NEUTRAL_BAND,
                subject=solved.decision.subclaim,
                detail=f"score {psi:.3f} lies in the neutral band",
                stages=(Stage.QBAF,),
            )
        )
    s_total, a_total = solved_graph.support_total, solved_graph.attack_total
    qbaf = qbaf.model_copy(
        update={
            "arguments": weights,
            "strengths": solved_graph.strengths,
            "edges": solved_graph.edges,
            "support_total": s_total,
            "attack_total": a_total,
            "delta": s_total - a_total,
            "score": psi,
        }
    )
    decision = solved.decision.model_copy(
        update={
            "score": psi,
            "band": decided,
            "support_total": s_total,
            "attack_total": a_total,
            "uncertainty": tuple(dict.fromkeys(n.code for n in notes)),
        }
    )
    return SolvedQbaf(qbaf=qbaf, decision=decision, uncertainty=tuple(notes))


def reviewed_stage(stage: StageDef) -> StageDef:
    """``stage`` taking a ``review`` parameter (see the module docstring)."""
    symbol = REVIEWED_STAGES[stage.name]
    original = stage.fn

    @functools.wraps(original)
    async def run(ctx: StageContext, **kwargs: Any) -> Any:
        review: Mapping[str, Any] = ctx.params["review"]
        result = await original(ctx, **kwargs) if symbol is not Stage.VALIDATE else None
        if symbol is Stage.RETRIEVE:
            if not isinstance(result, Retrieved):
                raise TypeError(f"retrieve stage returned {type(result).__name__}")
            return _review_retrieve(result, review)
        if symbol is Stage.VALIDATE:
            retrieved = _review_validate_input(kwargs["retrieved"], review)
            ranked = await original(ctx, **{**kwargs, "retrieved": retrieved})
            if not isinstance(ranked, RankedEvidence):
                raise TypeError(f"validate stage returned {type(ranked).__name__}")
            return _pin(ranked, retrieved, review["pinned"], ctx.settings.ranking.top_k)
        if symbol is Stage.ARGUE:
            out = result
            if not isinstance(out, Arguments):
                raise TypeError(f"argue stage returned {type(out).__name__}")
            rejected = _refs(review["rejected"])
            kept = [a for a in out.arguments if not any(r.matches(a) for r in rejected)]
            humans = [HumanArgument.model_validate(h) for h in review["humans"]]
            made = await _human_arguments(ctx, kwargs, humans) if humans else []
            made = [a for a in made if not any(r.matches(a) for r in rejected)]
            final = (*kept, *made)
            by_id = {a.id: a for a in final}
            dropped = _relation_refs(review.get("rejected_relations", ()))
            relations = tuple(
                rel
                for rel in relations_for(ctx, kwargs["subclaim"], final, kwargs["ranked"])
                if not any(r.matches(rel, by_id) for r in dropped)
            )
            return out.model_copy(update={"arguments": final, "relations": relations})
        solved = result
        if not isinstance(solved, SolvedQbaf):
            raise TypeError(f"qbaf stage returned {type(solved).__name__}")
        return _resolve(solved, kwargs["arguments"], _refs(review["accepted"]), ctx)

    return dataclasses.replace(
        stage, fn=run, version=f"{stage.version}+review", code=(*stage.code, *_CODE)
    )


def reviewer_evidence(state: ReviewState) -> list[Evidence]:
    """Every evidence item reviewers supplied or edited, once per id (the last version)."""
    items: dict[str, Evidence] = {}
    for review in state.subclaims.values():
        for item in (*review.added, *review.replaced, *review.edited):
            items[item.id] = item
    return list(items.values())


def _with_evidence(
    bundle: Bundle, media: list[MediaEvidence], items: Sequence[Evidence]
) -> tuple[Bundle, list[MediaEvidence]]:
    swap = {e.id: e for e in items}
    supplied = [swap.pop(e.id, e) for e in bundle.supplied]
    media = [
        m.model_copy(update={"evidence": tuple(swap.pop(e.id, e) for e in m.evidence)})
        for m in media
    ]
    supplied += list(swap.values())
    return bundle.model_copy(update={"supplied": tuple(supplied)}), media


def _reviewed_render(stage: StageDef) -> StageDef:
    """``render`` that lists reviewer evidence with the case's (so citations resolve) and
    appends the contestation log to every format."""
    original = stage.fn

    @functools.wraps(original)
    async def run(ctx: StageContext, **kwargs: Any) -> Any:
        review = ctx.params["review"]
        items = _evidence(review["evidence"])
        bundle, media = _with_evidence(kwargs["bundle"], kwargs["media"], items)
        report = await original(ctx, **{**kwargs, "bundle": bundle, "media": media})
        if not isinstance(report, RenderedReport):
            raise TypeError(f"render stage returned {type(report).__name__}")
        return with_contestation(report, ReviewState.model_validate(review["state"]))

    return dataclasses.replace(
        stage, fn=run, version=f"{stage.version}+review", code=(*stage.code, *_CODE)
    )


def reviewed_graph(specs: Sequence[NodeSpec], state: ReviewState) -> list[NodeSpec]:
    """The case's graph with the review state entering exactly the routed nodes (and the
    reviewer's evidence entering the report, so that its citations resolve)."""
    out: list[NodeSpec] = []
    evidence = reviewer_evidence(state)
    for spec in specs:
        if spec.key == "render" and state.log:
            listed = {
                "evidence": [e.model_dump(mode="json") for e in evidence],
                "state": state.model_dump(mode="json"),
            }
            out.append(
                dataclasses.replace(
                    spec,
                    stage=_reviewed_render(spec.stage),
                    params={**spec.params, "review": listed},
                )
            )
            continue
        name, _, part = spec.key.partition(":")
        symbol = REVIEWED_STAGES.get(name)
        payload = state.of(part).payload(symbol) if symbol is not None and part else None
        if payload is None:
            out.append(spec)
            continue
        out.append(
            dataclasses.replace(
                spec,
                stage=reviewed_stage(spec.stage),
                params={**spec.params, "review": payload},
            )
        )
    return out
