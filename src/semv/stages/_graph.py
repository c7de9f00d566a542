"""The stage graph of one case, declared once; order, reuse and invalidation derive from it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from semv.dimensions import DIMENSIONS
from semv.graph import Input, NodeSpec
from semv.model import Case
from semv.stages import (
    aggregate,
    argue,
    bundle,
    claims,
    describe,
    escalate,
    media,
    plan,
    qbaf,
    recall,
    render,
    retrieve,
    validate,
)

if TYPE_CHECKING:
    from semv.retrieval import Retrieval

CASE_SOURCE = "case"
"""The source value the graph starts from: the canonical ``Case``."""

MEMORY_SOURCE = "memory"
"""Source value of memory-on graphs: the active long-term memory (``semv.memory.ActiveMemory``)."""


def node_key(stage: str, part: str | None = None) -> str:
    return stage if part is None else f"{stage}:{part}"


def retrieval_params(case: Case, retrieval: Retrieval | None) -> dict[str, Any]:
    """The retrieve nodes' params: the enabled sources' identities and the cut-off date."""
    if retrieval is None or not retrieval.sources:
        return {}
    return {"sources": retrieval.identity(), "before": retrieval.before_for(case)}


def build_graph(
    case: Case,
    *,
    contract: str,
    memory: bool = False,
    retrieval: Retrieval | None = None,
    rejected: Mapping[str, Sequence[str]] | None = None,
) -> list[NodeSpec]:
    """The nodes of ``case``'s graph: shared prefix, one chain per dimension, shared suffix.

    With ``memory=True`` the ``recall:k`` nodes read the ``MEMORY_SOURCE`` source value.
    ``retrieval`` enables external sources for the retrieve nodes; ``rejected`` maps a
    dimension to the evidence ids a reviewer rejected (excluded by its validate node)."""
    retrieve_params = retrieval_params(case, retrieval)
    specs, media_keys = graph_prefix(case, decompose=True)
    for dim in DIMENSIONS:
        k = dim.value
        subclaim = Input("subclaim", "claims", ("subclaims", k))
        specs += evidence_chain(
            k,
            media_keys=media_keys,
            retrieve_params=retrieve_params,
            rejected=rejected,
            memory=memory,
            contract=contract,
        )
        specs += [
            NodeSpec(
                node_key("argue", k),
                argue.STAGE,
                (
                    Input("case", "bundle", ("case",)),
                    subclaim,
                    Input("ranked", node_key("validate", k)),
                    Input("memory", node_key("recall", k)),
                ),
            ),
            NodeSpec(
                node_key("qbaf", k),
                qbaf.STAGE,
                (
                    subclaim,
                    Input("arguments", node_key("argue", k)),
                    Input("ranked", node_key("validate", k)),
                ),
            ),
            NodeSpec(
                node_key("escalate", k),
                escalate.STAGE,
                (
                    subclaim,
                    Input("arguments", node_key("argue", k)),
                    Input("ranked", node_key("validate", k)),
                    Input("solved", node_key("qbaf", k)),
                ),
            ),
        ]
    dims = [d.value for d in DIMENSIONS]
    escalate_keys = tuple(node_key("escalate", k) for k in dims)
    """Downstream stages read each subclaim's final arguments and QBAF: after escalation."""
    qbafs = Input("qbafs", escalate_keys, ("solved",))
    final_arguments = Input("arguments", escalate_keys, ("arguments",))
    validate_keys = tuple(node_key("validate", k) for k in dims)
    specs += [
        NodeSpec(
            "aggregate",
            aggregate.STAGE,
            (
                Input("subclaims", "claims", ("subclaims",)),
                qbafs,
                final_arguments,
                Input("media", media_keys),
            ),
            params={"contract": contract},
        ),
        NodeSpec(
            "render",
            render.STAGE,
            (
                Input("bundle", "bundle"),
                Input("media", media_keys),
                Input("subclaims", "claims", ("subclaims",)),
                final_arguments,
                qbafs,
                Input("verdict", "aggregate"),
                Input("ranked", validate_keys),
            ),
        ),
    ]
    return specs


