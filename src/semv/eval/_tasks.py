"""What each dataset's evaluation predicts, reveals and scores, and its paper table.

A ``Task`` turns a committed run's ``Result`` into a prediction in the dataset's label space,
turns the revealed gold into the same shape, and scores a list of per-case records (the lines of
``results.jsonl``). Scores are plain JSON dicts; ``semv.eval._summary`` renders them in the
layout of the paper table for that dataset.

Mappings from semv's internal MV labels (documented in docs/architecture.md):

- ReMMD L1 (``INTERNAL_TO_REMMD``): verified → True, mostly-verified → Mostly True,
  partially-verified → Mixture, false-context → Mostly False (authentic media, false framing:
  a dominantly false conclusion with a true residue), manipulated-or-synthetic → False;
  insufficient-evidence (no argument at all: no usable evidence) abstains (no L1 label; scored
  as an error); uncertain (evidence, but no decisive aggregation rule) takes the L1 label of
  the band of ψ̄, the mean subclaim score (Eq. 18 bands: supported → True, weakly supported
  → Mostly True, uncertain → Mixture, weakly refuted → Mostly False, refuted → False), a
  fixed correspondence, not fitted to any data (``remmd_l1``).
  ReMMD L2 from the refuted (or weakly refuted) subclaims: authenticity → V2 Visual Editing,
  what and who → C1 Semantic Inconsistency, where / when / why → C2 Contextual Inconsistency;
  a false-context verdict adds T3 Misleading Context.
- MMFakeBench (``INTERNAL_TO_MMFAKEBENCH``): verified / mostly / partially verified → original,
  false-context → mismatch, manipulated-or-synthetic → visual_veracity_distortion; abstentions
  have no class (an error in the 4-class score) and count as "not flagged" (real) in the
  binary score. semv never predicts textual_veracity_distortion.
- VERITE runs under the COSMOS contract: OOC = the caption misrepresents the image (positive);
  gold miscaptioned and out-of-context are both positive.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Protocol

from semv.adapters import (
    FAKE_CLASSES,
    MMFAKEBENCH_BINARY,
    REMMD_L1,
    REMMD_L2,
    REQUIRED_FIELDS,
    parse_date,
    parse_mv_report,
)
from semv.calibration import calibrated_ooc
from semv.config import DecisionConfig, EvalConfig
from semv.dimensions import DIMENSIONS
from semv.eval._classes import MultiClassReport, MultiLabelReport, multiclass_report
from semv.eval._classes import multilabel_report as _multilabel
from semv.eval._metrics import (
    accuracy,
    balanced_accuracy,
    brier,
    counts,
    expected_calibration_error,
    f1,
    precision,
    recall,
    wilson_interval,
)
from semv.eval._report_metrics import (
    ABSTENTION_LABELS,
    abstention_rate,
    case_accuracy,
    field_coverage,
    temporal_outcome,
    temporal_rates,
    url_f1,
)
from semv.eval._stats import auroc, cluster_bootstrap_mean, two_proportion_z_test
from semv.model import (
    Band,
    DatePrecision,
    Dimension,
    Distortion,
    Facts,
    InternalLabel,
    Result,
    VeracityLabel,
)
from semv.reasoning import band as band_of

__all__ = [
    "INTERNAL_TO_MMFAKEBENCH",
    "INTERNAL_TO_REMMD",
    "Record",
    "Task",
    "mean_score_from_eq20",
    "native_distortions",
    "native_veracity",
    "remmd_l1",
    "remmd_l2_from_result",
    "score_remmd",
]

Record = dict[str, Any]
"""One line of ``results.jsonl``: index, case_id, status, prediction, gold, ..."""

INTERNAL_TO_REMMD: Final[dict[str, VeracityLabel]] = {
    InternalLabel.VERIFIED: VeracityLabel.TRUE,
    InternalLabel.MOSTLY_VERIFIED: VeracityLabel.MOSTLY_TRUE,
    InternalLabel.PARTIALLY_VERIFIED: VeracityLabel.MIXTURE,
    InternalLabel.FALSE_CONTEXT: VeracityLabel.MOSTLY_FALSE,
    InternalLabel.MANIPULATED_OR_SYNTHETIC: VeracityLabel.FALSE,
}

_REMMD_L2_BY_DIMENSION: Final[dict[str, Distortion]] = {
    d.value: spec.remmd_l2 for d, spec in DIMENSIONS.items() if spec.remmd_l2 is not None
}
"""The ReMMD L2 label a refuted subclaim points to (``DimensionSpec.remmd_l2``)."""

INTERNAL_TO_MMFAKEBENCH: Final[dict[str, str]] = {
    InternalLabel.VERIFIED: "original",
    InternalLabel.MOSTLY_VERIFIED: "original",
    InternalLabel.PARTIALLY_VERIFIED: "original",
    InternalLabel.FALSE_CONTEXT: "mismatch",
    InternalLabel.MANIPULATED_OR_SYNTHETIC: "visual_veracity_distortion",
}

_REFUTED: Final = frozenset({Band.REFUTED.value, Band.WEAKLY_REFUTED.value})
_SUPPORTED: Final = frozenset({Band.SUPPORTED.value, Band.WEAKLY_SUPPORTED.value})


class Task(Protocol):
    """The evaluation of one dataset."""

    name: str
    table: str
    """The paper table whose layout the summary follows."""

    def predict(self, result: Result) -> dict[str, Any]:
        """The committed run's prediction in the dataset's label space."""
        ...

    def gold(self, label: str, details: Mapping[str, Any]) -> dict[str, Any]:
        """The revealed gold in the same shape."""
        ...

    def score(self, records: Sequence[Record], config: EvalConfig) -> dict[str, Any]:
        """Metrics over the scored records (committed, with gold)."""
        ...


def scored(records: Sequence[Record]) -> list[Record]:
    """Committed records with a gold annotation, in case order."""
    return sorted(
        (r for r in records if r.get("status") == "committed" and r.get("gold") is not None),
        key=lambda r: int(r.get("index", 0)),
    )


def _common(records: Sequence[Record]) -> dict[str, Any]:
    seconds = [float(r["seconds"]) for r in records if r.get("seconds") is not None]
    return {
        "cases": len(records),
        "failed": sum(r.get("status") == "failed" for r in records),
        "unlabelled": sum(
            r.get("status") == "committed" and r.get("gold") is None for r in records
        ),
        "median_seconds": statistics.median(seconds) if seconds else None,
    }


def _bootstrap_accuracy(
    correct: Sequence[bool], clusters: Sequence[str], config: EvalConfig
) -> list[float]:
    if not correct:
        return [0.0, 0.0]
    interval = cluster_bootstrap_mean(
        list(correct),
        list(clusters),
        replicates=config.bootstrap_replicates,
        level=config.bootstrap_level,
        seed=config.bootstrap_seed,
    )
    return [interval.low, interval.high]


def _winning(probabilities: Mapping[str, float]) -> float:
    return max(probabilities.values()) if probabilities else 0.0


def _binary_metrics(
    predicted: Sequence[bool],
    gold: Sequence[bool],
    p_positive: Sequence[float],
    confidence: Sequence[float],
    clusters: Sequence[str],
    config: EvalConfig,
    *,
    baseline: bool = False,
) -> dict[str, Any]:
    """Table 4's columns: accuracy, P/R/F1 (positive class), balanced accuracy, ECE (Eq. 30),
    Brier (Eq. 31), Wilson 95% CI, AUROC and, with ``baseline`` (COSMOS only: the reported
    baseline is a COSMOS result), the z-test against the configured baseline."""
    c = counts(predicted, gold)
    correct = [p == g for p, g in zip(predicted, gold, strict=True)]
    lo, hi = wilson_interval(c.tp + c.tn, c.n)
    acc = accuracy(c)
    metrics: dict[str, Any] = {
        "n": c.n,
        "accuracy": acc,
        "precision": precision(c),
        "recall": recall(c),
        "f1": f1(c),
        "balanced_accuracy": balanced_accuracy(c),
        "ece": expected_calibration_error(confidence, correct, bins=config.ece_bins),
        "brier": brier(p_positive, gold),
        "accuracy_ci95": [lo, hi],
        "accuracy_bootstrap_ci": _bootstrap_accuracy(correct, clusters, config),
        "confusion": {"tp": c.tp, "fp": c.fp, "tn": c.tn, "fn": c.fn},
        "reliability": {"confidence": list(confidence), "correct": correct},
    }
    try:
        metrics["auroc"] = auroc(p_positive, gold)
    except ValueError:
        metrics["auroc"] = None
    if baseline and c.n:
        z = two_proportion_z_test(acc, c.n, config.baseline_accuracy, config.baseline_n)
        metrics["baseline"] = {
            "name": config.baseline_name,
            "accuracy": config.baseline_accuracy,
            "n": config.baseline_n,
            "z": z.z,
            "p_value": z.p_value,
        }
    return metrics


def mean_score_from_eq20(decision_is_ooc: bool, p_ooc_eq20: float) -> float:
    """ψ̄ recovered from a verdict's decision and its Eq. 20 p(OOC), which is ψ̄ for a
    false-context decision and 1 − ψ̄ otherwise (the inverse of Eq. 20 given the decision):
    the evaluation records p(OOC), the calibration takes ψ̄."""
    return p_ooc_eq20 if decision_is_ooc else 1.0 - p_ooc_eq20


class CosmosTask:
    """COSMOS / OOKPIK: OOC is the positive class (SEMV Table 4)."""

    name = "cosmos"
    table = "SEMV Table 4"
    positive = "OOC"

    def predict(self, result: Result) -> dict[str, Any]:
        p_positive = result.probabilities.get(self.positive, 0.0)
        out: dict[str, Any] = {
            "label": result.label,
            "p_positive": p_positive,
            "confidence": _winning(result.probabilities),
        }
        decision_is_ooc = result.label == self.positive
        calibrated = calibrated_ooc(
            decision_is_ooc, mean_score_from_eq20(decision_is_ooc, p_positive)
        )
        if calibrated is not None:
            out["p_calibrated"] = calibrated
        return out

    def gold(self, label: str, details: Mapping[str, Any]) -> dict[str, Any]:
        return {"label": label}

    def _positive(self, gold: Mapping[str, Any]) -> bool:
        return bool(gold["label"] == self.positive)

    def score(self, records: Sequence[Record], config: EvalConfig) -> dict[str, Any]:
        rows = scored(records)
        metrics = _binary_metrics(
            [r["prediction"]["label"] == self.positive for r in rows],
            [self._positive(r["gold"]) for r in rows],
            [float(r["prediction"]["p_positive"]) for r in rows],
            [float(r["prediction"]["confidence"]) for r in rows],
            [str(r.get("cluster", r["case_id"])) for r in rows],
            config,
            baseline=self.name == "cosmos",
        )
        metrics["positive"] = self.positive
        metrics.update(_calibrated_metrics(rows, [self._positive(r["gold"]) for r in rows], config))
        return {**_common(records), **metrics}


def _calibrated_metrics(
    rows: Sequence[Record], gold: Sequence[bool], config: EvalConfig
) -> dict[str, Any]:
    """ECE (Eq. 30, winning class of p_cal) and Brier of the calibrated p(OOC), beside the
    Eq. 20 figures; empty when the records carry no calibrated probability."""
    p_cal = [r["prediction"].get("p_calibrated") for r in rows]
    if not rows or any(p is None for p in p_cal):
        return {}
    probs = [float(p) for p in p_cal if p is not None]
    confidence = [max(p, 1.0 - p) for p in probs]
    correct = [(p >= 0.5) == g for p, g in zip(probs, gold, strict=True)]
    return {
        "ece_calibrated": expected_calibration_error(confidence, correct, bins=config.ece_bins),
        "brier_calibrated": brier(probs, gold),
        "reliability_calibrated": {"confidence": confidence, "correct": correct},
    }


class VeriteTask(CosmosTask):
    """VERITE: true vs. not-true (miscaptioned, out-of-context), and the pairwise accuracies."""

    name = "verite"
    table = "VERITE (true vs. miscaptioned / out-of-context)"

    def _positive(self, gold: Mapping[str, Any]) -> bool:
        return bool(gold["label"] != "true")

    def score(self, records: Sequence[Record], config: EvalConfig) -> dict[str, Any]:
        metrics = super().score(records, config)
        rows = scored(records)
        for other in ("miscaptioned", "out-of-context"):
            pair = [r for r in rows if r["gold"]["label"] in ("true", other)]
            right = sum(
                (r["prediction"]["label"] == self.positive) == (r["gold"]["label"] == other)
                for r in pair
            )
            metrics[f"accuracy_true_vs_{other}"] = right / len(pair) if pair else None
        metrics["by_gold"] = {
            label: sum(r["gold"]["label"] == label for r in rows)
            for label in ("true", "miscaptioned", "out-of-context")
        }
        return metrics


class FivePilsOocTask(CosmosTask):
    """5Pils-OOC: a fact-checker's caption against captions of the same image found on the web;
    OOC (the out-of-context caption) is the positive class, as for COSMOS."""

    name = "5pils-ooc"
    table = "5Pils-OOC (accurate vs. out-of-context captions, web captions as evidence)"


_BAND_TO_REMMD: Final[dict[Band, VeracityLabel]] = {
    Band.SUPPORTED: VeracityLabel.TRUE,
    Band.WEAKLY_SUPPORTED: VeracityLabel.MOSTLY_TRUE,
    Band.UNCERTAIN: VeracityLabel.MIXTURE,
    Band.WEAKLY_REFUTED: VeracityLabel.MOSTLY_FALSE,
    Band.REFUTED: VeracityLabel.FALSE,
}


def remmd_l1(result: Result) -> VeracityLabel | None:
    """The ReMMD L1 label of a semv result: its decision mapped by ``INTERNAL_TO_REMMD``; an
    ``uncertain`` decision (evidence without a decisive rule) by the Eq. 18 band of ψ̄;
    None (an abstention) for ``insufficient-evidence``."""
    mapped = INTERNAL_TO_REMMD.get(result.label)
    if mapped is not None or result.label != InternalLabel.UNCERTAIN or not result.subclaims:
        return mapped
    psi = statistics.fmean(s.score for s in result.subclaims)
    return _BAND_TO_REMMD[band_of(psi, config=DecisionConfig())]


def remmd_l2_from_result(result: Result) -> list[str]:
    """ReMMD L2 labels read off semv's refuted subclaims (see the module docstring)."""
    labels = {
        _REMMD_L2_BY_DIMENSION[s.dimension]
        for s in result.subclaims
        if s.decision in _REFUTED and s.dimension in _REMMD_L2_BY_DIMENSION
    }
    if result.label == InternalLabel.FALSE_CONTEXT:
        labels.add(Distortion.T3)
    return sorted(labels, key=REMMD_L2.index)


