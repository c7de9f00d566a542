"""The procedures registry: each verification procedure declares its own nodes on the shared
graph engine, store, trace, reports and contestation.

A procedure is a graph builder plus where its graph keeps the verdict and the report, and how
its committed nodes become the JSON result contract. ``semv`` is SEMV's six-dimension QBAF
procedure; the 5-way procedures (ReMMD and the MMD-Agent / T2-Agent baselines) add the
hierarchical L1/L2/L3 labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from semv._procedure_names import DEFAULT_PROCEDURE
from semv.errors import InputError
from semv.graph import NodeOutcome, NodeSpec
from semv.model import Case, Result

if TYPE_CHECKING:
    from semv.retrieval import Retrieval

__all__ = ["DEFAULT_PROCEDURE", "GraphBuilder", "Procedure", "ResultBuilder", "lookup"]


class GraphBuilder(Protocol):
    """The nodes of ``case``'s graph under one procedure.

    ``memory=True`` makes recall nodes read the memory source; ``retrieval`` enables external
    evidence sources; ``rejected`` maps a part of the graph (a dimension, a point) to the
    evidence ids a reviewer rejected."""

    def __call__(
        self,
        case: Case,
        *,
        contract: str,
        memory: bool = False,
        retrieval: Retrieval | None = None,
        rejected: Mapping[str, Sequence[str]] | None = None,
    ) -> list[NodeSpec]: ...


class ResultBuilder(Protocol):
    """The JSON result contract (DESIGN §4) from a run's committed node values."""

    def __call__(
        self,
        run_id: str,
        nodes: dict[str, NodeOutcome],
        report_paths: dict[str, str],
        trace_head: str,
    ) -> Result: ...


@dataclass(frozen=True)
class Procedure:
    """One registered verification procedure."""

    name: str
    summary: str
    graph: GraphBuilder
    result: ResultBuilder
    verdict_node: str = "aggregate"
    """The node whose value is the ``Verdict`` (committed label and confidence)."""
    render_node: str = "render"
    """The node whose value is the ``RenderedReport``."""


def lookup(procedures: Sequence[Procedure], name: str) -> Procedure:
    """The procedure called ``name``; ``InputError`` listing the valid names otherwise."""
    for procedure in procedures:
        if procedure.name == name:
            return procedure
    valid = ", ".join(p.name for p in procedures)
    raise InputError(f"unknown procedure {name!r}; valid procedures: {valid}")
