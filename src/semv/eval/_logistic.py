"""Small fitted models for semv's offline judgments: an L2-regularised logistic regression
(Newton's method, numpy only) and Platt scaling of a score (a one-feature logistic model).

Used by ``scripts/fit_context.py`` (the caption-context model of the ``why`` rule), by the
verdict calibration (``scripts/fit_calibration.py``) and by the nested cross-validation of
``benchmarks/ookpik_cv.py``, so the same code fits the shipped parameters and the parameters
of every cross-validation fold.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["Logistic", "fit_logistic", "fit_platt", "platt"]


class Logistic:
    """Fitted weights and intercept; ``predict`` gives p(y = 1 | x)."""

    def __init__(self, coef: Sequence[float], intercept: float) -> None:
        self.coef = tuple(float(c) for c in coef)
        self.intercept = float(intercept)

    def predict(self, rows: Sequence[Sequence[float]]) -> list[float]:
        x = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(self.coef))
        z = x @ np.asarray(self.coef) + self.intercept
        return [float(v) for v in 1.0 / (1.0 + np.exp(-z))]


def fit_logistic(
    rows: Sequence[Sequence[float]],
    labels: Sequence[bool],
    *,
    l2: float = 1.0,
    balanced: bool = True,
    iterations: int = 50,
) -> Logistic:
    """Maximum a-posteriori logistic regression: minimises the (class-weighted) log loss
    plus ``l2/2 · ‖w‖²`` (the intercept is not penalised) by Newton's method.

    ``balanced`` weights each class by n / (2 n_class), so the fitted 0.5 threshold aims at
    balanced accuracy rather than at the training set's class ratio.

    Raises:
        ValueError: no rows, rows of unequal length, a label set with one class only.
    """
    if not rows:
        raise ValueError("fit_logistic: no rows")
    x = np.asarray(rows, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError("fit_logistic: rows must all have the same length")
    y = np.asarray([1.0 if v else 0.0 for v in labels])
    n_pos = float(y.sum())
    if n_pos in (0.0, float(len(y))):
        raise ValueError("fit_logistic: both classes are needed")
    n, d = x.shape
    sample = np.where(y > 0, n / (2 * n_pos), n / (2 * (n - n_pos))) if balanced else np.ones(n)
    xb = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1)
    penalty = np.full(d + 1, l2)
    penalty[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (sample * (p - y)) + penalty * w
        hess = (xb.T * (sample * p * (1 - p))) @ xb + np.diag(penalty) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.max(np.abs(step))) < 1e-8:
            break
    return Logistic([float(v) for v in w[:-1]], float(w[-1]))


def fit_platt(scores: Sequence[float], labels: Sequence[bool]) -> tuple[float, float]:
    """Platt scaling: (a, b) with p = σ(a·s + b), fitted by unweighted, lightly regularised
    maximum likelihood on (score, label) pairs of a training split."""
    model = fit_logistic([[s] for s in scores], labels, l2=1e-3, balanced=False)
    return model.coef[0], model.intercept


def platt(score: float, a: float, b: float) -> float:
    """σ(a·score + b)."""
    z = a * score + b
    return float(1.0 / (1.0 + np.exp(-z)))
