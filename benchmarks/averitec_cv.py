"""Nested, claim-grouped cross-validation of the two components fitted on AVeriTeC dev.

The claim–evidence stance model (``scripts/fit_stance.py``, ``src/semv/nlp/data/stance.json``)
and the claim-relevance gate (``scripts/fit_relevance.py``,
``src/semv/retrieval/data/relevance.json``) ship with one even/odd claim split as their
out-of-sample figure. Here all 500 claims are scored out-of-sample, each once per repeat:

- **Outer folds by claim.** Claim ``i`` with text ``c`` goes to fold
  ``int(sha256(f"{FOLD_SALT}:{repeat}:{i}:{c}")[:16], 16) mod k``: a declared hash, so the
  assignment is deterministic and every pair of a claim (its own evidence, another claim's
  evidence, its retrieved hits) lies in that claim's fold.
- **Inside each outer training part, exactly what the shipped fit chooses**, on that part only.
  Stance: the two class-balanced logistic models at the shipped L2 (1.0, fixed by the fit: no
  grid), each with its sign-constraint backward elimination (``fit_stance.fit_signed``); the
  "other" pairs (claim, evidence of the lexically nearest other claim) are drawn within the
  training part for training and within the test fold for testing, as the fit draws them within
  each split. Relevance: the ridge logistic model (``RIDGE``, fixed) and the threshold
  maximising F0.5 of the gate as deployed (``select_threshold``). Nothing else is fitted: no
  inner CV is needed because neither fit selects a hyper-parameter by one.
- **Features once.** A pair's features depend only on (claim, text), never on the fold: stance
  features are cached per (claim, evidence-of) pair, the relevance pairs (each claim's top-10
  hits in the corpus of all 1,360 answers; retrieval is not fitted) are built once and may be
  cached in ``--table``. The folds refit from the table.

A check that can fail guards every fold: no pair of the training part names a test claim
(as claim or, for stance, as the claim whose evidence it is). As a check of the table, the
even/odd split is refitted the same way and compared with the shipped files' out-of-sample
figures.

    python benchmarks/averitec_cv.py [--folds 5] [--repeats 3] [--table FILE.json]
                                     [--only stance|relevance]          (make cv-averitec)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from semv.config import OfflineAgentConfig, Settings
from semv.nlp.stance import Stance, stance_features
from semv.nlp.text import lexical_overlap
from semv.retrieval._fit import (
    GateScores,
    build_pairs,
    fit_logistic,
    gate_scores,
    pair_probability,
    select_threshold,
    timed_corpus,
)
from semv.retrieval._fit import (
    Pair as RelPair,
)
from semv.retrieval._relevance import RelevanceFeatures, features

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from fit_relevance import VARIANTS as REL_VARIANTS  # noqa: E402
from fit_stance import (  # noqa: E402
    LABELS,
    SIGNS,
    VARIANTS,
    Pair,
    as_model,
    evidence_text,
    fit_signed,
    scores,
    two_way,
)

AVERITEC = ROOT.parent / "shared" / "data" / "averitec-dev" / "dev.json"
STANCE_FILE = ROOT / "src" / "semv" / "nlp" / "data" / "stance.json"
RELEVANCE_FILE = ROOT / "src" / "semv" / "retrieval" / "data" / "relevance.json"
FOLD_SALT = "semv-averitec-cv"
K_HITS = 10
TOP = 5
console = Console(width=132)

FeatureFn = Callable[[int, int], tuple[float, ...]]


# --- folds ----------------------------------------------------------------------------------


def fold_of(index: int, claim: str, folds: int, repeat: int) -> int:
    """The outer fold of claim ``index`` (declared hash of its index and text)."""
    digest = hashlib.sha256(f"{FOLD_SALT}:{repeat}:{index}:{claim}".encode()).hexdigest()
    return int(digest[:16], 16) % folds


def outer_folds(claims: Sequence[str], folds: int, repeat: int) -> list[list[int]]:
    """Claim indices per outer fold."""
    parts: list[list[int]] = [[] for _ in range(folds)]
    for i, claim in enumerate(claims):
        parts[fold_of(i, claim, folds, repeat)].append(i)
    return parts


def check_disjoint(train_claims: Iterable[Iterable[int]], test: Iterable[int]) -> None:
    """Raise when a training pair names a test claim (``train_claims``: the claim indices
    each training pair involves)."""
    held = set(test)
    for names in train_claims:
        leaked = held.intersection(names)
        if leaked:
            raise AssertionError(f"outer-test claim(s) {sorted(leaked)} in the fold's fit")


# --- stance ---------------------------------------------------------------------------------


def overlap_matrix(claims: Sequence[str]) -> list[list[float]]:
    """``lexical_overlap`` of every claim pair (what ``fit_stance.nearest_other`` compares)."""
    return [[lexical_overlap(a, b) for b in claims] for a in claims]


def nearest(i: int, split: Sequence[int], overlap: Sequence[Sequence[float]]) -> int:
    """``fit_stance.nearest_other`` from a precomputed overlap matrix (same ties: the first
    claim of ``split`` with the highest overlap)."""
    best, best_score = -1, -1.0
    for j in split:
        if j != i and overlap[i][j] > best_score:
            best, best_score = j, overlap[i][j]
    return best


def stance_pairs(
    labels: Sequence[str],
    texts: Sequence[str],
    split: Sequence[int],
    overlap: Sequence[Sequence[float]],
    feature: FeatureFn,
) -> list[Pair]:
    """``fit_stance.build`` over ``split``, with features from ``feature(claim, evidence_of)``."""
    usable = [i for i in split if texts[i]]
    pairs: list[Pair] = []
    for i in usable:
        label = LABELS.get(labels[i])
        if label is not None:
            pairs.append(Pair(i, i, label, feature(i, i)))
        j = nearest(i, usable, overlap)
        if j >= 0:
            pairs.append(Pair(i, j, Stance.NEITHER, feature(i, j)))
    return pairs


def stance_fold(
    labels: Sequence[str],
    texts: Sequence[str],
    train: Sequence[int],
    test: Sequence[int],
    overlap: Sequence[Sequence[float]],
    feature: FeatureFn,
) -> tuple[list[Pair], list[Pair]]:
    """Training and test pairs of one outer fold, checked disjoint by claim."""
    fit = stance_pairs(labels, texts, sorted(train), overlap, feature)
    held = stance_pairs(labels, texts, sorted(test), overlap, feature)
    check_disjoint(((p.claim, p.evidence_of) for p in fit), test)
    return fit, held


def fit_stance_pairs(pairs: Sequence[Pair], l2: float) -> Any:
    """The shipped fit on ``pairs``: both sign-constrained models (``fit_stance.main``)."""
    stance_fit, _ = fit_signed(
        [p.values for p in pairs],
        [p.label is not Stance.NEITHER for p in pairs],
        SIGNS["stance"],
        l2,
    )
    taken = [p for p in pairs if p.label is not Stance.NEITHER]
    refutes_fit, dropped = fit_signed(
        [p.values for p in taken], [p.label is Stance.REFUTES for p in taken], SIGNS["refutes"], l2
    )
    return as_model(stance_fit, refutes_fit), dropped


def macro_f1(gold: Sequence[Stance], pred: Sequence[Stance]) -> float:
    f1s = []
    for s in Stance:
        tp = sum(g == s and q == s for g, q in zip(gold, pred, strict=True))
        wrong = sum((g == s) != (q == s) for g, q in zip(gold, pred, strict=True))
        f1s.append(2 * tp / (2 * tp + wrong) if tp + wrong else 0.0)
    return sum(f1s) / len(f1s)


def sign_ba(gold: Sequence[Stance], pred: Sequence[Stance]) -> float:
    """Balanced accuracy of refutes-vs-supports on the pairs whose gold takes a stance; ``pred``
    is the sign the rules read (refutes iff p(refutes) ≥ p(supports))."""
    recalls = []
    for s in (Stance.REFUTES, Stance.SUPPORTS):
        idx = [n for n, g in enumerate(gold) if g == s]
        recalls.append(sum(pred[n] == s for n in idx) / len(idx) if idx else 0.0)
    return sum(recalls) / 2


def stance_cv(
    records: list[dict[str, Any]], settings: Settings, folds: int, repeats: int, l2: float
) -> dict[str, Any]:
    claims = [str(r["claim"]) for r in records]
    labels = [str(r["label"]) for r in records]
    texts = [evidence_text(r) for r in records]
    started = time.perf_counter()
    overlap = overlap_matrix(claims)
    console.print(f"stance: overlap matrix {time.perf_counter() - started:.1f} s")
    out: dict[str, Any] = {}
    for variant, embeddings in VARIANTS.items():
        cfg = settings.offline.model_copy(update={"embeddings": embeddings})
        cache: dict[tuple[int, int], tuple[float, ...]] = {}

        def feature(
            i: int,
            j: int,
            cfg: OfflineAgentConfig = cfg,
            cache: dict[tuple[int, int], tuple[float, ...]] = cache,
        ) -> tuple[float, ...]:
            if (i, j) not in cache:
                cache[(i, j)] = stance_features(claims[i], texts[j], cfg).values
            return cache[(i, j)]

        started = time.perf_counter()
        per: dict[str, list[float]] = {"sign_ba": [], "macro_f1_all": [], "macro_f1_own": []}
        pooled: dict[str, list[Stance]] = {"gold": [], "pred": [], "gold_own": [], "pred_own": []}
        sign_gold: list[Stance] = []
        sign_pred: list[Stance] = []
        dropped: dict[str, int] = {}
        for repeat in range(repeats):
            parts = outer_folds(claims, folds, repeat)
            for n, test in enumerate(parts):
                train = [i for m, part in enumerate(parts) if m != n for i in part]
                fit, held = stance_fold(labels, texts, train, test, overlap, feature)
                model, gone = fit_stance_pairs(fit, l2)
                for name in gone:
                    dropped[name] = dropped.get(name, 0) + 1
                per["sign_ba"].append(float(two_way(held, model)["balanced_accuracy"]))
                per["macro_f1_all"].append(float(scores(held, model)["macro_f1"]))
                per["macro_f1_own"].append(
                    float(scores([p for p in held if p.own], model)["macro_f1"])
                )
                for p in held:
                    probs = model.probabilities(p.values)
                    top = max(probs, key=lambda s: probs[s])
                    pooled["gold"].append(p.label)
                    pooled["pred"].append(top)
                    if p.own:
                        pooled["gold_own"].append(p.label)
                        pooled["pred_own"].append(top)
                    if p.label is not Stance.NEITHER:
                        sign_gold.append(p.label)
                        sign_pred.append(
                            Stance.REFUTES
                            if probs[Stance.REFUTES] >= probs[Stance.SUPPORTS]
                            else Stance.SUPPORTS
                        )
        even = [i for i in range(len(records)) if i % 2 == 0]
        odd = [i for i in range(len(records)) if i % 2 == 1]
        fit, held = stance_fold(labels, texts, even, odd, overlap, feature)
        model, _ = fit_stance_pairs(fit, l2)
        out[variant] = {
            "folds": per,
            "pooled": {
                "sign_ba": sign_ba(sign_gold, sign_pred),
                "macro_f1_all": macro_f1(pooled["gold"], pooled["pred"]),
                "macro_f1_own": macro_f1(pooled["gold_own"], pooled["pred_own"]),
                "pairs": len(pooled["gold"]),
                "sign_pairs": len(sign_gold),
            },
            "dropped_in_folds": dropped,
            "even_odd": {
                "sign_ba": two_way(held, model)["balanced_accuracy"],
                "macro_f1_all": scores(held, model)["macro_f1"],
                "macro_f1_own": scores([p for p in held if p.own], model)["macro_f1"],
            },
            "features_computed": len(cache),
            "seconds": round(time.perf_counter() - started, 1),
        }
        console.print(
            f"stance {variant}: {len(cache)} pair features, {out[variant]['seconds']} s",
        )
    return out


# --- relevance ------------------------------------------------------------------------------


def relevance_table(records: list[dict[str, Any]], settings: Settings) -> dict[str, Any]:
    """Every claim's top-``K_HITS`` hits as labelled pairs, features of both variants (what
    ``fit_relevance.main`` builds; fold-independent)."""
    source, docs, tmp, _ = timed_corpus(records, AVERITEC.name, settings.retrieval)
    done = [0]

    def tick() -> None:
        done[0] += 1
        if done[0] % 50 == 0:
            console.print(f"  relevance: {done[0]} claims")

    with tmp:
        pairs, hits_of = build_pairs(
            records, source, docs, settings.offline, k=K_HITS, on_claim=tick
        )
        source.corpus.close()
    lexical_cfg = settings.offline.model_copy(update={"embeddings": False})
    rows: dict[str, list[dict[str, Any]]] = {"e5": [], "lexical": []}
    for p in pairs:
        hit = next(h for h in hits_of[p.claim] if h.doc_id == p.doc_id)
        head = f"{hit.title}. " if hit.title and not hit.text.startswith(hit.title) else ""
        lex = features(str(records[p.claim]["claim"]), head + hit.text, lexical_cfg)
        for variant, f in (("e5", p.feats), ("lexical", lex)):
            rows[variant].append(
                {
                    "claim": p.claim,
                    "doc_id": p.doc_id,
                    "rank": p.rank,
                    "relevant": p.relevant,
                    "quotes": p.quotes,
                    "cos": f.cos,
                    "lex": f.lex,
                    "ent": f.ent,
                    "date": f.date,
                    "similarity": f.similarity,
                }
            )
    return {"claims": sorted(hits_of), "pairs": rows}


def rel_pairs(rows: Sequence[Mapping[str, Any]]) -> list[RelPair]:
    return [
        RelPair(
            int(r["claim"]),
            str(r["doc_id"]),
            int(r["rank"]),
            bool(r["relevant"]),
            RelevanceFeatures(r["cos"], r["lex"], r["ent"], r["date"], r["similarity"]),
            bool(r["quotes"]),
        )
        for r in rows
    ]


def relevance_fold(
    pairs: Sequence[RelPair], train: Iterable[int], test: Iterable[int]
) -> tuple[list[RelPair], list[RelPair]]:
    """Training and test pairs of one outer fold (by the pair's claim), checked disjoint."""
    train_set, test_set = set(train), set(test)
    fit = [p for p in pairs if p.claim in train_set]
    held = [p for p in pairs if p.claim in test_set]
    check_disjoint(((p.claim,) for p in fit), test_set)
    return fit, held


def gated_at(held: Sequence[RelPair], kept: Callable[[RelPair], bool]) -> tuple[list[float], int]:
    """Per test claim with an admitted top-``TOP`` hit, the share of admitted hits that are its
    own gold answers (``precision_at``'s gated precision@5); and the claims with none."""
    by: dict[int, list[RelPair]] = {}
    for p in held:
        if p.rank < TOP:
            by.setdefault(p.claim, []).append(p)
    values, empty = [], 0
    for group in by.values():
        ok = [p for p in group if kept(p)]
        if ok:
            values.append(sum(p.relevant for p in ok) / len(ok))
        else:
            empty += 1
    return values, empty


def gate_fold(
    fit: Sequence[RelPair], held: Sequence[RelPair], names: tuple[str, ...], floor: float
) -> tuple[GateScores, list[float], int]:
    """The shipped fit on ``fit`` (ridge logistic, F0.5-best threshold over the deployed gate),
    scored on ``held``: the gate's counts (threshold in ``extra``) and ``gated_at``."""
    weights, bias = fit_logistic(fit, names)
    threshold = select_threshold(fit, names, weights, bias, floor)
    gate = gate_scores(held, names, weights, bias, threshold, floor)

    def kept(p: RelPair) -> bool:
        return p.feats.similarity >= floor and (
            p.quotes or pair_probability(p.feats, names, weights, bias) >= threshold
        )

    values, empty = gated_at(held, kept)
    gate.extra["threshold"] = threshold
    return gate, values, empty


def relevance_cv(
    table: dict[str, Any], records: list[dict[str, Any]], floor: float, folds: int, repeats: int
) -> dict[str, Any]:
    claims = [str(r["claim"]) for r in records]
    out: dict[str, Any] = {}
    for variant, names in REL_VARIANTS.items():
        pairs = rel_pairs(table["pairs"][variant])

        per: dict[str, list[float]] = {"precision": [], "recall": [], "gated_p5": []}
        thresholds: list[float] = []
        tot = {"admitted": 0, "true": 0, "positives": 0, "empty": 0}
        all_gated: list[float] = []
        for repeat in range(repeats):
            parts = outer_folds(claims, folds, repeat)
            for n, test in enumerate(parts):
                train = [i for m, part in enumerate(parts) if m != n for i in part]
                fit, held = relevance_fold(pairs, train, test)
                gate, values, empty = gate_fold(fit, held, names, floor)
                per["precision"].append(gate.precision)
                per["recall"].append(gate.recall)
                per["gated_p5"].append(statistics.fmean(values) if values else 0.0)
                thresholds.append(gate.extra["threshold"])
                tot["admitted"] += gate.admitted
                tot["true"] += gate.true_admitted
                tot["positives"] += gate.positives
                tot["empty"] += empty
                all_gated.extend(values)
        even = [i for i in range(len(records)) if i % 2 == 0]
        odd = [i for i in range(len(records)) if i % 2 == 1]
        gate, values, _ = gate_fold(*relevance_fold(pairs, even, odd), names, floor)
        out[variant] = {
            "folds": per,
            "pooled": {
                "precision": tot["true"] / tot["admitted"] if tot["admitted"] else 0.0,
                "recall": tot["true"] / tot["positives"] if tot["positives"] else 0.0,
                "gated_p5": statistics.fmean(all_gated) if all_gated else 0.0,
                "claims_none_admitted": tot["empty"],
                "admitted": tot["admitted"],
            },
            "thresholds": thresholds,
            "even_odd": {
                "precision": gate.precision,
                "recall": gate.recall,
                "gated_p5": statistics.fmean(values) if values else 0.0,
                "threshold": gate.extra["threshold"],
            },
        }
    return out


# --- report ---------------------------------------------------------------------------------


def mean_sd(values: Sequence[float]) -> str:
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.3f} ± {sd:.3f}"


