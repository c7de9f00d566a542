"""Nested cross-validation of everything semv fits for the caption-pair task (OOKPIK dev).

What is fitted, and so refitted inside every outer training split:

1. the caption-context model of the ``why`` rule (``semv.dimensions._context``: a logistic
   regression over general signals), including its L2 strength, chosen by an inner
   stratified CV on the outer training rows;
2. the verdict calibration (logistic calibration of p(OOC) on the decision and ψ̄ of Eq. 20,
   ``semv.logistic``), fitted on the outer training rows.

Only the held-out outer fold is scored. The full pipeline runs on every row twice, once with
a model that always attacks the caption context and once with one that never does (both
``offline.context_model`` files); a fold's model then decides, per held-out row, which of the
two runs is that row's verdict. This is exact: the model enters the pipeline only through
whether the ``why`` rule's caption attack fires (its text has the same length either way).

The dataset's text baseline (``bert_base_score < 0.5`` ⇒ OOC) is read from the raw file for
comparison only; semv never reads it.

    python benchmarks/ookpik_cv.py [--folds 5] [--repeats 3]      (make cv)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from semv.config import Settings
from semv.dimensions._context import FEATURES
from semv.eval import balanced_accuracy, counts, expected_calibration_error
from semv.fitting import CosmosVerdict, cosmos_verdicts
from semv.logistic import Logistic, fit_logistic
from semv.store import Store

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from fit_context import choose_l2, labels_of, signal_rows, stratified  # noqa: E402

OOKPIK = ROOT.parent / "shared" / "data" / "ookpik-dev" / "dev_data.json"
console = Console()


class Run:
    """One pipeline pass: per row the predicted OOC flag and ψ̄."""

    def __init__(self, ooc: list[bool], psi: list[float]) -> None:
        self.ooc, self.psi = ooc, psi


def pipeline(settings: Settings, store: Store, tmp: Path) -> Run:
    verdicts = cosmos_verdicts(OOKPIK, settings, store=store, reports_dir=tmp / "reports")
    return Run([v.ooc for v in verdicts], [v.psi for v in verdicts])


def constant_model(path: Path, attack: bool) -> Path:
    path.write_text(
        json.dumps(
            {
                "features": list(FEATURES),
                "coef": [0.0] * len(FEATURES),
                "intercept": 50.0 if attack else -50.0,
                "threshold": 0.5,
                "training_set": "constant (cross-validation)",
            }
        )
    )
    return path


def ba(pred: Sequence[bool], gold: Sequence[bool], idx: Sequence[int]) -> float:
    return balanced_accuracy(counts([pred[i] for i in idx], [gold[i] for i in idx]))


def ece(
    prob: Sequence[float], label: Sequence[bool], gold: Sequence[bool], idx: Sequence[int]
) -> float:
    """Eq. 30 as ``semv eval`` computes it: 10 equal-width bins over the winning-class
    probability max(p, 1 − p), accuracy of ``label`` in each bin."""
    return expected_calibration_error(
        [max(prob[i], 1.0 - prob[i]) for i in idx],
        [label[i] == gold[i] for i in idx],
        bins=10,
    )


class Design:
    """The two-state pipeline table and the signals: everything a fold needs."""

    def __init__(self, on: Run, off: Run, x: list[tuple[float, ...]], gold: list[bool]) -> None:
        self.on, self.off, self.x, self.gold = on, off, x, gold

    def verdicts(self, model: Logistic, idx: Sequence[int]) -> dict[int, tuple[bool, float]]:
        """Row → (predicted OOC, ψ̄) when ``model`` decides the caption attack."""
        fires = model.predict([self.x[i] for i in idx])
        out: dict[int, tuple[bool, float]] = {}
        for i, p in zip(idx, fires, strict=True):
            run = self.on if p >= 0.5 else self.off
            out[i] = (run.ooc[i], run.psi[i])
        return out

    def fit(self, train: Sequence[int], seed: int) -> tuple[Logistic, float, Logistic]:
        """Inner loop, as ``make fit`` does on the whole training set: choose L2 by an inner
        CV (``fit_context.choose_l2``), fit the model on all of ``train``, then fit the
        verdict calibration on ``train``'s verdicts under that model."""
        best, _ = choose_l2(self.x, self.gold, train, seed + 1000)
        model = fit_logistic([self.x[i] for i in train], [self.gold[i] for i in train], l2=best)
        seen = self.verdicts(model, train)
        calib = fit_logistic(
            [CosmosVerdict(*seen[i]).calibration_input() for i in train],
            [self.gold[i] for i in train],
            l2=1e-3,
            balanced=False,
        )
        return model, best, calib


