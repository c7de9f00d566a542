"""Cross-validation of the offline backend's tuned thresholds on the OOKPIK dev rows.

The offline backend has two thresholds that were chosen by looking at these 145 development
rows (``offline.context_attack`` and ``offline.overlap_support``). This script asks how much
of the result is selection on the same data: for each of k stratified folds it picks the grid
point with the best balanced accuracy on the other folds and scores it on the held-out fold.
It also scores the shipped defaults and the dataset's own text baseline (``bert_base_score <
0.5`` ⇒ OOC, read here from the raw file for comparison only; semv never reads it) on the
same folds.

    python benchmarks/ookpik_cv.py [--folds 5] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
from itertools import product
from pathlib import Path

from rich.console import Console
from rich.table import Table

from semv.adapters import COSMOS_CONTRACT, get_adapter
from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.eval import balanced_accuracy, counts, evaluate
from semv.store import Store

ROOT = Path(__file__).resolve().parents[1]
OOKPIK = ROOT.parent / "shared" / "data" / "ookpik-dev" / "dev_data.json"
GRID = {
    "context_attack": (0.20, 0.25, 0.30, 0.35, 0.40),
    "overlap_support": (0.05, 0.15, 0.25),
}
console = Console()


def predictions(settings: Settings, store: Store, tmp: Path) -> tuple[list[bool], list[bool]]:
    loaded = list(get_adapter("cosmos").load(OOKPIK, text_only=True))
    outcomes = asyncio.run(
        evaluate(
            loaded,
            store=store,
            settings=settings,
            agents=OfflineAgents(settings),
            contract=COSMOS_CONTRACT,
            reports_dir=tmp / "reports",
        )
    )
    return [o.predicted == "OOC" for o in outcomes], [o.gold == "OOC" for o in outcomes]


def folds(gold: list[bool], k: int, seed: int) -> list[list[int]]:
    """Stratified folds: each class shuffled and dealt round-robin."""
    rng = random.Random(seed)
    out: list[list[int]] = [[] for _ in range(k)]
    for label in (True, False):
        idx = [i for i, g in enumerate(gold) if g is label]
        rng.shuffle(idx)
        for n, i in enumerate(idx):
            out[n % k].append(i)
    return out


def ba(pred: list[bool], gold: list[bool], idx: list[int]) -> float:
    return balanced_accuracy(counts([pred[i] for i in idx], [gold[i] for i in idx]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if not OOKPIK.is_file():
        console.print(f"[yellow]skipped: {OOKPIK} not found[/]")
        return 0
    rows = [json.loads(line) for line in OOKPIK.read_text().splitlines() if line.strip()]
    baseline = [float(r["bert_base_score"]) < 0.5 for r in rows]
    default = Settings()
    points = [dict(zip(GRID, values, strict=True)) for values in product(*GRID.values())]
    preds: dict[tuple[float, ...], list[bool]] = {}
    gold: list[bool] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        store = Store(tmp / "store")
        for point in points:
            settings = Settings(offline=default.offline.model_copy(update=point))
            key = tuple(point.values())
            preds[key], gold = predictions(settings, store, tmp)
            console.print(
                f"grid {point}: BA on all rows {ba(preds[key], gold, list(range(len(gold)))):.3f}"
            )
        store.close()
    default_key = tuple(getattr(default.offline, name) for name in GRID)
    everything = list(range(len(gold)))

    table = Table(title=f"OOKPIK dev, {args.folds}-fold stratified CV × {args.repeats} repeats")
    for col in ("predictor", "held-out BA mean", "sd", "min", "max", "all rows BA"):
        table.add_column(col, justify="left" if col == "predictor" else "right")
    held: dict[str, list[float]] = {"cv-selected": [], "shipped defaults": [], "baseline": []}
    chosen: list[tuple[float, ...]] = []
    for repeat in range(args.repeats):
        parts = folds(gold, args.folds, seed=repeat)
        for n, test in enumerate(parts):
            train = [i for m, part in enumerate(parts) if m != n for i in part]
            best = max(
                preds,
                key=lambda key, train=train: (  # type: ignore[misc]
                    ba(preds[key], gold, train),
                    -sum(abs(a - b) for a, b in zip(key, default_key, strict=True)),
                ),
            )
            chosen.append(best)
            held["cv-selected"].append(ba(preds[best], gold, test))
            held["shipped defaults"].append(ba(preds[default_key], gold, test))
            held["baseline"].append(ba(baseline, gold, test))
    whole = {
        "cv-selected": float("nan"),
        "shipped defaults": ba(preds[default_key], gold, everything),
        "baseline": ba(baseline, gold, everything),
    }
    for name, values in held.items():
        table.add_row(
            name,
            f"{statistics.fmean(values):.3f}",
            f"{statistics.stdev(values):.3f}",
            f"{min(values):.3f}",
            f"{max(values):.3f}",
            "" if name == "cv-selected" else f"{whole[name]:.3f}",
        )
    console.print(table)
    pairs = list(zip(held["cv-selected"], held["baseline"], strict=True))
    wins = sum(s > b for s, b in pairs)
    ties = sum(s == b for s, b in pairs)
    diffs = [s - b for s, b in pairs]
    console.print(
        f"paired held-out difference cv-selected − baseline: mean {statistics.fmean(diffs):+.3f}"
        f" (sd {statistics.stdev(diffs):.3f}); wins/ties/losses {wins}/{ties}/"
        f"{len(pairs) - wins - ties} of {len(pairs)} folds"
    )
    console.print(f"grid points chosen: {sorted(set(chosen))} (defaults {default_key})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