def native_veracity(result: Result) -> str | None:
    """The L1 label a 5-way procedure put on its result (``Result.veracity``), if any."""
    value = result.veracity
    if value is None:
        return None
    if value not in REMMD_L1:
        raise ValueError(f"result {result.run_id}: veracity {value!r} is not an L1 label")
    return str(value)


def native_distortions(result: Result) -> list[str]:
    """The L2 labels a 5-way procedure put on its result (``Result.distortions``)."""
    values = result.distortions
    unknown = [v for v in values if v not in REMMD_L2]
    if unknown:
        raise ValueError(f"result {result.run_id}: unknown L2 labels {unknown}")
    return [str(v) for v in values]


def _class_dict(report: MultiClassReport | MultiLabelReport) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind, avg in report.averages.items():
        out[f"{kind}_precision"] = avg.precision
        out[f"{kind}_recall"] = avg.recall
        out[f"{kind}_f1"] = avg.f1
    out["per_class"] = {
        label: {
            "precision": s.precision,
            "recall": s.recall,
            "f1": s.f1,
            "support": s.support,
            "pred_positives": s.tp + s.fp,
            "true_positives": s.tp,
            "false_positives": s.fp,
            "false_negatives": s.fn,
        }
        for label, s in report.per_class.items()
    }
    return out


