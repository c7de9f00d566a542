"""Contesting a ReMMD run (Module E on ReMMD's nodes; here, above the procedures, so that
procedures never import contest).

A reviewer's actions resolve against the run's atomic points (the targets routing calls
"subclaims") and each point's R_j (its "evidence pool"): rejecting a bank record removes it
from the R_j of every point that holds it, rejecting a point removes the point from the
judgement. Both enter the ``judge`` node's params only (``graph.judge_params``), so a revision
re-runs the judge side (judge → veracity → diagnosis → findings → verdict → render) and reuses
the points and the evidence bank with its retrievals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from semv.contest._review import ReviewState
from semv.contest._routing import BaseView
from semv.procedures.remmd import AtomicPoints, EvidenceBank

__all__ = ["remmd_rejections", "remmd_view"]


def remmd_view(value: Callable[[str, Any], Any]) -> BaseView:
    """The routing view of a ReMMD run from its ``points`` and ``bank`` node values
    (``value(key, kind)`` reads a committed node)."""
    points = value("points", AtomicPoints)
    bank = value("bank", EvidenceBank)
    items = {r.evidence_id: r.item for r in bank.records}
    pools = {
        p.id: {m.evidence_id: items[m.evidence_id] for m in bank.matches.get(p.id, ())}
        for p in points.points
    }
    matched = {e for pool in pools.values() for e in pool}
    return BaseView(
        subclaims={p.id: p.id for p in points.points},
        arguments={},
        pools=pools,
        unlocalised=frozenset(i for i in items if i not in matched),
    )


def remmd_rejections(review: ReviewState, points: set[str]) -> dict[str, list[str]]:
    """``rejected`` for ``build_remmd_graph``: per point the records reviewers removed from its
    R_j, and under ``"points"`` the points reviewers rejected (from the review log)."""
    out: dict[str, list[str]] = {
        part: list(entry.removed) for part, entry in review.subclaims.items() if entry.removed
    }
    rejected_points = sorted(
        {e.target for e in review.log if e.op == "reject" and e.target in points}
    )
    if rejected_points:
        out["points"] = rejected_points
    return out
