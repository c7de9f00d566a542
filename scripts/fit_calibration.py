"""Fit the verdict calibration of the COSMOS contract (``make fit``, after fit_context.py).

Runs the offline pipeline (shipped settings, text only) on the declared training set, reads
each verdict's decision (OOC or not) and ψ̄ (Eq. 20: p(OOC) = ψ̄ for a false-context decision,
1 − ψ̄ otherwise), and fits a logistic calibration p_cal(OOC) = σ(a·[decision = OOC] + b·ψ̄ + c)
(Platt scaling with the decision as a second input; ``semv.logistic``). ``semv eval``
reports p_cal beside the Eq. 20 value (ECE, Brier, a second reliability diagram).

    python scripts/fit_calibration.py [--train ../shared/data/ookpik-dev/dev_data.json]
        [--out src/semv/calibration/data/calibration.json]

The training set is OOKPIK dev, the same as the caption-context model's: numbers on it are
in-sample; ``benchmarks/ookpik_cv.py`` refits both in every outer fold for the out-of-sample
estimate.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

from semv.config import Settings
from semv.errors import ConfigError
from semv.fitting import cosmos_verdicts, sha256_of, write_parameters
from semv.logistic import fit_logistic

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from fit_context import DEFAULT_TRAIN, labels_of  # noqa: E402

DEFAULT_OUT = ROOT / "src" / "semv" / "calibration" / "data" / "calibration.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--train", type=Path, default=DEFAULT_TRAIN)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--config",
        type=Path,
        help="TOML file of constants to fit under (default: the shipped defaults; neither "
        "./semv.toml nor SEMV_* variables are read)",
    )
    args = parser.parse_args(argv)
    if not args.train.is_file():
        print(f"{args.train}: training file not found", file=sys.stderr)
        return 2
    try:
        settings = Settings.from_file(args.config, read_environment=False)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    verdicts = cosmos_verdicts(args.train, settings)
    gold = labels_of(args.train)
    inputs = [v.calibration_input() for v in verdicts]
    model = fit_logistic(inputs, gold, l2=1e-3, balanced=False)
    data = {
        "version": 1,
        "cosmos": {
            "inputs": ["decision_is_ooc", "mean_score"],
            "coef": [round(c, 6) for c in model.coef],
            "intercept": round(model.intercept, 6),
            "training_set": f"OOKPIK dev ({args.train.name}, {len(gold)} caption pairs)",
            "training_sha256": sha256_of(args.train),
            "command": "make fit  (python scripts/fit_calibration.py)",
            "fitted": dt.date.today().isoformat(),
        },
    }
    write_parameters(args.out, data)
    print(f"wrote {args.out}: coef {data['cosmos']['coef']}, intercept {model.intercept:+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