def score_remmd(
    predicted_l1: Sequence[str | None],
    gold_l1: Sequence[str],
    predicted_l2: Sequence[Sequence[str]],
    gold_l2: Sequence[Sequence[str]],
) -> dict[str, Any]:
    """ReMMD's L1 (5-way) and L2 (8-label) metrics, as in the authors' ``metrics.json``."""
    l1 = multiclass_report([p or "" for p in predicted_l1], list(gold_l1), REMMD_L1)
    l2 = _multilabel([set(p) for p in predicted_l2], [set(g) for g in gold_l2], REMMD_L2)
    level1 = {"accuracy": l1.accuracy, **_class_dict(l1), "confusion_matrix": l1.confusion}
    level2 = {
        **_class_dict(l2),
        "hamming_loss": l2.hamming_loss,
        "subset_accuracy": l2.subset_accuracy,
    }
    return {
        "n": l1.n,
        "labels_l1": list(REMMD_L1),
        "labels_l2": list(REMMD_L2),
        "abstained": sum(p is None for p in predicted_l1),
        "level1": level1,
        "level2": level2,
        "confusion": {"labels": list(REMMD_L1), "matrix": l1.confusion},
    }


class RemmdTask:
    """ReMMDBench: L1 5-way and L2 8-label metrics (ReMMD Table 4)."""

    name = "remmd"
    table = "ReMMD Table 4"

    def predict(self, result: Result) -> dict[str, Any]:
        """A 5-way procedure's own L1/L2 (``native``) when the result carries them, else semv's
        internal label mapped by ``INTERNAL_TO_REMMD`` and L2 from its refuted subclaims."""
        veracity = native_veracity(result)
        if veracity is not None:
            return {
                "internal_label": result.label,
                "l1": veracity,
                "l2": sorted(set(native_distortions(result)), key=REMMD_L2.index),
                "confidence": result.confidence,
                "native": True,
            }
        return {
            "internal_label": result.label,
            "l1": remmd_l1(result),
            "l2": remmd_l2_from_result(result),
            "confidence": result.confidence,
            "native": False,
        }

    def gold(self, label: str, details: Mapping[str, Any]) -> dict[str, Any]:
        return {"l1": label, "l2": list(details.get("l2", []))}

    def score(self, records: Sequence[Record], config: EvalConfig) -> dict[str, Any]:
        rows = scored(records)
        metrics = score_remmd(
            [r["prediction"]["l1"] for r in rows],
            [r["gold"]["l1"] for r in rows],
            [r["prediction"]["l2"] for r in rows],
            [r["gold"]["l2"] for r in rows],
        )
        metrics["native"] = sum(bool(r["prediction"].get("native")) for r in rows)
        correct = [r["prediction"]["l1"] == r["gold"]["l1"] for r in rows]
        metrics["level1"]["accuracy_bootstrap_ci"] = _bootstrap_accuracy(
            correct, [str(r.get("cluster", r["case_id"])) for r in rows], config
        )
        return {**_common(records), **metrics}


