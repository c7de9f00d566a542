"""Fit the forensic manipulation model on the declared training split; write its data file.

    python scripts/fit_forensics.py [--data ../shared/data] [--out PATH] [--features CSV]

1. Builds the declared corpus (``semv.eval.forensic_corpus``: CASIA v2 tampered samples, the
   camera photos of exif-samples and metadata-extractor-images, and their deterministic
   recirculations and tamperings), split by source name (sha256 mod 3 == 0 → held out).
2. Measures every forensic feature of every image (``semv.perception.manipulation``); with
   ``--features`` the table is also written as CSV (the benchmark can reuse it).
3. Chooses the feature set and the ridge penalty among ``CANDIDATES`` × ``L2_GRID`` by grouped
   4-fold cross-validation *inside the training split* (folds = sha256("cv:" + group) mod 4;
   highest mean out-of-fold AUROC, ties to the smaller set and the larger penalty), then fits
   an L2-regularised, sign-constrained logistic regression (features standardised on the
   training split) on the whole training split. The probability is that logistic (Platt
   scaling of the linear score).
4. Chooses the decision threshold on the training split: the smallest probability ≥ 0.5 at which
   at most 10 % of training authentic images are flagged.
5. Writes ``src/semv/perception/data/forensic_model.json`` with the parameters, the threshold,
   the split rule, the training counts, per-feature and model AUROC on the training split
   (in-sample) and on the held-out split (out-of-sample), a grouped 3-fold cross-validated
   AUROC over the whole corpus (folds = sha256(group) mod 3, so the held-out split is one fold;
   selection, standardisation and fit redone inside each fold: nested), the sha256 of the
   source images (``data_sha256``) and this command. When ``--out`` already holds a model
   file (the version being replaced), its AUROC on the same rows is reported as
   ``previous_model`` (a before/after on identical images).

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

from semv import logistic as _logistic
from semv.config import ForensicsConfig
from semv.eval import auroc
from semv.eval.forensic_corpus import CorpusImage, corpus, real_sources
from semv.fitting import write_parameters
from semv.perception.manipulation import FEATURES, ManipulationModel, forensic_signals

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
OUT = ROOT / "src" / "semv" / "perception" / "data" / "forensic_model.json"
VERSION = "3"
L2 = 1.0
"""Default ridge penalty λ on the standardised weights (the intercept is not penalised)."""
L2_GRID = (0.3, 1.0, 3.0, 10.0)
GLOBAL = ("ghost_dip", "dq_aligned", "resampling")
"""Signals measured over the whole image: a global re-save or resize moves them as much as an
edit does (what made v1 flag most news photos)."""
NEW = ("noise_wavelet", "noise_kurtosis", "bag", "cfa")
BDJPG = ("bdjpg_aligned", "bdjpg_nonaligned")
"""The block-grained double-JPEG likelihood-map signals (Bianchi & Piva 2012), added in v3."""
_V2 = tuple(f for f in FEATURES if f not in BDJPG)
CANDIDATES: dict[str, tuple[str, ...]] = {
    "v1 (all signals of model v1)": tuple(f for f in _V2 if f not in NEW),
    "all": _V2,
    "local (no whole-image signal)": tuple(f for f in _V2 if f not in GLOBAL),
    "local inconsistency + copy-move": (*NEW, "copy_move"),
    # v3: the same sets with the block-grained DJPG maps, declared before they were scored
    "all + block-grained DJPG": tuple(FEATURES),
    "local + block-grained DJPG": tuple(f for f in FEATURES if f not in GLOBAL),
    "local inconsistency + copy-move + block-grained DJPG": (*NEW, "copy_move", *BDJPG),
}
"""The declared candidate feature sets (fixed before any fit; chosen by inner CV). The first
four are model v2's; the last three add the block-grained double-JPEG maps (v3)."""
INNER_FOLDS = 4
MAX_FPR = 0.10


def measure(
    items: list[CorpusImage], features: tuple[str, ...] = FEATURES
) -> list[dict[str, float]]:
    """The values of ``features`` for every corpus image (progress on stderr)."""
    cfg = ForensicsConfig()
    rows = []
    for i, item in enumerate(items, 1):
        sig = forensic_signals(
            item.image, cfg, quality=item.quality, q_luma=item.q_luma, features=features
        )
        rows.append(sig.values)
        print(f"\r{i}/{len(items)} {item.name[:60]:60s}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return rows


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = L2) -> tuple[np.ndarray, float]:
    """Penalised maximum likelihood of σ(b + x·w) with w ≥ 0 (x standardised): semv's one
    logistic regression with ``nonnegative=True``.

    Every feature is built so that a larger value is more suspicious; the sign constraint keeps
    the fit from turning a data-set artefact (e.g. CASIA's small, smooth images having low
    noise-map scores) into "less anomaly means more manipulation"."""
    rows, labels = x.tolist(), [bool(v) for v in y]
    model = _logistic.fit_logistic(rows, labels, l2=l2, balanced=False, nonnegative=True)
    return np.asarray(model.coef), model.intercept


