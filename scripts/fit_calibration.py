"""Fit the verdict calibration of the COSMOS contract (``make fit``, after fit_context.py).

Runs the offline pipeline (shipped settings, text only) on the declared training set, reads
each verdict's decision (OOC or not) and ψ̄ (Eq. 20: p(OOC) = ψ̄ for a false-context decision,
1 − ψ̄ otherwise), and fits a logistic calibration p_cal(OOC) = σ(a·[decision = OOC] + b·ψ̄ + c)
(Platt scaling with the decision as a second input; ``semv.eval._logistic``). ``semv eval``
reports p_cal beside the Eq. 20 value (ECE, Brier, a second reliability diagram).

    python scripts/fit_calibration.py [--train ../shared/data/ookpik-dev/dev_data.json]
        [--out src/semv/calibration/data/calibration.json]

The training set is OOKPIK dev, the same as the caption-context model's: numbers on it are
in-sample; ``benchmarks/ookpik_cv.py`` refits both in every outer fold for the out-of-sample
estimate.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hashlib
import json
import sys
import tempfile
from pathlib import Path

from semv.adapters import COSMOS_CONTRACT, get_adapter
from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.eval import evaluate
from semv.eval._logistic import fit_logistic
from semv.store import Store

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from fit_context import DEFAULT_TRAIN, labels_of  # noqa: E402

DEFAULT_OUT = ROOT / "src" / "semv" / "calibration" / "data" / "calibration.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--train", type=Path, default=DEFAULT_TRAIN)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if not args.train.is_file():
        print(f"{args.train}: training file not found", file=sys.stderr)
        return 2
    settings = Settings()
    loaded = list(get_adapter("cosmos").load(args.train, text_only=True))
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        store = Store(tmp / "store")
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
        store.close()
    gold = labels_of(args.train)
    inputs: list[tuple[float, float]] = []
    for o in outcomes:
        ooc = o.predicted == "OOC"
        p = float(o.probabilities.get("OOC", 0.5))
        inputs.append((1.0 if ooc else 0.0, p if ooc else 1.0 - p))
    model = fit_logistic(inputs, gold, l2=1e-3, balanced=False)
    data = {
        "version": 1,
        "cosmos": {
            "inputs": ["decision_is_ooc", "mean_score"],
            "coef": [round(c, 6) for c in model.coef],
            "intercept": round(model.intercept, 6),
            "training_set": f"OOKPIK dev ({args.train.name}, {len(gold)} caption pairs)",
            "training_sha256": hashlib.sha256(args.train.read_bytes()).hexdigest(),
            "command": "make fit  (python scripts/fit_calibration.py)",
            "fitted": dt.date.today().isoformat(),
        },
    }
    args.out.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    print(f"wrote {args.out}: coef {data['cosmos']['coef']}, intercept {model.intercept:+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