class MmFakeBenchTask:
    """MMFakeBench: binary (fake positive) and four-class scores."""

    name = "mmfakebench"
    table = "MMFakeBench (binary and four-class)"

    def predict(self, result: Result) -> dict[str, Any]:
        p_fake = sum(
            p
            for label, p in result.probabilities.items()
            if MMFAKEBENCH_BINARY.get(INTERNAL_TO_MMFAKEBENCH.get(label, ""), "") == "fake"
        )
        cls = INTERNAL_TO_MMFAKEBENCH.get(result.label)
        return {
            "internal_label": result.label,
            "label": cls,
            "binary": MMFAKEBENCH_BINARY[cls] if cls else "real",
            "p_positive": p_fake,
            "confidence": result.confidence,
        }

    def gold(self, label: str, details: Mapping[str, Any]) -> dict[str, Any]:
        return {"label": label, "binary": details.get("binary", MMFAKEBENCH_BINARY[label])}

    def score(self, records: Sequence[Record], config: EvalConfig) -> dict[str, Any]:
        rows = scored(records)
        predicted = [r["prediction"]["binary"] == "fake" for r in rows]
        gold = [r["gold"]["binary"] == "fake" for r in rows]
        binary = _binary_metrics(
            predicted,
            gold,
            [float(r["prediction"]["p_positive"]) for r in rows],
            [
                max(float(r["prediction"]["p_positive"]), 1 - float(r["prediction"]["p_positive"]))
                for r in rows
            ],
            [str(r.get("cluster", r["case_id"])) for r in rows],
            config,
        )
        four = multiclass_report(
            [r["prediction"]["label"] or "" for r in rows],
            [r["gold"]["label"] for r in rows],
            FAKE_CLASSES,
        )
        metrics: dict[str, Any] = {**_common(records), **binary, "positive": "fake"}
        metrics["four_class"] = {"accuracy": four.accuracy, **_class_dict(four)}
        metrics["abstained"] = sum(r["prediction"]["label"] is None for r in rows)
        metrics["confusion_4"] = {"labels": list(FAKE_CLASSES), "matrix": four.confusion}
        return metrics