def cv_table(title: str) -> Table:
    """The columns both components' tables share: fold mean ± sd, pooled, the even/odd refit
    and the shipped file's held-out figure."""
    table = Table(title=title)
    for col in (
        "variant",
        "figure",
        "folds mean ± sd",
        "pooled",
        "even/odd refit here",
        "shipped file (odd held out)",
    ):
        table.add_column(col, justify="left" if col in ("variant", "figure") else "right")
    return table


def show_stance(result: dict[str, Any], shipped: dict[str, Any], title: str) -> None:
    table = cv_table(title)
    names = {
        "sign_ba": ("sign balanced accuracy", "supports_vs_refutes", "balanced_accuracy"),
        "macro_f1_all": (
            "3-way macro-F1, own + other pairs",
            "with_other_claims_evidence_three_way",
            "macro_f1",
        ),
        "macro_f1_own": ("3-way macro-F1, own pairs", "own_evidence_three_way", "macro_f1"),
    }
    for variant, res in result.items():
        held = shipped["metrics"][variant]["out_of_sample_held_out"]
        for key, (label, group, field) in names.items():
            table.add_row(
                variant,
                label,
                mean_sd(res["folds"][key]),
                f"{res['pooled'][key]:.3f}",
                f"{float(res['even_odd'][key]):.3f}",
                f"{float(held[group][field]):.3f}",
            )
    console.print(table)
    for variant, res in result.items():
        console.print(
            f"stance {variant}: pooled {res['pooled']['pairs']} held-out pairs "
            f"({res['pooled']['sign_pairs']} supports/refutes); signals dropped by the sign "
            f"constraints (folds of {len(res['folds']['sign_ba'])}): {res['dropped_in_folds']}"
        )


