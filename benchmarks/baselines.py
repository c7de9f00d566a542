"""The two baselines (MMD-Agent, T²-Agent) on the ReMMD showcase articles, offline backend.

Runs each case through ``run_case(..., procedure=...)`` (one store per procedure), reveals the
sealed gold after the run commits, and prints L1 accuracy / macro-F1, L2 macro-F1 / exact
match, the median wall time per case and, for T²-Agent, the search's mean tool and scorer
calls. This is a smoke-scale measurement (15 articles, most text-only, no supplied
evidence); the ReMMD evaluation proper is ``semv eval remmd``.

    python benchmarks/baselines.py [--limit N] [--text-only]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from semv._api import load_cases
from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.eval._classes import multiclass_report, multilabel_report
from semv.model import REMMD_L1, REMMD_L2, RunStatus
from semv.pipeline import run_case
from semv.procedures.t2_agent._stages import SearchOutcome
from semv.store import Store

ROOT = Path(__file__).resolve().parents[1]
SHOWCASE = ROOT.parent / "shared" / "data" / "remmd-showcase"


def measure(procedure: str, limit: int | None, text_only: bool) -> list[str]:
    settings = Settings.shipped()
    _, cases = load_cases(SHOWCASE, adapter="remmd", text_only=text_only, limit=limit)
    predicted: list[str] = []
    gold: list[str] = []
    predicted_l2: list[set[str]] = []
    gold_l2: list[set[str]] = []
    walls: list[float] = []
    tools: list[int] = []
    scores: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp))
        agents = OfflineAgents(settings)
        for loaded in cases:
            start = time.perf_counter()
            outcome = asyncio.run(
                run_case(
                    loaded.case,
                    store=store,
                    settings=settings,
                    agents=agents,
                    contract="remmd",
                    reports_dir=Path(tmp) / "reports",
                    procedure=procedure,
                )
            )
            walls.append(time.perf_counter() - start)
            predicted.append(outcome.result.veracity or "")
            predicted_l2.append(set(outcome.result.distortions))
            gold.append(loaded.gold.reveal(RunStatus.COMMITTED))
            gold_l2.append(set(loaded.gold.reveal_details(RunStatus.COMMITTED).get("l2", ())))
            search = outcome.nodes.get("t2:search")
            if search is not None and isinstance(search.value, SearchOutcome):
                tools.append(search.value.tool_calls)
                scores.append(search.value.scorer_calls)
        store.close()
    l1 = multiclass_report(predicted, gold, REMMD_L1)
    l2 = multilabel_report(predicted_l2, gold_l2, REMMD_L2)
    return [
        procedure,
        str(len(gold)),
        f"{100 * l1.accuracy:.2f}",
        f"{100 * l1.averages['macro'].f1:.2f}",
        f"{100 * l2.averages['macro'].f1:.2f}",
        f"{100 * l2.subset_accuracy:.2f}",
        f"{statistics.median(walls):.2f}",
        f"{statistics.mean(tools):.1f} / {statistics.mean(scores):.1f}" if tools else "-",
        ", ".join(f"{label}:{predicted.count(label)}" for label in REMMD_L1),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--text-only", action="store_true")
    args = parser.parse_args()
    console = Console(width=180)
    if not SHOWCASE.is_dir():
        console.print(f"[yellow]{SHOWCASE} not found: skipped[/yellow]")
        return
    table = Table(title="Baselines on the ReMMD showcase (offline backend)")
    for column in (
        "procedure",
        "cases",
        "L1 acc %",
        "L1 macro-F1 %",
        "L2 macro-F1 %",
        "L2 exact %",
        "median wall s",
        "T2 tools / scores",
        "predicted L1",
    ):
        table.add_column(column)
    for procedure in ("mmd-agent", "t2-agent"):
        table.add_row(*measure(procedure, args.limit, args.text_only))
    console.print(table)


if __name__ == "__main__":
    main()