def _first_day(facts: Facts | None) -> str | None:
    """The first date of day precision (with a year) among ``facts``."""
    if facts is None:
        return None
    return next((d.iso for d in facts.dates if d.precision is DatePrecision.DAY), None)


def _event_time(result: Result) -> str | None:
    """The event time semv's result states: the claimed date (to the day) of a supported
    ``when`` subclaim, else the first dated fact of an argument attacking it (a capture time,
    a dated earlier publication, a first-seen date), else none. Read from the typed facts the
    result carries, never from the arguments' prose."""
    for sub in result.subclaims:
        if sub.dimension != Dimension.WHEN.value:
            continue
        if sub.decision in _SUPPORTED and (d := _first_day(sub.facts)):
            return d
        for argument in sub.arguments:
            if argument.stance == "att" and (d := _first_day(argument.facts)):
                return d
    return None


def _cited_urls(result: Result) -> list[str]:
    cited = {e for s in result.subclaims for a in s.arguments for e in a.evidence}
    return sorted({e.url for e in result.evidence if e.id in cited and e.url})


class Mv2026Task:
    """MV2026 held-out cases (SEMV Table 6, Eq. 33-36)."""

    name = "mv2026"
    table = "SEMV Table 6"

    def predict(self, result: Result) -> dict[str, Any]:
        fields: dict[str, bool] = dict.fromkeys(REQUIRED_FIELDS, False)
        markdown = result.report_paths.get("markdown")
        if markdown and Path(markdown).is_file():
            fields = parse_mv_report(Path(markdown).read_text(encoding="utf-8")).fields
        return {
            "label": result.label,
            "urls": _cited_urls(result),
            "event_time": _event_time(result),
            "fields": fields,
            "confidence": result.confidence,
        }

    def gold(self, label: str, details: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "label": label,
            "urls": list(details.get("urls", [])),
            "event_time": details.get("event_time"),
            "publication_times": list(details.get("publication_times", [])),
        }

    def score(self, records: Sequence[Record], config: EvalConfig) -> dict[str, Any]:
        rows = scored(records)
        predicted = [r["prediction"]["label"] for r in rows]
        gold = [r["gold"]["label"] for r in rows]
        temporal = [
            temporal_outcome(
                _date(r["prediction"]["event_time"]),
                _date(r["gold"]["event_time"]),
                [d for t in r["gold"]["publication_times"] if (d := _date(t))],
                tolerance_days=config.temporal_tolerance_days,
            )
            for r in rows
        ]
        temp, conf = temporal_rates(temporal)
        labels = [label.value for label in InternalLabel]
        report = multiclass_report(predicted, gold, labels)
        return {
            **_common(records),
            "n": len(rows),
            "accuracy": case_accuracy(predicted, gold),
            "correct": sum(
                p == g and p not in ABSTENTION_LABELS for p, g in zip(predicted, gold, strict=True)
            ),
            "abstention": abstention_rate(predicted),
            "abstained": sum(p in ABSTENTION_LABELS for p in predicted),
            "url_f1": url_f1(
                [r["prediction"]["urls"] for r in rows], [r["gold"]["urls"] for r in rows]
            ),
            "temporal": temp,
            "time_confusion": conf,
            "recovered": sum(t.recovered for t in temporal),
            "confused": sum(t.confused for t in temporal),
            "coverage": field_coverage([r["prediction"]["fields"] for r in rows], REQUIRED_FIELDS),
            "confusion": {"labels": labels, "matrix": report.confusion},
        }


