"""Does the local judge help the caption-context model? Nested CV, with and without it.

For every caption pair the judge (``semv.agents.llm._judge``) asks the local model one short
question — same event or different? — and its answer's probability becomes one more input of
the context model's logistic regression (``semv.dimensions._context``), fitted with the other
general signals. Both designs (the signals alone; the signals + the judge) are refitted in
every outer fold, with the L2 strength chosen by an inner CV on the outer training part only
(``scripts/fit_context.py``), and scored on the outer test part: out-of-sample balanced
accuracy at p ≥ 0.5, ECE (10 bins, Eq. 30) and Brier score, pooled over the outer folds and
averaged over the seeds. The judge alone (p_different ≥ 0.5, unfitted) is shown for reference.

Data (development sets only):

- OOKPIK dev (``../shared/data/ookpik-dev/dev_data.json``): all 145 caption pairs, claim =
  ``caption1``, text = ``caption2``; stratified folds.
- 5Pils-OOC dev (``../shared/data/5pils-ooc-dev/dev.json``): a fixed sample of ``--images``
  images (the first by sha256 of the image id: no look at labels or text), both rows of each;
  claim = the row's caption, texts = its web captions of the same image (the signals are
  computed against the web captions joined by newlines); folds grouped by image, so an
  image's accurate and out-of-context captions are never split between training and test.

    python benchmarks/judge_cv.py [--images 100] [--seeds 3] [--data-dir .semv/judge]

The judge's answers are cached in the store at ``--data-dir``: a rerun needs no model when
every answer is cached (``--cached-only`` fails instead of loading it). ``--json`` prints the
figures as JSON.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from semv.agents.llm._judge import CaptionJudge, judge_feature
from semv.config import Settings
from semv.dimensions import ClaimView, decompose_case
from semv.dimensions._context import context_signals
from semv.eval import balanced_accuracy, counts, expected_calibration_error
from semv.logistic import fit_logistic
from semv.model import Case, Dimension
from semv.store import Store

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from fit_context import choose_l2, labels_of, signal_rows  # noqa: E402

OOKPIK = ROOT.parent / "shared" / "data" / "ookpik-dev" / "dev_data.json"
FIVEPILS = ROOT.parent / "shared" / "data" / "5pils-ooc-dev" / "dev.json"
OUTER_FOLDS = 5


class Rows:
    """One data set: the signals, the judge's p_different, the gold (True = out of context)
    and the fold group of every row."""

    def __init__(
        self,
        name: str,
        signals: list[tuple[float, ...]],
        judged: list[float],
        gold: list[bool],
        groups: list[str],
        seconds: list[float],
    ) -> None:
        self.name, self.signals, self.judged = name, signals, judged
        self.gold, self.groups, self.seconds = gold, groups, seconds

    def design(self, with_judge: bool) -> list[tuple[float, ...]]:
        if not with_judge:
            return self.signals
        return [(*x, judge_feature(p)) for x, p in zip(self.signals, self.judged, strict=True)]


def _signals(case: Case, texts: Sequence[str], settings: Settings) -> tuple[float, ...]:
    sub = decompose_case(case).subclaims[Dimension.WHY.value]
    view = ClaimView(subclaim=sub, claim_text=case.claim, language=case.context.language)
    return context_signals(view, "\n".join(texts), settings.offline).values


def ookpik_rows(judge: CaptionJudge, settings: Settings) -> Rows:
    signals = signal_rows(OOKPIK, settings.offline)
    gold = labels_of(OOKPIK)
    judged, seconds, groups = [], [], []
    for n, line in enumerate(t for t in OOKPIK.read_text("utf-8").splitlines() if t.strip()):
        row = json.loads(line)
        answer = judge.ask(row["caption1"], [row["caption2"]])
        judged.append(answer.p_different)
        if not answer.cached:
            seconds.append(answer.seconds)
        groups.append(str(n))
    return Rows("OOKPIK dev", signals, judged, gold, groups, seconds)


def image_order() -> list[str]:
    """Every 5Pils-OOC dev image id, ordered by the sha256 of the id (no look at labels or
    text): the sample of ``n`` images is the first ``n``, and a smaller sample is a prefix."""
    rows = json.loads(FIVEPILS.read_text("utf-8"))
    ids = {str(r["image_id"]) for r in rows}
    return sorted(ids, key=lambda i: hashlib.sha256(i.encode()).hexdigest())


def fivepils_rows(judge: CaptionJudge, settings: Settings, images: int) -> Rows:
    from semv.adapters import get_adapter

    rank = {image: n for n, image in enumerate(image_order()[:images])}
    cases = []
    for loaded in get_adapter("5pils-ooc").load(FIVEPILS, text_only=True):
        raw = _raw_row(loaded.case)
        if raw is not None and raw[0] in rank:
            cases.append((rank[raw[0]], raw, loaded.case))
    cases.sort(key=lambda c: (c[0], c[1][1]))  # image by image, in sample order
    signals, judged, gold, groups, seconds = [], [], [], [], []
    for _rank, raw, case in cases:
        texts = [e.text for e in case.evidence if e.text]
        signals.append(_signals(case, texts, settings))
        answer = judge.ask(case.claim, texts)
        judged.append(answer.p_different)
        if not answer.cached:
            seconds.append(answer.seconds)
        gold.append(raw[2])
        groups.append(raw[0])
    return Rows(f"5pils-ooc dev ({images} images)", signals, judged, gold, groups, seconds)


_RAW: dict[str, tuple[str, str, bool]] = {}


def _raw_row(case: Case) -> tuple[str, str, bool] | None:
    """(image id, row id, out of context) of a 5Pils-OOC case, from the file itself (the
    adapter seals the gold until a report is committed)."""
    if not _RAW:
        for r in json.loads(FIVEPILS.read_text("utf-8")):
            _RAW[f"{FIVEPILS.stem}:{r['id']}"] = (
                str(r["image_id"]),
                str(r["id"]),
                r["caption"] != r["true_caption"],
            )
    return _RAW.get(case.id)


def grouped_folds(rows: Rows, k: int, seed: int) -> list[list[int]]:
    """``k`` folds of whole groups, stratified by the groups' majority label."""
    rng = random.Random(seed)
    members: dict[str, list[int]] = {}
    for i, g in enumerate(rows.groups):
        members.setdefault(g, []).append(i)
    out: list[list[int]] = [[] for _ in range(k)]
    for label in (True, False):
        part = [
            g
            for g, idx in members.items()
            if (sum(rows.gold[i] for i in idx) * 2 >= len(idx)) is label
        ]
        part.sort()
        rng.shuffle(part)
        for n, g in enumerate(part):
            out[n % k].extend(members[g])
    return out


