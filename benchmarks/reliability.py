"""Reliability diagram of the probability a reader is shown, from a ``semv eval`` results file.

For each case of ``results.jsonl`` (COSMOS contract: OOC / NOOC) the number shown next to the
label is the calibrated probability of that label (``prediction.p_calibrated`` is p_cal(OOC);
the shown value is p_cal(OOC) for an OOC label, 1 − p_cal(OOC) for NOOC), and beside it the
paper's Eq. 20 probability of the label. Per bin of 0.1 the table gives the mean shown
probability, the fraction of cases whose label is correct and the count; ECE is Eq. 30 over
the same bins. With ``--png`` the diagram is also drawn (``semv.eval``'s reliability plot).

    python benchmarks/reliability.py RESULTS.jsonl [--png OUT.png] [--title TITLE]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from semv.eval import expected_calibration_error
from semv.eval._plots import reliability_bins, reliability_plot

BINS = 10


def shown(row: dict[str, object]) -> tuple[float, float, bool] | None:
    """(calibrated p of the label, Eq. 20 p of the label, label correct) of one result row;
    None for a row without gold or without a calibrated probability."""
    prediction = row.get("prediction")
    gold = row.get("gold")
    if not isinstance(prediction, dict) or not isinstance(gold, dict):
        return None
    p_cal = prediction.get("p_calibrated")
    p_eq20 = prediction.get("p_positive")
    label = prediction.get("label")
    if p_cal is None or p_eq20 is None or label is None or gold.get("label") is None:
        return None
    ooc = label == "OOC"
    cal = float(p_cal) if ooc else 1.0 - float(p_cal)
    eq20 = float(p_eq20) if ooc else 1.0 - float(p_eq20)
    return cal, eq20, label == gold["label"]


def table(confidence: list[float], correct: list[bool]) -> list[str]:
    lines = ["| bin | mean shown p | fraction correct | cases |", "|---|---|---|---|"]
    for centre, mean, accuracy, count in reliability_bins(confidence, correct, BINS):
        low = centre - 0.5 / BINS
        lines.append(f"| {low:.1f}–{low + 1 / BINS:.1f} | {mean:.3f} | {accuracy:.3f} | {count} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--png", type=Path)
    parser.add_argument("--title", default="calibrated probability of the label")
    args = parser.parse_args(argv)
    if not args.results.is_file():
        print(f"{args.results}: no such results file", file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in args.results.read_text().splitlines() if line.strip()]
    found = [s for row in rows if (s := shown(row)) is not None]
    if not found:
        print(f"{args.results}: no row with gold and a calibrated probability", file=sys.stderr)
        return 2
    cal = [s[0] for s in found]
    eq20 = [s[1] for s in found]
    correct = [s[2] for s in found]
    ece_cal = expected_calibration_error(cal, correct, bins=BINS)
    ece_eq20 = expected_calibration_error(eq20, correct, bins=BINS)
    print(f"{len(found)} cases")
    print(f"ECE of the calibrated p shown: {ece_cal:.3f}")
    print(f"ECE of Eq. 20's p of the label: {ece_eq20:.3f}")
    print("\n".join(table(cal, correct)))
    if args.png is not None:
        reliability_plot(cal, correct, BINS, args.png, args.title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
