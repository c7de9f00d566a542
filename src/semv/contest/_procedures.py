"""What contest needs of each verification procedure: how a committed run becomes the routing
view (the targets a reviewer's actions resolve against) and how a review enters the revised
graph. One entry per procedure whose graph is not SEMV's claims/arguments/retrieval shape;
every other procedure (SEMV and the baselines built on its graph prefix) is read as SEMV."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from semv.contest._review import ReviewState
from semv.contest._routing import BaseView
from semv.model import Arguments, Bundle, Claims, MediaEvidence, Retrieved

if TYPE_CHECKING:
    from semv.contest._state import RunState

__all__ = ["ProcedureContest", "procedure_contest"]


def claims_view(state: RunState) -> BaseView:
    """The routing view of a run of SEMV's graph: subclaims from ``claims``, arguments and
    relations from ``argue:*``, evidence pools from ``retrieve:*``; supplied and extracted
    media evidence that no pool holds is unlocalised."""
    claims = state.value("claims", Claims)
    subclaims = {s.id: k for k, s in claims.subclaims.items()}
    argued = [k for k in claims.subclaims if f"argue:{k}" in state.nodes]
    arguments = {a.id: a for k in argued for a in state.value(f"argue:{k}", Arguments).arguments}
    relations = {r.id: r for k in argued for r in state.value(f"argue:{k}", Arguments).relations}
    pools = {
        k: {e.id: e for e in state.value(f"retrieve:{k}", Retrieved).evidence}
        for k in claims.subclaims
        if f"retrieve:{k}" in state.nodes
    }
    pooled = {e for pool in pools.values() for e in pool}
    extracted = [
        e.id
        for key in state.nodes
        if key.startswith("media:")
        for e in state.value(key, MediaEvidence).evidence
    ]
    supplied = (
        [e.id for e in state.value("bundle", Bundle).supplied] if "bundle" in state.nodes else []
    )
    return BaseView(
        subclaims=subclaims,
        arguments=arguments,
        pools=pools,
        relations=relations,
        unlocalised=frozenset(i for i in (*supplied, *extracted) if i not in pooled),
    )


@dataclass(frozen=True)
class ProcedureContest:
    """How contest reads and revises the runs of one procedure."""

    view: Callable[[RunState], BaseView]
    """The routing view of a committed run."""
    rejections: Callable[[ReviewState, set[str]], Mapping[str, Sequence[str]]] | None = None
    """The graph builder's ``rejected`` from the review and the view's subclaims; None when
    the review enters the graph through its review nodes alone."""


def _remmd_view(state: RunState) -> BaseView:
    from semv.contest._remmd import remmd_view  # ReMMD's models load only for a ReMMD run

    return remmd_view(state.value)


def _remmd_rejections(review: ReviewState, points: set[str]) -> dict[str, list[str]]:
    from semv.contest._remmd import remmd_rejections

    return remmd_rejections(review, points)


_CLAIMS: Final = ProcedureContest(view=claims_view)

_BY_PROCEDURE: Final[dict[str, ProcedureContest]] = {
    # rejections enter ReMMD's judge node only
    "remmd": ProcedureContest(view=_remmd_view, rejections=_remmd_rejections),
}


def procedure_contest(procedure: str) -> ProcedureContest:
    """The contest entry of ``procedure`` (SEMV's claims view for a procedure without one)."""
    return _BY_PROCEDURE.get(procedure, _CLAIMS)
