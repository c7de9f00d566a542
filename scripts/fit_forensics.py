"""Fit the forensic manipulation model on the declared training split; write its data file.

    python scripts/fit_forensics.py [--data ../shared/data] [--out PATH] [--features CSV]

1. Builds the declared corpus (``semv.eval.forensic_corpus``: CASIA v2 tampered samples, the
   camera photos of exif-samples and metadata-extractor-images, and their deterministic
   recirculations and tamperings), split by source name (sha256 mod 3 == 0 → held out).
2. Measures every forensic feature of every image (``semv.perception.manipulation``); with
   ``--features`` the table is also written as CSV (the benchmark can reuse it).
3. Fits an L2-regularised logistic regression (Newton–Raphson on the penalised log-likelihood,
   features standardised on the training split) on the *training* split only. The
   probability is that logistic (Platt scaling of the linear score).
4. Chooses the decision threshold on the training split: the smallest probability ≥ 0.5 at which
   at most 10 % of training authentic images are flagged.
5. Writes ``src/semv/perception/data/forensic_model.json`` with the parameters, the threshold,
   the split rule, the training counts, per-feature and model AUROC on the training split
   (in-sample) and on the held-out split (out-of-sample), a grouped 3-fold cross-validated
   AUROC over the whole corpus (folds = sha256(group) mod 3, so the held-out split is one fold;
   standardisation and fit redone inside each fold), and this command.

The COSMOS sample is not read: it is kept for a final check (``benchmarks/forensics.py``).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from semv.config import ForensicsConfig
from semv.eval import auroc
from semv.eval.forensic_corpus import CorpusImage, corpus
from semv.perception.manipulation import FEATURES, forensic_signals

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
OUT = ROOT / "src" / "semv" / "perception" / "data" / "forensic_model.json"
VERSION = "1"
L2 = 1.0
"""Ridge penalty λ on the standardised weights (the intercept is not penalised)."""
MAX_FPR = 0.10


def measure(items: list[CorpusImage]) -> list[dict[str, float]]:
    """The feature values of every corpus image (progress on stderr)."""
    cfg = ForensicsConfig()
    rows = []
    for i, item in enumerate(items, 1):
        sig = forensic_signals(item.image, cfg, quality=item.quality, q_luma=item.q_luma)
        rows.append(sig.values)
        print(f"\r{i}/{len(items)} {item.name[:60]:60s}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return rows


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = L2) -> tuple[np.ndarray, float]:
    """Penalised maximum likelihood of σ(b + x·w) with w ≥ 0 (x standardised), by L-BFGS-B.

    Every feature is built so that a larger value is more suspicious; the sign constraint keeps
    the fit from turning a data-set artefact (e.g. CASIA's small, smooth images having low
    noise-map scores) into "less anomaly means more manipulation"."""
    n, d = x.shape
    a = np.hstack([np.ones((n, 1)), x])

    def loss(beta: np.ndarray) -> tuple[float, np.ndarray]:
        z = a @ beta
        nll = float(np.sum(np.logaddexp(0.0, z) - y * z)) + 0.5 * l2 * float(beta[1:] @ beta[1:])
        p = 1.0 / (1.0 + np.exp(-z))
        grad = a.T @ (p - y)
        grad[1:] += l2 * beta[1:]
        return nll, grad

    bounds = [(None, None)] + [(0.0, None)] * d
    res = minimize(loss, np.zeros(d + 1), jac=True, method="L-BFGS-B", bounds=bounds)
    return np.asarray(res.x[1:]), float(res.x[0])


def fold_of(source: str) -> int:
    """The cross-validation fold of a source group: sha256 mod 3 (fold 0 = the held-out split)."""
    return int(hashlib.sha256(source.encode()).hexdigest(), 16) % 3


def cross_validated(x: np.ndarray, y: np.ndarray, folds: list[int]) -> np.ndarray:
    """Out-of-fold linear scores: each fold scored by a model standardised and fitted on the
    other two."""
    fold = np.array(folds)
    scores = np.zeros(len(y))
    for k in sorted(set(folds)):
        train = fold != k
        mean = x[train].mean(axis=0)
        std = x[train].std(axis=0)
        scale = np.where(std > 1e-9, std, 1.0)
        coef, intercept = fit_logistic((x[train] - mean) / scale, y[train])
        scores[~train] = intercept + ((x[~train] - mean) / scale) @ coef
    return scores


def _auroc(scores: list[float], labels: list[int]) -> float | None:
    if len(set(labels)) < 2:
        return None
    return round(auroc(scores, [bool(v) for v in labels]), 4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--features", type=Path, default=None, help="Also write the table (CSV).")
    parser.add_argument(
        "--from-features", type=Path, default=None, help="Fit from a table written by --features."
    )
    args = parser.parse_args(argv)
    if not (args.data / "casia2-samples").is_dir():
        print(f"error: {args.data}/casia2-samples is absent; nothing to fit", file=sys.stderr)
        return 2
    items = list(corpus(args.data))
    if args.from_features is not None:
        with args.from_features.open(newline="") as fh:
            cached = {r["name"]: r for r in csv.DictReader(fh)}
        rows = [{f: float(cached[it.name][f]) for f in FEATURES} for it in items]
    else:
        rows = measure(items)
    if args.features is not None:
        with args.features.open("w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["name", "source", "label", "kind", "split", *FEATURES])
            for item, row in zip(items, rows, strict=True):
                writer.writerow(
                    [item.name, item.source, item.label, item.kind, item.split]
                    + [row[f] for f in FEATURES]
                )
    x = np.array([[row[f] for f in FEATURES] for row in rows])
    y = np.array([item.label for item in items], dtype=float)
    train = np.array([item.split == "train" for item in items])
    mean = x[train].mean(axis=0)
    scale = np.where(x[train].std(axis=0) > 1e-9, x[train].std(axis=0), 1.0)
    coef, intercept = fit_logistic((x[train] - mean) / scale, y[train])
    prob = 1.0 / (1.0 + np.exp(-(intercept + ((x - mean) / scale) @ coef)))
    negatives = np.sort(prob[train & (y == 0)])
    cut = negatives[int(np.ceil((1 - MAX_FPR) * len(negatives))) - 1] if len(negatives) else 0.5
    threshold = round(float(max(0.5, cut + 1e-6)), 4)
    report: dict[str, dict[str, float | None]] = {}
    for split in ("train", "test"):
        sel = [i for i, item in enumerate(items) if item.split == split]
        real = [i for i in sel if items[i].real]
        labels = [items[i].label for i in sel]
        report[split] = {f: _auroc([x[i, j] for i in sel], labels) for j, f in enumerate(FEATURES)}
        report[split]["model"] = _auroc([float(prob[i]) for i in sel], labels)
        report[split]["model_real_only"] = _auroc(
            [float(prob[i]) for i in real], [items[i].label for i in real]
        )
    cv = cross_validated(x, y, [fold_of(it.source) for it in items])
    report["cv"] = {
        "model": _auroc([float(v) for v in cv], [it.label for it in items]),
        "model_real_only": _auroc(
            [float(cv[i]) for i, it in enumerate(items) if it.real],
            [it.label for it in items if it.real],
        ),
    }
    counts = {
        split: {
            kind: sum(1 for it in items if it.split == split and it.kind == kind)
            for kind in sorted({it.kind for it in items})
        }
        for split in ("train", "test")
    }
    payload = {
        "version": VERSION,
        "features": list(FEATURES),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "coef": [round(float(v), 6) for v in coef],
        "intercept": round(intercept, 6),
        "threshold": threshold,
        "threshold_rule": f"smallest p >= 0.5 flagging at most {MAX_FPR:.0%} of training authentic",
        "l2": L2,
        "split": "by source name: sha256(name) mod 3 == 0 -> test (held out), else train",
        "corpus": "semv.eval.forensic_corpus (CASIA v2 samples, exif-samples, "
        "metadata-extractor-images, derived recirculations and tamperings); COSMOS not used",
        "counts": counts,
        "auroc_in_sample_train": report["train"],
        "auroc_out_of_sample_test": report["test"],
        "auroc_grouped_3fold_cv": report["cv"],
        "command": "make fit-forensics  (python scripts/fit_forensics.py)",
        "fitted": dt.date.today().isoformat(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: payload[k] for k in ("counts", "threshold")}, indent=1))
    print("AUROC (train = in-sample, test = held out):")
    for f in (*FEATURES, "model", "model_real_only"):
        print(f"  {f:18s} train {report['train'][f]}  test {report['test'][f]}")
    print(f"  grouped 3-fold CV (out-of-sample, all images): {report['cv']}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
