"""The one logistic regression of semv's fitted models (scikit-learn's ``LogisticRegression``).

Every model semv fits from data is an L2-regularised logistic regression: the caption-context
model of the ``why`` rule and the verdict calibration (``scripts/fit_context.py``,
``scripts/fit_calibration.py``), the claim-evidence stance model (``scripts/fit_stance.py``),
the claim-relevance gate (``scripts/fit_relevance.py``) and every fold of the nested
cross-validations (``benchmarks/ookpik_cv.py``, ``benchmarks/averitec_cv.py``). They all fit
here, so a shipped parameter file and a cross-validation fold are fitted by the same code.

The objective is the (optionally class-weighted) log loss plus ``l2/2 · ‖w‖²``, the intercept
not penalised: scikit-learn's ``C = 1/l2`` with ``class_weight="balanced"`` (n / (2 n_class)),
solved by Newton's method with a Cholesky step (``solver="newton-cholesky"``) to a tight
tolerance. The forensic manipulation model (``scripts/fit_forensics.py``) also needs every
weight non-negative (each signal is built so that larger is more suspicious), a bound
scikit-learn's ``LogisticRegression`` cannot impose: ``nonnegative=True`` minimises the same
objective under those bounds with scipy's L-BFGS-B. The libraries are imported on the first
fit only: verifying a case applies fitted weights and never fits. Not from the papers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["Logistic", "fit_logistic", "fit_platt", "platt"]

_TOLERANCE = 1e-10
_MAX_ITERATIONS = 200


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
    nonnegative: bool = False,
) -> Logistic:
    """Maximum a-posteriori logistic regression: minimises the (class-weighted) log loss plus
    ``l2/2 · ‖w‖²`` (the intercept is not penalised).

    ``balanced`` weights each class by n / (2 n_class), so the fitted 0.5 threshold aims at
    balanced accuracy rather than at the training set's class ratio. ``nonnegative`` bounds
    every weight below by 0 (the intercept is free; unweighted classes only).

    Raises:
        ValueError: no rows, rows of unequal length, one class only, ``l2`` not positive,
            ``nonnegative`` with ``balanced``.
    """
    if len(rows) == 0:
        raise ValueError("fit_logistic: no rows")
    try:
        x = np.asarray(rows, dtype=np.float64)
    except ValueError as exc:  # ragged rows
        raise ValueError("fit_logistic: rows must all have the same length") from exc
    if x.ndim != 2 or len(labels) != len(x):
        raise ValueError("fit_logistic: rows must all have the same length, one label each")
    y = np.asarray([1 if v else 0 for v in labels])
    if int(y.sum()) in (0, len(y)):
        raise ValueError("fit_logistic: both classes are needed")
    if not l2 > 0.0 or not math.isfinite(l2):
        raise ValueError(f"fit_logistic: l2 must be a positive number, not {l2}")
    if nonnegative:
        if balanced:
            raise ValueError("fit_logistic: nonnegative weights are fitted without class weights")
        return _fit_nonnegative(x, y.astype(np.float64), l2)
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(
        C=1.0 / l2,
        class_weight="balanced" if balanced else None,
        solver="newton-cholesky",
        tol=_TOLERANCE,
        max_iter=_MAX_ITERATIONS,
    )
    model.fit(x, y)
    return Logistic([float(v) for v in model.coef_[0]], float(model.intercept_[0]))


def _fit_nonnegative(x: np.ndarray, y: np.ndarray, l2: float) -> Logistic:
    """The penalised log loss of σ(b + x·w) under w ≥ 0, by scipy's L-BFGS-B (analytic
    gradient; the intercept b unbounded and unpenalised)."""
    from scipy.optimize import minimize

    n, d = x.shape
    a = np.hstack([np.ones((n, 1)), x])

    def loss(beta: np.ndarray) -> tuple[float, np.ndarray]:
        z = a @ beta
        nll = float(np.sum(np.logaddexp(0.0, z) - y * z)) + 0.5 * l2 * float(beta[1:] @ beta[1:])
        p = 1.0 / (1.0 + np.exp(-z))
        grad = a.T @ (p - y)
        grad[1:] += l2 * beta[1:]
        return nll, grad

    bounds = [(None, None)] + [(0.0, None)] * d
    res = minimize(loss, np.zeros(d + 1), jac=True, method="L-BFGS-B", bounds=bounds)
    return Logistic([float(v) for v in res.x[1:]], float(res.x[0]))


def fit_platt(scores: Sequence[float], labels: Sequence[bool]) -> tuple[float, float]:
    """Platt scaling: (a, b) with p = σ(a·s + b), fitted by unweighted, lightly regularised
    maximum likelihood on (score, label) pairs of a training split."""
    model = fit_logistic([[s] for s in scores], labels, l2=1e-3, balanced=False)
    return model.coef[0], model.intercept


def platt(score: float, a: float, b: float) -> float:
    """σ(a·score + b)."""
    z = a * score + b
    return float(1.0 / (1.0 + np.exp(-z)))