def fold_of(source: str) -> int:
    """The cross-validation fold of a source group: sha256 mod 3 (fold 0 = the held-out split)."""
    return int(hashlib.sha256(source.encode()).hexdigest(), 16) % 3


def inner_fold_of(source: str) -> int:
    """The model-selection fold of a training group: sha256("cv:" + group) mod 4."""
    return int(hashlib.sha256(f"cv:{source}".encode()).hexdigest(), 16) % INNER_FOLDS


def _standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    std = x.std(axis=0)
    return x.mean(axis=0), np.where(std > 1e-9, std, 1.0)


def out_of_fold(x: np.ndarray, y: np.ndarray, folds: np.ndarray, l2: float) -> np.ndarray:
    """Out-of-fold linear scores: each fold scored by a model standardised and fitted on the
    others (with penalty ``l2``)."""
    scores = np.zeros(len(y))
    for k in sorted(set(folds.tolist())):
        train = folds != k
        mean, scale = _standardise(x[train])
        coef, intercept = fit_logistic((x[train] - mean) / scale, y[train], l2)
        scores[~train] = intercept + ((x[~train] - mean) / scale) @ coef
    return scores


def select(
    x: np.ndarray, y: np.ndarray, groups: list[str]
) -> tuple[str, float, list[dict[str, object]]]:
    """The candidate feature set and penalty with the best grouped inner-CV AUROC on these
    rows (ties: fewer features, then the larger penalty), and every candidate's score."""
    folds = np.array([inner_fold_of(g) for g in groups])
    table: list[dict[str, object]] = []
    for name, feats in CANDIDATES.items():
        cols = [FEATURES.index(f) for f in feats]
        for l2 in L2_GRID:
            scores = out_of_fold(x[:, cols], y, folds, l2)
            auc = auroc([float(v) for v in scores], [bool(v) for v in y])
            table.append({"features": name, "l2": l2, "auroc": round(auc, 4)})
    best = max(
        table,
        key=lambda r: (
            float(r["auroc"]),  # type: ignore[arg-type]
            -len(CANDIDATES[str(r["features"])]),
            float(r["l2"]),  # type: ignore[arg-type]
        ),
    )
    return str(best["features"]), float(best["l2"]), table  # type: ignore[arg-type]


def nested_cv(x: np.ndarray, y: np.ndarray, groups: list[str]) -> np.ndarray:
    """Grouped 3-fold CV over all rows with the selection redone inside each outer fold."""
    outer = np.array([fold_of(g) for g in groups])
    scores = np.zeros(len(y))
    for k in range(3):
        train = outer != k
        name, l2, _ = select(
            x[train], y[train], [g for g, t in zip(groups, train, strict=True) if t]
        )
        cols = [FEATURES.index(f) for f in CANDIDATES[name]]
        mean, scale = _standardise(x[train][:, cols])
        coef, intercept = fit_logistic((x[train][:, cols] - mean) / scale, y[train], l2)
        scores[~train] = intercept + ((x[~train][:, cols] - mean) / scale) @ coef
    return scores


