"""One module per stage; ``build_graph`` declares the case's stage graph once (DESIGN §3).

::

    case ─► bundle ─► media:<asset> ─► claims ─┬─► recall:k ─► plan:k ─► retrieve:k ─►
        validate:k ─► argue:k ─► qbaf:k ─► escalate:k ─┬─► aggregate ─► render
    (one independent chain per subclaim k)
"""

from semv.stages._graph import (
    CASE_SOURCE,
    MEMORY_SOURCE,
    build_graph,
    evidence_chain,
    graph_prefix,
    node_key,
    retrieval_params,
)

__all__ = [
    "CASE_SOURCE",
    "MEMORY_SOURCE",
    "build_graph",
    "evidence_chain",
    "graph_prefix",
    "node_key",
    "retrieval_params",
]
