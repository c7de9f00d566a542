"""Evaluation metrics (SEMV §6.1: Eq. 30-31 and Wilson intervals). Pure functions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "BinaryCounts",
    "accuracy",
    "balanced_accuracy",
    "brier",
    "counts",
    "expected_calibration_error",
    "f1",
    "precision",
    "recall",
    "wilson_interval",
]


@dataclass(frozen=True)
class BinaryCounts:
    tp: int
    fp: int
    tn: int
    fn: int

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.tn + self.fn


def counts(predicted: Sequence[bool], gold: Sequence[bool]) -> BinaryCounts:
    """Confusion counts with the positive class ``True`` (OOC for COSMOS)."""
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predictions for {len(gold)} gold labels")
    tp = sum(p and g for p, g in zip(predicted, gold, strict=True))
    fp = sum(p and not g for p, g in zip(predicted, gold, strict=True))
    tn = sum(not p and not g for p, g in zip(predicted, gold, strict=True))
    fn = sum(not p and g for p, g in zip(predicted, gold, strict=True))
    return BinaryCounts(tp, fp, tn, fn)


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0


def accuracy(c: BinaryCounts) -> float:
    return _ratio(c.tp + c.tn, c.n)


def precision(c: BinaryCounts) -> float:
    return _ratio(c.tp, c.tp + c.fp)


def recall(c: BinaryCounts) -> float:
    return _ratio(c.tp, c.tp + c.fn)


def f1(c: BinaryCounts) -> float:
    p, r = precision(c), recall(c)
    return 2 * p * r / (p + r) if p + r else 0.0


def balanced_accuracy(c: BinaryCounts) -> float:
    """Mean of the true-positive and true-negative rates."""
    return 0.5 * (_ratio(c.tp, c.tp + c.fn) + _ratio(c.tn, c.tn + c.fp))


def expected_calibration_error(
    confidences: Sequence[float], correct: Sequence[bool], bins: int = 10
) -> float:
    """Eq. 30 with ``bins`` equal-width bins over [0, 1] (the last bin closed)."""
    if len(confidences) != len(correct):
        raise ValueError("confidences and correctness differ in length")
    if bins < 1:
        raise ValueError("bins must be >= 1")
    n = len(confidences)
    if n == 0:
        return 0.0
    members: list[list[int]] = [[] for _ in range(bins)]
    for i, conf in enumerate(confidences):
        if not 0.0 <= conf <= 1.0:
            raise ValueError(f"confidence {conf} outside [0, 1]")
        members[min(int(conf * bins), bins - 1)].append(i)
    total = 0.0
    for idx in members:
        if idx:
            acc = sum(correct[i] for i in idx) / len(idx)
            conf = sum(confidences[i] for i in idx) / len(idx)
            total += len(idx) / n * abs(acc - conf)
    return total


def brier(p_positive: Sequence[float], gold: Sequence[bool]) -> float:
    """Eq. 31: mean squared error of the positive-class probability."""
    if len(p_positive) != len(gold):
        raise ValueError("probabilities and gold differ in length")
    if not gold:
        return 0.0
    return sum((p - float(g)) ** 2 for p, g in zip(p_positive, gold, strict=True)) / len(gold)


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default), equal to scipy's
    ``binomtest(...).proportion_ci(method="wilson")`` (``tests/test_logistic.py``); written out
    because every ``semv eval`` computes it and ``scipy.stats`` costs that command several
    times numpy's import."""
    if n == 0:
        return (0.0, 1.0)
    phat = successes / n
    denom = 1 + z * z / n
    centre = (phat + z * z / (2 * n)) / denom
    half = z * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))