def describe_keys(case: Case) -> tuple[str, ...]:
    """The ``describe:<asset>`` node keys: each asset's final evidence (extraction plus
    description), what downstream stages read."""
    return tuple(node_key("describe", a.id) for a in case.media)


def graph_prefix(case: Case, *, decompose: bool) -> tuple[list[NodeSpec], tuple[str, ...]]:
    """The nodes every procedure starts with, and the ``describe:<asset>`` keys downstream
    nodes read: ``bundle``, ``media:<asset>`` and ``describe:<asset>``, then ``claims`` when
    the procedure decomposes the claim into SEMV's six subclaims (``decompose``)."""
    extract_keys = tuple(node_key("media", a.id) for a in case.media)
    media_keys = describe_keys(case)
    specs = [
        NodeSpec("bundle", bundle.STAGE, (Input("case", CASE_SOURCE),)),
        *(
            NodeSpec(key, media.STAGE, (Input("asset", CASE_SOURCE, ("media", n)),))
            for n, key in enumerate(extract_keys)
        ),
        *(
            NodeSpec(
                key,
                describe.STAGE,
                (Input("asset", CASE_SOURCE, ("media", n)), Input("media", extract_keys[n])),
            )
            for n, key in enumerate(media_keys)
        ),
    ]
    if decompose:
        specs.append(claims_node(media_keys))
    return specs, media_keys


def claims_node(media_keys: tuple[str, ...]) -> NodeSpec:
    """``claims``: the six scoped subclaims of the claim, context and media evidence."""
    return NodeSpec(
        "claims",
        claims.STAGE,
        (
            Input("case", "bundle", ("case",)),
            Input("supplied", "bundle", ("supplied",)),
            Input("media", media_keys),
        ),
    )


def evidence_chain(
    k: str,
    *,
    media_keys: tuple[str, ...],
    retrieve_params: Mapping[str, Any],
    rejected: Mapping[str, Sequence[str]] | None = None,
    memory: bool = False,
    contract: str = "internal",
) -> list[NodeSpec]:
    """``recall:k`` → ``plan:k`` → ``retrieve:k`` → ``validate:k``: the ranked evidence of the
    subclaim of dimension ``k`` (after ``claims``)."""
    subclaim = Input("subclaim", "claims", ("subclaims", k))
    return [
        _recall_node(k, subclaim, contract)
        if memory
        else NodeSpec(node_key("recall", k), recall.STAGE, (subclaim,)),
        NodeSpec(
            node_key("plan", k),
            plan.STAGE,
            (
                Input("case", "bundle", ("case",)),
                subclaim,
                Input("memory", node_key("recall", k)),
            ),
        ),
        NodeSpec(
            node_key("retrieve", k),
            retrieve.STAGE,
            (
                Input("plan", node_key("plan", k)),
                Input("supplied", "bundle", ("supplied",)),
                Input("media", media_keys),
                Input("assets", "bundle", ("case", "media")),
                Input("source_url", "bundle", ("case", "context", "source_url")),
                Input("claim", "bundle", ("case", "claim")),
                Input("language", "bundle", ("case", "context", "language")),
            ),
            params=retrieve_params,
        ),
        NodeSpec(
            node_key("validate", k),
            validate.STAGE,
            (Input("retrieved", node_key("retrieve", k)), subclaim),
            params={"rejected": sorted(rejected[k])} if rejected and rejected.get(k) else {},
        ),
    ]


def _recall_node(k: str, subclaim: Input, contract: str) -> NodeSpec:
    return NodeSpec(
        node_key("recall", k),
        recall.MEMORY_STAGE,
        (
            Input("case", "bundle", ("case",)),
            subclaim,
            Input("supplied", "bundle", ("supplied",)),
            Input("memory", MEMORY_SOURCE),
        ),
        params={"contract": contract},
    )