def data_sha256(data: Path) -> str:
    """sha256 over the sorted (relative path, file sha256) of the corpus's source images."""
    tampered, authentic = real_sources(data)
    digest = hashlib.sha256()
    for path in sorted(tampered + authentic):
        digest.update(str(path.relative_to(data)).encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


WEB_SUFFIXES = ("#web", "#web-twice", "#splice-web")
CMS_SUFFIXES = ("#cms", "#paste-cms")
"""The corpus v3 additions: leaving them out gives the v2 corpus (for a comparison with the
figures model v2 reported)."""


def _previous_model(path: Path) -> ManipulationModel | None:
    """The model file about to be replaced (for a before/after on the same held-out rows)."""
    if not path.is_file():
        return None
    try:
        return ManipulationModel.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, KeyError):
        return None


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
        "--from-features",
        type=Path,
        default=None,
        help="Fit from a table written by --features (signals missing from it are measured).",
    )
    args = parser.parse_args(argv)
    if not (args.data / "casia2-samples").is_dir():
        print(f"error: {args.data}/casia2-samples is absent; nothing to fit", file=sys.stderr)
        return 2
    items = list(corpus(args.data))
    if args.from_features is not None:
        with args.from_features.open(newline="") as fh:
            reader = csv.DictReader(fh)
            cached = {r["name"]: r for r in reader}
            columns = set(reader.fieldnames or ())
        have = tuple(f for f in FEATURES if f in columns)
        rows = [{f: float(cached[it.name][f]) for f in have} for it in items]
        missing = tuple(f for f in FEATURES if f not in columns)
        if missing:  # a table from before a signal was added: measure only the new ones
            for row, new in zip(rows, measure(items, missing), strict=True):
                row.update({f: new[f] for f in missing})
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
    groups = [it.source for it in items]
    train = np.array([item.split == "train" for item in items])
    chosen, l2, selection = select(
        x[train], y[train], [g for g, t in zip(groups, train, strict=True) if t]
    )
    feats = CANDIDATES[chosen]
    cols = [FEATURES.index(f) for f in feats]
    mean, scale = _standardise(x[train][:, cols])
    coef, intercept = fit_logistic((x[train][:, cols] - mean) / scale, y[train], l2)
    prob = 1.0 / (1.0 + np.exp(-(intercept + ((x[:, cols] - mean) / scale) @ coef)))
    negatives = np.sort(prob[train & (y == 0)])
    cut = negatives[int(np.ceil((1 - MAX_FPR) * len(negatives))) - 1] if len(negatives) else 0.5
    threshold = round(float(max(0.5, cut + 1e-6)), 4)
    previous = _previous_model(args.out)
    report: dict[str, dict[str, float | None]] = {}
    for split in ("train", "test"):
        sel = [i for i, item in enumerate(items) if item.split == split]
        real = [i for i in sel if items[i].real]
        v2: list[int] = [i for i in sel if not items[i].name.endswith(CMS_SUFFIXES)]
        v1: list[int] = [i for i in v2 if not items[i].name.endswith(WEB_SUFFIXES)]
        labels = [items[i].label for i in sel]
        report[split] = {f: _auroc([x[i, j] for i in sel], labels) for j, f in enumerate(FEATURES)}
        report[split]["model"] = _auroc([float(prob[i]) for i in sel], labels)
        report[split]["model_real_only"] = _auroc(
            [float(prob[i]) for i in real], [items[i].label for i in real]
        )
        report[split]["model_v1_corpus_only"] = _auroc(
            [float(prob[i]) for i in v1], [items[i].label for i in v1]
        )
        report[split]["model_v2_corpus_only"] = _auroc(
            [float(prob[i]) for i in v2], [items[i].label for i in v2]
        )
        if previous is not None:
            before = [previous.probability(rows[i]) for i in sel]
            report[split]["previous_model"] = _auroc(before, labels)
            report[split]["previous_model_real_only"] = _auroc(
                [previous.probability(rows[i]) for i in real], [items[i].label for i in real]
            )
    cv = nested_cv(x, y, groups)
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
    payload: dict[str, object] = {
        "version": VERSION,
        "features": list(feats),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "coef": [round(float(v), 6) for v in coef],
        "intercept": round(intercept, 6),
        "threshold": threshold,
        "threshold_rule": f"smallest p >= 0.5 flagging at most {MAX_FPR:.0%} of training authentic",
        "l2": l2,
        "feature_set": chosen,
        "selection": "grouped 4-fold CV inside the training split (sha256('cv:'+group) mod 4), "
        "best mean out-of-fold AUROC over the declared candidates; ties to fewer features, "
        "then the larger penalty",
        "selection_inner_cv_auroc": selection,
        "split": "by source name: sha256(name) mod 3 == 0 -> test (held out), else train",
        "corpus": "semv.eval.forensic_corpus v3 (CASIA v2 samples, exif-samples, "
        "metadata-extractor-images, derived recirculations, web and CMS recirculations and "
        "tamperings); COSMOS not used",
        "data_sha256": data_sha256(args.data),
        "counts": counts,
        "auroc_in_sample_train": report["train"],
        "auroc_out_of_sample_test": report["test"],
        "auroc_nested_grouped_3fold_cv": report["cv"],
        "command": "make fit-forensics  (python scripts/fit_forensics.py)",
        "fitted": dt.date.today().isoformat(),
    }
    write_parameters(args.out, payload, indent=1)
    print(
        json.dumps({k: payload[k] for k in ("counts", "threshold", "feature_set", "l2")}, indent=1)
    )
    print("model selection (grouped inner CV on the training split):")
    for cand in selection:
        print(f"  {cand['features']!s:36s} l2={cand['l2']!s:5s} AUROC {cand['auroc']}")
    print("AUROC (train = in-sample, test = held out):")
    for f in report["test"]:
        print(f"  {f:22s} train {report['train'].get(f)}  test {report['test'][f]}")
    print(f"  nested grouped 3-fold CV (out-of-sample, all images): {report['cv']}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
