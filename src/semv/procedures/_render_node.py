"""The ``render`` node that ends the graph of every 5-way procedure (ReMMD and the baselines)."""

from __future__ import annotations

from semv.graph import Input, NodeSpec
from semv.procedures._labelled import RENDER_STAGE

__all__ = ["labelled_render"]


def labelled_render(procedure: str, media: Input) -> NodeSpec:
    """``render`` with ``RENDER_STAGE``: the bundle, the ``verdict`` and ``findings`` nodes and
    the ``describe:<asset>`` nodes (``media``); the procedure's name is its param."""
    return NodeSpec(
        "render",
        RENDER_STAGE,
        (
            Input("bundle", "bundle"),
            Input("verdict", "verdict"),
            Input("findings", "findings"),
            media,
        ),
        params={"procedure": procedure},
    )
