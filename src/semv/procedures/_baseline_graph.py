"""The graph shape both baselines share: SEMV's perception prefix, the decomposition, one
retrieval chain for the event claim (``what``: the originals' single evidence search per
post), then the procedure's own nodes, then the labelled ``render``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from semv.graph import Input, NodeSpec
from semv.model import Case, Dimension
from semv.procedures._labelled import RENDER_STAGE
from semv.procedures._registry import GraphBuilder
from semv.stages._graph import (
    claims_node,
    describe_keys,
    evidence_chain,
    prefix_nodes,
    retrieval_params,
)

if TYPE_CHECKING:
    from semv.retrieval import Retrieval

__all__ = ["EVENT", "Inputs", "baseline_builder", "baseline_graph"]

EVENT = Dimension.WHAT.value
"""The dimension whose retrieval chain the baselines use."""


class Inputs:
    """The prefix's values as stage inputs: the case, claims, supplied, ranked and retrieved
    evidence of the event claim, and the media evidence of every asset; and the run's label
    contract (the verdict node's param)."""

    def __init__(self, media_keys: tuple[str, ...], contract: str) -> None:
        self.contract = contract
        self.case = Input("case", "bundle", ("case",))
        self.claims = Input("claims", "claims")
        self.supplied = Input("supplied", "bundle", ("supplied",))
        self.ranked = Input("ranked", f"validate:{EVENT}")
        self.retrieved = Input("retrieved", f"retrieve:{EVENT}")
        self.media = Input("media", media_keys)


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
    media_keys = describe_keys(case)
    inputs = Inputs(media_keys, contract)
    return [
        *prefix_nodes(case),
        claims_node(media_keys),
        *evidence_chain(
            EVENT,
            media_keys=media_keys,
            retrieve_params=retrieval_params(case, retrieval),
            rejected=rejected,
            memory=memory,
            contract=contract,
        ),
        *own(inputs),
        NodeSpec(
            "render",
            RENDER_STAGE,
            (
                Input("bundle", "bundle"),
                Input("verdict", "verdict"),
                Input("findings", "findings"),
                inputs.media,
            ),
            params={"procedure": procedure},
        ),
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
