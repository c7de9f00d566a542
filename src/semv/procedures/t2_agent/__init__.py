"""T²-Agent (Cui et al., 2026) as adapted by ReMMD to multi-image posts with five L1 and
eight L2 labels: tool-subset selection, a Monte Carlo tree search with UCT over the
per-forgery-source subtasks (text, image, match), p_real = geometric mean of (1 − p_fake)
binned at .8/.6/.4/.2."""

from semv.procedures._labelled import labelled_procedure
from semv.procedures.t2_agent._mcts import (
    fallback_labels,
    p_fake,
    p_real,
    run_search,
    select_uct,
    uct_score,
    verdict_bin,
)
from semv.procedures.t2_agent._stages import build_t2_graph, case_seed

__all__ = [
    "T2_AGENT",
    "build_t2_graph",
    "case_seed",
    "fallback_labels",
    "p_fake",
    "p_real",
    "run_search",
    "select_uct",
    "uct_score",
    "verdict_bin",
]

T2_AGENT = labelled_procedure(
    "t2-agent",
    "T2-Agent baseline: tool selection, UCT search over text/image/match subtasks, p_real bins",
    build_t2_graph,
)