def _date(text: str | None) -> Any:
    return parse_date(text) if text else None


class InternalTask:
    """Generic case folders: the internal MV labels, accuracy with abstentions as errors."""

    name = "generic"
    table = "internal labels (Eq. 33)"

    def predict(self, result: Result) -> dict[str, Any]:
        return {"label": result.label, "confidence": result.confidence}

    def gold(self, label: str, details: Mapping[str, Any]) -> dict[str, Any]:
        return {"label": label}

    def score(self, records: Sequence[Record], config: EvalConfig) -> dict[str, Any]:
        rows = scored(records)
        predicted = [r["prediction"]["label"] for r in rows]
        gold = [r["gold"]["label"] for r in rows]
        seen = set(predicted) | set(gold)
        labels = [label.value for label in InternalLabel if label.value in seen]
        report = multiclass_report(predicted, gold, labels)
        correct = [p == g for p, g in zip(predicted, gold, strict=True)]
        return {
            **_common(records),
            "n": len(rows),
            "accuracy": case_accuracy(predicted, gold) / 100,
            "abstention": abstention_rate(predicted) / 100,
            "ece": expected_calibration_error(
                [float(r["prediction"]["confidence"]) for r in rows], correct, bins=config.ece_bins
            ),
            "reliability": {
                "confidence": [float(r["prediction"]["confidence"]) for r in rows],
                "correct": correct,
            },
            **{k: v for k, v in _class_dict(report).items() if k.startswith("macro")},
            "confusion": {"labels": labels, "matrix": report.confusion},
        }
