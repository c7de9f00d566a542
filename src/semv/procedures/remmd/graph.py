"""The ReMMD procedure's graph (ReMMD §3) on the shared stage-graph machinery.

::

    case ─► bundle ─► media:<asset> ─► describe:<asset> ─► points ─► bank ─► judge ─►
        veracity (L1) ─► diagnosis (L2) ─► verdict (L3) ─► render
                                                  findings ─┘

The prefix (bundle, media perception, description) is SEMV's own stages, so their nodes are
shared with a SEMV run of the same case. Reviewer rejections enter the ``judge`` node only:
``rejected[point_id]`` lists evidence ids rejected for that point's R_j, ``rejected["*"]``
ids rejected for every point, ``rejected["points"]`` point ids left out of the judgement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from semv.graph import Input, NodeSpec
from semv.model import Case
from semv.procedures._render_node import labelled_render
from semv.procedures.remmd import stages
from semv.stages import graph_prefix, retrieval_params

if TYPE_CHECKING:
    from semv.retrieval import Retrieval

__all__ = ["NAME", "build_remmd_graph", "judge_params"]

NAME = "remmd"


def judge_params(rejected: Mapping[str, Sequence[str]] | None) -> dict[str, list[str]]:
    """The judge node's params from a reviewer's rejections (empty when there are none)."""
    if not rejected:
        return {}
    points = sorted(set(rejected.get("points", ())))
    evidence = sorted({e for key, ids in rejected.items() if key != "points" for e in ids})
    out: dict[str, list[str]] = {}
    if evidence:
        out["rejected_evidence"] = evidence
    if points:
        out["rejected_points"] = points
    return out


def build_remmd_graph(
    case: Case,
    *,
    contract: str,
    memory: bool = False,
    retrieval: Retrieval | None = None,
    rejected: Mapping[str, Sequence[str]] | None = None,
) -> list[NodeSpec]:
    """The nodes of ``case`` under ReMMD. ``memory`` is accepted for the registry's interface;
    ReMMD's memory is the sample-level bank M_s, not SEMV's long-term memory."""
    prefix, media_keys = graph_prefix(case, decompose=False)
    media = Input("media", media_keys)
    return [
        *prefix,
        NodeSpec("points", stages.POINTS, (Input("case", "bundle", ("case",)), media)),
        NodeSpec(
            "bank",
            stages.BANK,
            (Input("points", "points"), Input("supplied", "bundle", ("supplied",)), media),
            params=retrieval_params(case, retrieval),
        ),
        NodeSpec(
            "judge",
            stages.JUDGE,
            (Input("points", "points"), Input("bank", "bank")),
            params=judge_params(rejected),
        ),
        NodeSpec(
            "veracity", stages.VERACITY, (Input("points", "points"), Input("states", "judge"))
        ),
        NodeSpec(
            "diagnosis",
            stages.DIAGNOSIS,
            (
                Input("points", "points"),
                Input("states", "judge"),
                Input("level1", "veracity"),
                Input("bank", "bank"),
            ),
        ),
        NodeSpec(
            "findings",
            stages.FINDINGS,
            (Input("points", "points"), Input("states", "judge"), Input("bank", "bank")),
        ),
        NodeSpec(
            "verdict",
            stages.VERDICT,
            (
                Input("points", "points"),
                Input("states", "judge"),
                Input("level1", "veracity"),
                Input("level2", "diagnosis"),
            ),
            params={"contract": contract},
        ),
        labelled_render(NAME, media),
    ]