def two_passes(default: Settings) -> list[Run]:
    """The pipeline on every row with the caption attack always on, then always off."""
    runs: list[Run] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        store = Store(tmp / "store")
        for attack in (True, False):
            path = constant_model(tmp / f"model-{attack}.json", attack)
            settings = default.model_copy(
                update={"offline": default.offline.model_copy(update={"context_model": str(path)})}
            )
            runs.append(pipeline(settings, store, tmp))
            console.print(f"pipeline pass with the caption attack {'on' if attack else 'off'}")
        store.close()
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--table",
        type=Path,
        help="JSON file caching the two pipeline passes (read when present, else written)",
    )
    args = parser.parse_args(argv)
    if not OOKPIK.is_file():
        console.print(f"[yellow]skipped: {OOKPIK} not found[/]")
        return 0
    rows = [json.loads(line) for line in OOKPIK.read_text().splitlines() if line.strip()]
    baseline = [float(r["bert_base_score"]) < 0.5 for r in rows]
    gold = labels_of(OOKPIK)
    default = Settings.shipped()
    x = signal_rows(OOKPIK, default.offline)
    if args.table is not None and args.table.is_file():
        cached = json.loads(args.table.read_text())
        runs = [Run(r["ooc"], r["psi"]) for r in cached]
    else:
        runs = two_passes(default)
        if args.table is not None:
            args.table.write_text(json.dumps([{"ooc": r.ooc, "psi": r.psi} for r in runs]))
    design = Design(runs[0], runs[1], x, gold)

    everything = list(range(len(gold)))

    held: dict[str, list[float]] = {
        "semv, nested (label)": [],
        "caption-context model alone (p ≥ 0.5)": [],
        "dataset text baseline": [],
    }
    ece_eq20: list[float] = []
    ece_cal: list[float] = []
    chosen: list[float] = []
    pooled_pred: list[bool] = []
    pooled_gold: list[bool] = []
    pooled_cal: list[float] = []
    pooled_eq20: list[float] = []
    for repeat in range(args.repeats):
        parts = stratified(gold, everything, args.folds, seed=repeat)
        for n, test in enumerate(parts):
            train = [i for m, part in enumerate(parts) if m != n for i in part]
            model, l2, calib = design.fit(train, seed=repeat * 100 + n)
            chosen.append(l2)
            out = design.verdicts(model, test)
            pred = [False] * len(gold)
            p_eq20 = [0.5] * len(gold)
            p_cal = [0.5] * len(gold)
            for i, (ooc, psi) in out.items():
                pred[i] = ooc
                p_eq20[i] = psi if ooc else 1.0 - psi
                p_cal[i] = calib.predict([CosmosVerdict(ooc, psi).calibration_input()])[0]
                pooled_pred.append(ooc)
                pooled_gold.append(gold[i])
                pooled_cal.append(p_cal[i])
                pooled_eq20.append(p_eq20[i])
            held["semv, nested (label)"].append(ba(pred, gold, test))
            alone = [False] * len(gold)
            for i, p in zip(test, model.predict([x[i] for i in test]), strict=True):
                alone[i] = p >= 0.5
            held["caption-context model alone (p ≥ 0.5)"].append(ba(alone, gold, test))
            held["dataset text baseline"].append(ba(baseline, gold, test))
            ece_eq20.append(ece(p_eq20, pred, gold, test))
            ece_cal.append(ece(p_cal, [p >= 0.5 for p in p_cal], gold, test))

    table = Table(
        title=f"OOKPIK dev, nested CV: {args.folds} outer folds × {args.repeats} repeats, "
        "inner 5-fold (out-of-sample)"
    )
    for col in ("predictor", "held-out BA mean", "sd", "min", "max"):
        table.add_column(col, justify="left" if col == "predictor" else "right")
    for name, values in held.items():
        table.add_row(
            name,
            f"{statistics.fmean(values):.3f}",
            f"{statistics.stdev(values):.3f}",
            f"{min(values):.3f}",
            f"{max(values):.3f}",
        )
    console.print(table)
    idx = list(range(len(pooled_gold)))
    e20 = ece(pooled_eq20, pooled_pred, pooled_gold, idx)
    ecal = ece(pooled_cal, [p >= 0.5 for p in pooled_cal], pooled_gold, idx)
    console.print(
        f"pooled held-out predictions ({len(idx)} = {args.repeats} × {len(gold)}): "
        f"BA {ba(pooled_pred, pooled_gold, idx):.3f}; ECE Eq. 20 {e20:.3f}, calibrated "
        f"{ecal:.3f} (per-fold mean {statistics.fmean(ece_eq20):.3f} / "
        f"{statistics.fmean(ece_cal):.3f}); BA of the calibrated p ≥ 0.5: "
        f"{ba([p >= 0.5 for p in pooled_cal], pooled_gold, idx):.3f}"
    )
    diffs = [
        s - b
        for s, b in zip(held["semv, nested (label)"], held["dataset text baseline"], strict=True)
    ]
    wins = sum(d > 0 for d in diffs)
    ties = sum(d == 0 for d in diffs)
    console.print(
        f"paired held-out difference semv − baseline: mean {statistics.fmean(diffs):+.3f} "
        f"(sd {statistics.stdev(diffs):.3f}); wins/ties/losses {wins}/{ties}/"
        f"{len(diffs) - wins - ties} of {len(diffs)} folds"
    )
    console.print(f"L2 chosen by the inner loops: {sorted(chosen)}")
    console.print(
        "in-sample (for contrast, not an estimate): the two-state table with a model fitted on "
        f"all rows gives BA {ba_in_sample(design, gold):.3f}"
    )
    return 0


def ba_in_sample(design: Design, gold: list[bool]) -> float:
    everything = list(range(len(gold)))
    best, _ = choose_l2(design.x, gold, list(range(len(gold))), seed=0)
    model = fit_logistic(design.x, gold, l2=best)
    out = design.verdicts(model, everything)
    return ba([out[i][0] for i in everything], gold, everything)


if __name__ == "__main__":
    sys.exit(main())