def nested(rows: Rows, with_judge: bool, seed: int) -> dict[int, float]:
    """Out-of-sample p(out of context) of every row: the design refitted per outer fold."""
    x = rows.design(with_judge)
    prob: dict[int, float] = {}
    for n, test in enumerate(grouped_folds(rows, OUTER_FOLDS, seed)):
        train = [
            i for m, f in enumerate(grouped_folds(rows, OUTER_FOLDS, seed)) if m != n for i in f
        ]
        l2, _scores = choose_l2(x, rows.gold, train, seed)
        model = fit_logistic([x[i] for i in train], [rows.gold[i] for i in train], l2=l2)
        for i, p in zip(test, model.predict([x[i] for i in test]), strict=True):
            prob[i] = p
    return prob


def scores(prob: Sequence[float], gold: Sequence[bool]) -> dict[str, float]:
    pred = [p >= 0.5 for p in prob]
    return {
        "balanced_accuracy": balanced_accuracy(counts(pred, list(gold))),
        "ece": expected_calibration_error(
            [max(p, 1.0 - p) for p in prob],
            [q == g for q, g in zip(pred, gold, strict=True)],
            bins=10,
        ),
        "brier": statistics.fmean((p - float(g)) ** 2 for p, g in zip(prob, gold, strict=True)),
    }


def evaluate(rows: Rows, seeds: int) -> dict[str, object]:
    out: dict[str, object] = {"rows": len(rows.gold), "positives": sum(rows.gold)}
    for name, with_judge in (("signals", False), ("signals+judge", True)):
        per_seed = []
        for seed in range(seeds):
            prob = nested(rows, with_judge, seed)
            per_seed.append(scores([prob[i] for i in range(len(rows.gold))], rows.gold))
        out[name] = {k: statistics.fmean(s[k] for s in per_seed) for k in per_seed[0]}
        out[name + "_ba_per_seed"] = [round(s["balanced_accuracy"], 4) for s in per_seed]
    out["judge_alone"] = scores(rows.judged, rows.gold)
    if rows.seconds:
        out["judge_seconds_per_call"] = statistics.fmean(rows.seconds)
        out["judge_calls_timed"] = len(rows.seconds)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--images", type=int, default=60)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, default=ROOT / ".semv" / "judge")
    parser.add_argument("--cached-only", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    settings = Settings.shipped()
    store = Store(args.data_dir)
    model = None
    if not args.cached_only:
        from semv.agents.backends import load_local

        model = load_local(settings)
    judge = CaptionJudge(model, name=settings.local.model, store=store)
    started = time.perf_counter()
    results = {}
    for rows in (ookpik_rows(judge, settings), fivepils_rows(judge, settings, args.images)):
        results[rows.name] = evaluate(rows, args.seeds)
    results["model"] = settings.local.model
    results["judge_calls"] = judge.calls
    results["seconds"] = round(time.perf_counter() - started, 1)
    store.close()
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for name, res in results.items():
        if not isinstance(res, dict):
            print(f"{name}: {res}")
            continue
        print(f"{name}: {res['rows']} rows, {res['positives']} out of context")
        for design in ("signals", "signals+judge", "judge_alone"):
            s = res[design]
            assert isinstance(s, dict)
            print(
                f"  {design:14s} BA {s['balanced_accuracy']:.3f}  ECE {s['ece']:.3f}  "
                f"Brier {s['brier']:.3f}"
            )
        if "judge_seconds_per_call" in res:
            print(f"  judge: {res['judge_seconds_per_call']:.2f} s per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
