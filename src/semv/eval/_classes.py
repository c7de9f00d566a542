"""Multi-class and multi-label metrics (ReMMD L1 / L2, MMFakeBench, VERITE). Pure functions.

Conventions are scikit-learn's with ``zero_division=0``: a ratio with an empty denominator is 0.
Macro averages are unweighted means over the listed labels, weighted averages weight each label
by its support, micro averages pool the counts. These are the definitions the ReMMD authors'
``metrics/summary.txt`` uses (the parity test recomputes it from their predictions).
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass

__all__ = [
    "ClassScores",
    "MultiClassReport",
    "MultiLabelReport",
    "confusion_matrix",
    "hamming_loss",
    "multiclass_report",
    "multilabel_report",
    "subset_accuracy",
]


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True)
class ClassScores:
    """Precision, recall and F1 of one label, with its counts."""

    precision: float
    recall: float
    f1: float
    support: int
    tp: int
    fp: int
    fn: int

    @classmethod
    def from_counts(cls, tp: int, fp: int, fn: int) -> ClassScores:
        p, r = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
        return cls(p, r, _f1(p, r), tp + fn, tp, fp, fn)


@dataclass(frozen=True)
class Averages:
    precision: float
    recall: float
    f1: float


def _averages(per_class: Sequence[ClassScores]) -> dict[str, Averages]:
    n = len(per_class)
    macro = Averages(
        sum(c.precision for c in per_class) / n if n else 0.0,
        sum(c.recall for c in per_class) / n if n else 0.0,
        sum(c.f1 for c in per_class) / n if n else 0.0,
    )
    support = sum(c.support for c in per_class)
    weighted = Averages(
        _ratio(sum(c.precision * c.support for c in per_class), support),
        _ratio(sum(c.recall * c.support for c in per_class), support),
        _ratio(sum(c.f1 * c.support for c in per_class), support),
    )
    tp = sum(c.tp for c in per_class)
    fp = sum(c.fp for c in per_class)
    fn = sum(c.fn for c in per_class)
    mp, mr = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    micro = Averages(mp, mr, _f1(mp, mr))
    return {"macro": macro, "micro": micro, "weighted": weighted}


def confusion_matrix(
    predicted: Sequence[str], gold: Sequence[str], labels: Sequence[str]
) -> list[list[int]]:
    """``m[i][j]`` = cases with gold ``labels[i]`` predicted as ``labels[j]``.

    Pairs whose gold or prediction is not in ``labels`` are not counted.
    """
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predictions for {len(gold)} gold labels")
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for p, g in zip(predicted, gold, strict=True):
        if p in index and g in index:
            matrix[index[g]][index[p]] += 1
    return matrix


@dataclass(frozen=True)
class MultiClassReport:
    """Single-label metrics: accuracy, per-class and macro/micro/weighted P/R/F1."""

    labels: tuple[str, ...]
    n: int
    accuracy: float
    per_class: dict[str, ClassScores]
    averages: dict[str, Averages]
    confusion: list[list[int]]


def multiclass_report(
    predicted: Sequence[str], gold: Sequence[str], labels: Sequence[str]
) -> MultiClassReport:
    """Accuracy over all pairs, per-class one-vs-rest counts over ``labels``, and their averages.

    A prediction outside ``labels`` (an abstention, say) counts as wrong and as a false negative
    of the gold class.
    """
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predictions for {len(gold)} gold labels")
    per_class: dict[str, ClassScores] = {}
    for label in labels:
        tp = sum(p == label and g == label for p, g in zip(predicted, gold, strict=True))
        fp = sum(p == label and g != label for p, g in zip(predicted, gold, strict=True))
        fn = sum(p != label and g == label for p, g in zip(predicted, gold, strict=True))
        per_class[label] = ClassScores.from_counts(tp, fp, fn)
    correct = sum(p == g for p, g in zip(predicted, gold, strict=True))
    return MultiClassReport(
        labels=tuple(labels),
        n=len(gold),
        accuracy=_ratio(correct, len(gold)),
        per_class=per_class,
        averages=_averages(list(per_class.values())),
        confusion=confusion_matrix(predicted, gold, labels),
    )


def hamming_loss(
    predicted: Sequence[Set[str]], gold: Sequence[Set[str]], labels: Sequence[str]
) -> float:
    """Fraction of (sample, label) slots where prediction and gold disagree."""
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predictions for {len(gold)} gold label sets")
    if not gold or not labels:
        return 0.0
    wrong = sum(
        (label in p) != (label in g)
        for p, g in zip(predicted, gold, strict=True)
        for label in labels
    )
    return wrong / (len(gold) * len(labels))


def subset_accuracy(
    predicted: Sequence[Set[str]], gold: Sequence[Set[str]], labels: Sequence[str]
) -> float:
    """Exact-match accuracy: the predicted set equals the gold set (restricted to ``labels``)."""
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predictions for {len(gold)} gold label sets")
    known = set(labels)
    same = sum((p & known) == (g & known) for p, g in zip(predicted, gold, strict=True))
    return _ratio(same, len(gold))


@dataclass(frozen=True)
class MultiLabelReport:
    """Multi-label metrics: per-label, macro/micro/weighted/samples P/R/F1, Hamming, exact match."""

    labels: tuple[str, ...]
    n: int
    per_class: dict[str, ClassScores]
    averages: dict[str, Averages]
    hamming_loss: float
    subset_accuracy: float


def multilabel_report(
    predicted: Sequence[Set[str]], gold: Sequence[Set[str]], labels: Sequence[str]
) -> MultiLabelReport:
    """Per-label counts over ``labels`` (labels outside the list are ignored), their averages,
    the sample-wise average (a sample with empty gold and prediction scores 0, scikit-learn's
    ``zero_division=0``), the Hamming loss and subset accuracy."""
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predictions for {len(gold)} gold label sets")
    known = set(labels)
    pred = [set(p) & known for p in predicted]
    true = [set(g) & known for g in gold]
    per_class = {
        label: ClassScores.from_counts(
            tp=sum(label in p and label in g for p, g in zip(pred, true, strict=True)),
            fp=sum(label in p and label not in g for p, g in zip(pred, true, strict=True)),
            fn=sum(label not in p and label in g for p, g in zip(pred, true, strict=True)),
        )
        for label in labels
    }
    averages = _averages(list(per_class.values()))
    n = len(true)
    sp = sr = sf = 0.0
    for p, g in zip(pred, true, strict=True):
        both = len(p & g)
        sp += _ratio(both, len(p))
        sr += _ratio(both, len(g))
        sf += _ratio(2 * both, len(p) + len(g))
    averages["samples"] = Averages(_ratio(sp, n), _ratio(sr, n), _ratio(sf, n))
    return MultiLabelReport(
        labels=tuple(labels),
        n=n,
        per_class=per_class,
        averages=averages,
        hamming_loss=hamming_loss(pred, true, labels),
        subset_accuracy=subset_accuracy(pred, true, labels),
    )