def show_relevance(result: dict[str, Any], shipped: dict[str, Any], title: str) -> None:
    table = cv_table(title)
    metrics = shipped["metrics"]
    for variant, res in result.items():
        held = metrics[variant]["out_of_sample_held_out"]
        ship_p5 = (
            f"{metrics['retrieval']['out_of_sample_held_out']['gated_precision@5']:.3f}"
            if variant == "e5"
            else "—"
        )
        for key, label, ship in (
            ("precision", "gate precision", f"{held['precision']:.3f}"),
            ("recall", "gate recall", f"{held['recall']:.3f}"),
            ("gated_p5", "precision@5 of admitted hits", ship_p5),
        ):
            table.add_row(
                variant,
                label,
                mean_sd(res["folds"][key]),
                f"{res['pooled'][key]:.3f}",
                f"{res['even_odd'][key]:.3f}",
                ship,
            )
    console.print(table)
    for variant, res in result.items():
        console.print(
            f"relevance {variant}: thresholds chosen in the folds {sorted(res['thresholds'])} "
            f"(even/odd {res['even_odd']['threshold']}); pooled admitted "
            f"{res['pooled']['admitted']}, claim-folds with no top-5 hit admitted "
            f"{res['pooled']['claims_none_admitted']}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=AVERITEC)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=("stance", "relevance"))
    parser.add_argument(
        "--table",
        type=Path,
        help="JSON file caching the relevance pairs and features (read when present, else written)",
    )
    args = parser.parse_args(argv)
    if not args.data.is_file():
        console.print(f"[yellow]skipped: {args.data} not found[/]")
        return 0
    records = json.loads(args.data.read_text(encoding="utf-8"))
    settings = Settings.shipped()
    kind = (
        f"{args.folds} outer folds × {args.repeats} repeats, grouped by claim "
        f"({len(records)} claims; out-of-sample)"
    )
    if args.only in (None, "stance"):
        shipped = json.loads(STANCE_FILE.read_text())
        result = stance_cv(records, settings, args.folds, args.repeats, float(shipped["l2"]))
        show_stance(result, shipped, f"Stance, AVeriTeC dev, nested CV: {kind}")
    if args.only in (None, "relevance"):
        shipped = json.loads(RELEVANCE_FILE.read_text())
        if args.table is not None and args.table.is_file():
            table = json.loads(args.table.read_text())
        else:
            started = time.perf_counter()
            table = relevance_table(records, settings)
            console.print(f"relevance table: {time.perf_counter() - started:.0f} s")
            if args.table is not None:
                args.table.write_text(json.dumps(table))
        floor = settings.retrieval.relevance_min_similarity
        result = relevance_cv(table, records, floor, args.folds, args.repeats)
        show_relevance(result, shipped, f"Relevance gate, AVeriTeC dev, nested CV: {kind}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
