"""MMD-Agent (Liu et al., 2025) as adapted by ReMMD to multi-image posts with five L1 and
eight L2 labels: text veracity → image veracity → cross-modal consistency, each scored
+2..−2, combined .45/.25/.30 through the released rule cascade and the ±1.5 / ±0.6 bands;
L2 = the union of the stage codes."""

from semv.procedures._labelled import labelled_procedure
from semv.procedures.mmd_agent._rule import (
    SIGNAL_SCORES,
    MmdStage,
    Signal,
    StageRule,
    combine_signals,
    union_codes,
    weighted_total,
)
from semv.procedures.mmd_agent._stages import build_mmd_graph

__all__ = [
    "MMD_AGENT",
    "SIGNAL_SCORES",
    "MmdStage",
    "Signal",
    "StageRule",
    "build_mmd_graph",
    "combine_signals",
    "union_codes",
    "weighted_total",
]

MMD_AGENT = labelled_procedure(
    "mmd-agent",
    "MMD-Agent baseline: text → image → cross-modal stage scores, .45/.25/.30 rule cascade",
    build_mmd_graph,
)
