"""The graph shape both baselines share: SEMV's perception prefix, the decomposition, one
retrieval chain for the event claim (``what``: the originals' single evidence search per
post), then the procedure's own nodes, then the labelled ``render``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from semv.graph import Input, NodeSpec
from semv.model import Case, Dimension, Evidence, ProducerKind, RankedEvidence, Retrieved
from semv.procedures._registry import GraphBuilder
from semv.procedures._render_node import labelled_render
from semv.stages import (
    evidence_chain,
    graph_prefix,
    retrieval_params,
)

if TYPE_CHECKING:
    from semv.retrieval import Retrieval

__all__ = ["EVENT", "Inputs", "baseline_builder", "baseline_graph", "reviewed_pool"]

EVENT = Dimension.WHAT.value
"""The dimension whose retrieval chain the baselines use."""


class Inputs:
    """The prefix's values as stage inputs: the case, claims, the retrieved and ranked
    evidence of the event claim (``reviewed_pool`` turns them into what a baseline reads),
    the media evidence of every asset (for the report); and the run's label contract (the
    verdict node's param)."""

    def __init__(self, media_keys: tuple[str, ...], contract: str) -> None:
        self.contract = contract
        self.case = Input("case", "bundle", ("case",))
        self.claims = Input("claims", "claims")
        self.ranked = Input("ranked", f"validate:{EVENT}")
        self.retrieved = Input("retrieved", f"retrieve:{EVENT}")
        self.media = Input("media", media_keys)


def reviewed_pool(retrieved: Retrieved, ranked: RankedEvidence) -> list[Evidence]:
    """What a baseline reads: every item the case brought (supplied and media evidence, pooled
    by ``retrieve:what``) and the externally retrieved items that made the ranked top-k; items
    a reviewer removed (from the pool) or rejected (``validate:what``) are gone, so a
    contested baseline run recomputes without them."""
    rejected = set(ranked.rejected)
    own = [
        e
        for e in retrieved.evidence
        if e.id not in rejected
        and (e.provenance is None or e.provenance.producer is not ProducerKind.RETRIEVAL)
    ]
    return list({e.id: e for e in (*own, *ranked.evidence)}.values())


def baseline_graph(
    case: Case,
    *,
    procedure: str,
    contract: str,
    memory: bool,
    retrieval: Retrieval | None,
    rejected: Mapping[str, Sequence[str]] | None,
    own: Callable[[Inputs], list[NodeSpec]],
) -> list[NodeSpec]:
    """Prefix, ``own(inputs)`` (which must end in ``findings`` and ``verdict``), ``render``.
    ``rejected`` may name evidence ids under ``what`` (excluded by ``validate:what``)."""
    prefix, media_keys = graph_prefix(case, decompose=True)
    inputs = Inputs(media_keys, contract)
    return [
        *prefix,
        *evidence_chain(
            EVENT,
            media_keys=media_keys,
            retrieve_params=retrieval_params(case, retrieval),
            rejected=rejected,
            memory=memory,
            contract=contract,
        ),
        *own(inputs),
        labelled_render(procedure, inputs.media),
    ]


def baseline_builder(procedure: str, own: Callable[[Inputs], list[NodeSpec]]) -> GraphBuilder:
    """The ``GraphBuilder`` of a baseline whose own nodes ``own`` declares."""

    def build(
        case: Case,
        *,
        contract: str,
        memory: bool = False,
        retrieval: Retrieval | None = None,
        rejected: Mapping[str, Sequence[str]] | None = None,
    ) -> list[NodeSpec]:
        return baseline_graph(
            case,
            procedure=procedure,
            contract=contract,
            memory=memory,
            retrieval=retrieval,
            rejected=rejected,
            own=own,
        )

    return build
