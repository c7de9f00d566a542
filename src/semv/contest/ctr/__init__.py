"""The CTR benchmark (SEMV §5.1 "Contestation Trace Revision", §6.4): episode generation,
replay under U / C / C+S, Eq. 37-42 with cluster-bootstrap intervals, Table 9 layout."""

from pathlib import Path

from semv.contest.ctr._episodes import FAMILIES, Corruption, Episode, control, corrupt
from semv.contest.ctr._metrics import CtrMetric, ctr_metrics, ctr_table, metrics_json
from semv.contest.ctr._run import POLICIES, EpisodeOutcome, inject, run_ctr
from semv.contest.ctr._stochastic import StochasticAgents

CASES_DIR = Path(__file__).with_name("cases")
"""The ten source cases made up for the benchmark (text-only case folders)."""

__all__ = [
    "CASES_DIR",
    "FAMILIES",
    "POLICIES",
    "Corruption",
    "CtrMetric",
    "Episode",
    "EpisodeOutcome",
    "StochasticAgents",
    "control",
    "corrupt",
    "ctr_metrics",
    "ctr_table",
    "inject",
    "metrics_json",
    "run_ctr",
]
