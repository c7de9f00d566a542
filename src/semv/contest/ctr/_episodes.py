"""CTR episodes (SEMV §5.1): one of five corruption families injected into the state of a
verified case, with the reviewer correction that repairs it, plus an uncorrupted control.

A corruption is injected as state, not as input: the clean run's node is replaced by a
corrupted value in a new run linked to it (a ``ctr.injected`` trace event says which and how),
and the stage graph recomputes everything downstream of it, so the corrupted run is a
consistent state s^(0) with the error propagated into its decision and report.

=========================  ==========================================  ==================
family                     corrupted state                             reviewer correction
=========================  ==========================================  ==================
evidence / provenance      a fabricated source in ``retrieve:k``       reject it (→ R)
temporal grounding         a wrong year in an item's text              edit it back (→ V)
geolocation                a wrong place in an item's text             edit it back (→ V)
argument stance/strength   the strongest argument's stance flipped     reject it (→ A)
aggregation/report field   the verdict's label replaced                accept (→ Q)
=========================  ==========================================  ==================
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from pydantic import BaseModel

from semv.contest._state import RunState
from semv.model import (
    Accept,
    Arguments,
    Claims,
    Edit,
    Evidence,
    Modality,
    ProducerKind,
    Provenance,
    Reject,
    Retrieved,
    ReviewMeta,
    SolvedQbaf,
    SourceType,
    Stage,
    Stance,
)

__all__ = ["FAMILIES", "Corruption", "Episode", "control", "corrupt"]

FAMILIES: Final = ("evidence", "temporal", "geolocation", "argument", "aggregation")
_REVIEWER: Final = ReviewMeta(reviewer="ctr-reviewer", at="2026-01-01T00:00:00+00:00")
_OTHER_CITIES: Final = ("Marseille", "Toronto", "Manila", "Accra", "Santiago")
_YEAR: Final = re.compile(r"\b(19|20)\d{2}\b")


@dataclass(frozen=True)
class Corruption:
    """Tampered node values of the clean run, and the correction that repairs them."""

    family: str
    nodes: dict[str, BaseModel]
    correction: tuple[Accept | Reject | Edit, ...]
    gold_stage: Stage
    gold_subclaims: tuple[str, ...]
    target_node: str
    detail: str


@dataclass(frozen=True)
class Episode:
    case_id: str
    index: int
    family: str | None
    """None for the uncorrupted control."""
    corruption: Corruption | None
    correction: tuple[Accept | Reject | Edit, ...]
    gold_stage: Stage
    gold_subclaims: tuple[str, ...]
    target_node: str


def _strongest(state: RunState, dims: tuple[str, ...]) -> tuple[str, Arguments] | None:
    best: tuple[float, str, Arguments] | None = None
    for k in dims:
        key = f"argue:{k}"
        if key not in state.nodes:
            continue
        args = state.value(key, Arguments)
        for a in args.arguments:
            if best is None or a.strength > best[0]:
                best = (a.strength, k, args)
    return None if best is None else (best[1], best[2])


def _dims(state: RunState) -> tuple[str, ...]:
    return tuple(state.value("claims", Claims).subclaims)


def _edit_items(
    state: RunState, pattern: re.Pattern[str], replace: str, family: str, dim: str
) -> Corruption | None:
    """Rewrite one cited text item in every pool that holds it; correction: edit it back."""
    cited = {i for a in state.value(f"argue:{dim}", Arguments).arguments for i in a.evidence}
    pool = state.value(f"retrieve:{dim}", Retrieved)
    item = next((e for e in pool.evidence if e.id in cited and pattern.search(e.content)), None)
    if item is None:
        return None
    bad = item.model_copy(update={"content": pattern.sub(replace, item.content, count=1)})
    nodes: dict[str, BaseModel] = {}
    holders: list[str] = []
    for k in _dims(state):
        retrieved = state.value(f"retrieve:{k}", Retrieved)
        if any(e.id == item.id for e in retrieved.evidence):
            holders.append(k)
            swapped = tuple(bad if e.id == item.id else e for e in retrieved.evidence)
            nodes[f"retrieve:{k}"] = retrieved.model_copy(update={"evidence": swapped})
    fix = Edit(
        target=item.id,
        reason=f"the {family} detail of this item was misread; restore the source text",
        evidence_edited=(item,),
        meta=_REVIEWER,
    )
    return Corruption(
        family=family,
        nodes=nodes,
        correction=(fix,),
        gold_stage=Stage.VALIDATE,
        gold_subclaims=tuple(holders),
        target_node=f"validate:{dim}",
        detail=f"{item.id}: {item.content[:60]!r} → {bad.content[:60]!r}",
    )


def corrupt(state: RunState, family: str) -> Corruption | None:
    """Inject ``family`` into the clean run ``state``; None when the case offers no target."""
    dims = _dims(state)
    if family == "evidence":
        dim = "when" if "when" in dims else dims[0]
        pool = state.value(f"retrieve:{dim}", Retrieved)
        fabricated = Evidence(
            id="ev:web:ctr-fabricated",
            source="viral-repost.example.org",
            source_type=SourceType.SOCIAL,
            modality=Modality.TEXT,
            content="This picture was first posted on 3 May 2011, years before the claimed "
            "event, and shows a different scene.",
            reliability=0.9,
            published="2011-05-03",
            url="https://viral-repost.example.org/p/1",
            provenance=Provenance(producer=ProducerKind.RETRIEVAL, agent="ctr-injector"),
        )
        tampered = pool.model_copy(update={"evidence": (*pool.evidence, fabricated)})
        return Corruption(
            family=family,
            nodes={f"retrieve:{dim}": tampered},
            correction=(
                Reject(
                    target=fabricated.id,
                    reason="a repost site, not the original source; it misattributes the photo",
                    meta=_REVIEWER,
                ),
            ),
            gold_stage=Stage.RETRIEVE,
            gold_subclaims=(dim,),
            target_node=f"retrieve:{dim}",
            detail=f"fabricated source {fabricated.id} in retrieve:{dim}",
        )
    if family == "temporal":
        return _edit_items(state, _YEAR, "2009", family, "when")
    if family == "geolocation":
        places = state.value("claims", Claims).subclaims["where"].facts.places
        names = [p.split(",")[0].strip() for p in places if p.split(",")[0].strip()]
        if not names:
            return None
        pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")
        other = next(c for c in _OTHER_CITIES if c not in names)
        return _edit_items(state, pattern, other, family, "where")
    if family == "argument":
        found = _strongest(state, dims)
        if found is None:
            return None
        dim, args = found
        top = max(args.arguments, key=lambda a: a.strength)
        flipped = Stance.ATTACK if top.stance is Stance.SUPPORT else Stance.SUPPORT
        number = int(top.id.rsplit(":", 1)[1]) + 100
        bad = top.model_copy(
            update={"stance": flipped, "id": f"arg:{dim}:{flipped.value}:{number}"}
        )
        flipped_args = args.model_copy(
            update={"arguments": tuple(bad if a.id == top.id else a for a in args.arguments)}
        )
        return Corruption(
            family=family,
            nodes={f"argue:{dim}": flipped_args},
            correction=(
                Reject(target=bad.id, reason="the evidence says the opposite", meta=_REVIEWER),
            ),
            gold_stage=Stage.ARGUE,
            gold_subclaims=(dim,),
            target_node=f"argue:{dim}",
            detail=f"{top.id} stance {top.stance.value} → {flipped.value} as {bad.id}",
        )
    if family == "aggregation":
        verdict = state.verdict
        wrong = next(lbl for lbl in verdict.probabilities if lbl != verdict.label)
        tampered_verdict = verdict.model_copy(update={"label": wrong})
        target = control(state, 0)
        return Corruption(
            family=family,
            nodes={"aggregate": tampered_verdict},
            correction=target.correction,
            gold_stage=Stage.QBAF,
            gold_subclaims=target.gold_subclaims,
            target_node=target.target_node,
            detail=f"verdict label {verdict.label} → {wrong}",
        )
    raise ValueError(f"unknown corruption family {family!r}; known: {', '.join(FAMILIES)}")


def _unreduced(state: RunState, dims: tuple[str, ...]) -> tuple[str, str] | None:
    """The strongest argument that clash resolution left at its full strength: accepting it
    confirms the state rather than settling a clash (a control must not change anything)."""
    best: tuple[float, str, str] | None = None
    for k in dims:
        if f"argue:{k}" not in state.nodes:
            continue
        weights = state.value(f"qbaf:{k}", SolvedQbaf).qbaf.arguments
        for a in state.value(f"argue:{k}", Arguments).arguments:
            if weights.get(a.id) == a.strength and (best is None or a.strength > best[0]):
                best = (a.strength, k, a.id)
    return None if best is None else (best[1], best[2])


def control(state: RunState, index: int) -> Episode:
    """The uncorrupted control: the reviewer accepts the strongest argument that is not in a
    clash (→ Q), or, when there is none, the first subclaim."""
    dims = _dims(state)
    found = _unreduced(state, dims)
    dim = found[0] if found else dims[0]
    target = found[1] if found else state.value("claims", Claims).subclaims[dim].id
    fix = Accept(target=target, reason="checked: the argument holds", meta=_REVIEWER)
    return Episode(
        case_id=state.case.id,
        index=index,
        family=None,
        corruption=None,
        correction=(fix,),
        gold_stage=Stage.QBAF,
        gold_subclaims=(dim,),
        target_node=f"qbaf:{dim}",
    )


def episode_for(state: RunState, index: int, corruption: Corruption) -> Episode:
    return Episode(
        case_id=state.case.id,
        index=index,
        family=corruption.family,
        corruption=corruption,
        correction=corruption.correction,
        gold_stage=corruption.gold_stage,
        gold_subclaims=corruption.gold_subclaims,
        target_node=corruption.target_node,
    )
