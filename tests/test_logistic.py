"""semv's one logistic regression (``semv.logistic``, scikit-learn; scipy's L-BFGS-B under
non-negative weights), and semv's AUROC and Wilson interval against the libraries.

Each fit is checked three ways: against closed forms on hand-made tables (a saturated model
reproduces the (weighted) log-odds of each cell), against the first-order condition of its
objective, and against the Newton solver semv used before, restated here as the reference.
semv's AUROC and Wilson interval stay written out (every ``semv eval`` computes them, and the
libraries' imports take about ten times numpy's each); they are checked against
scikit-learn's and scipy's.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from semv.eval import auroc, wilson_interval
from semv.logistic import fit_logistic, fit_platt


def _table(cells: list[tuple[float, int, int]]) -> tuple[list[list[float]], list[bool]]:
    """Rows (one feature) and labels from (x, positives, negatives) cells."""
    rows: list[list[float]] = []
    labels: list[bool] = []
    for x, pos, neg in cells:
        rows += [[x]] * (pos + neg)
        labels += [True] * pos + [False] * neg
    return rows, labels


def test_a_saturated_model_reproduces_each_cell_s_log_odds() -> None:
    # x = 0: 3 positives, 1 negative; x = 1: 1 positive, 3 negatives (no class weights):
    # intercept = log(3/1), coefficient = log(1/3) − log(3/1)
    rows, labels = _table([(0.0, 3, 1), (1.0, 1, 3)])
    model = fit_logistic(rows, labels, l2=1e-9, balanced=False)
    assert model.intercept == pytest.approx(math.log(3), abs=1e-6)
    assert model.coef[0] == pytest.approx(-2 * math.log(3), abs=1e-6)


def test_balanced_weights_are_n_over_twice_the_class_count() -> None:
    # 8 positives, 4 negatives: weights 12/16 = 0.75 and 12/8 = 1.5. x = 0: 6 pos, 2 neg →
    # weighted odds 4.5 / 3 = 1.5; x = 1: 2 pos, 2 neg → 1.5 / 3 = 0.5
    rows, labels = _table([(0.0, 6, 2), (1.0, 2, 2)])
    model = fit_logistic(rows, labels, l2=1e-9, balanced=True)
    assert model.intercept == pytest.approx(math.log(1.5), abs=1e-6)
    assert model.coef[0] == pytest.approx(math.log(0.5 / 1.5), abs=1e-6)


def _old_newton(
    x: np.ndarray, y: np.ndarray, l2: float, balanced: bool
) -> tuple[np.ndarray, float]:
    """The Newton iteration semv fitted with before (its eval/_logistic.py), as reference."""
    n, d = x.shape
    n_pos = float(y.sum())
    sample = np.where(y > 0, n / (2 * n_pos), n / (2 * (n - n_pos))) if balanced else np.ones(n)
    xb = np.hstack([x, np.ones((n, 1))])
    w = np.zeros(d + 1)
    penalty = np.full(d + 1, l2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (sample * (p - y)) + penalty * w
        hess = (xb.T * (sample * p * (1 - p))) @ xb + np.diag(penalty) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.max(np.abs(step))) < 1e-8:
            break
    return w[:-1], float(w[-1])


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(("l2", "balanced"), [(1.0, True), (0.1, True), (1e-2, False)])
def test_the_fit_equals_the_former_newton_solver_and_is_stationary(
    seed: int, l2: float, balanced: bool
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(120, 4))
    y = (x @ np.array([1.0, -0.5, 0.0, 2.0]) + rng.normal(size=120) > 0.4).astype(float)
    model = fit_logistic(x.tolist(), [bool(v) for v in y], l2=l2, balanced=balanced)
    coef, intercept = np.array(model.coef), model.intercept
    ref_coef, ref_intercept = _old_newton(x, y, l2, balanced)
    assert np.max(np.abs(coef - ref_coef)) < 1e-6
    assert abs(intercept - ref_intercept) < 1e-6
    # first-order condition of the penalised, weighted log loss (intercept not penalised)
    n, n_pos = len(y), float(y.sum())
    s = np.where(y > 0, n / (2 * n_pos), n / (2 * (n - n_pos))) if balanced else np.ones(n)
    p = 1.0 / (1.0 + np.exp(-(x @ coef + intercept)))
    assert np.max(np.abs(x.T @ (s * (p - y)) + l2 * coef)) < 1e-6
    assert abs(float(np.sum(s * (p - y)))) < 1e-6


def test_nonnegative_weights_stay_at_zero_where_the_data_pull_below() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(200, 2))
    y = (x[:, 0] - x[:, 1] + rng.normal(size=200) > 0).astype(float)  # feature 2 counts against
    free = fit_logistic(x.tolist(), [bool(v) for v in y], l2=1.0, balanced=False)
    bound = fit_logistic(x.tolist(), [bool(v) for v in y], l2=1.0, balanced=False, nonnegative=True)
    assert free.coef[1] < 0.0
    assert bound.coef[0] > 0.0 and bound.coef[1] == 0.0
    with pytest.raises(ValueError, match="without class weights"):
        fit_logistic(x.tolist(), [bool(v) for v in y], balanced=True, nonnegative=True)


def _old_forensic_fit(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, float]:
    """The forensic script's own L-BFGS-B fit before it moved into semv.logistic (reference)."""
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
    return np.asarray(res.x[1:]), float(res.x[0])


def test_the_nonnegative_fit_is_the_forensic_script_s_former_fit() -> None:
    rng = np.random.default_rng(6)
    x = rng.normal(size=(150, 5))
    y = (x @ np.array([1.0, 0.5, -1.0, 0.0, 0.3]) + rng.normal(size=150) > 0).astype(float)
    model = fit_logistic(x.tolist(), [bool(v) for v in y], l2=1.0, balanced=False, nonnegative=True)
    ref_coef, ref_intercept = _old_forensic_fit(x, y, 1.0)
    assert np.max(np.abs(np.array(model.coef) - ref_coef)) < 1e-12
    assert abs(model.intercept - ref_intercept) < 1e-12


def test_bad_training_sets_are_refused() -> None:
    with pytest.raises(ValueError, match="no rows"):
        fit_logistic([], [])
    with pytest.raises(ValueError, match="both classes"):
        fit_logistic([[0.0], [1.0]], [True, True])
    with pytest.raises(ValueError, match="same length"):
        fit_logistic([[0.0], [1.0, 2.0]], [True, False])


def test_platt_scaling_recovers_a_known_slope_and_offset() -> None:
    # scores with p(y) = σ(2s − 1) exactly in each cell: counts proportional to σ at s
    cells = []
    for s in (-1.0, 0.0, 1.0, 2.0):
        p = 1.0 / (1.0 + math.exp(-(2 * s - 1)))
        pos = round(10_000 * p)
        cells.append((s, pos, 10_000 - pos))
    rows, labels = _table(cells)
    a, b = fit_platt([r[0] for r in rows], labels)
    assert a == pytest.approx(2.0, abs=2e-3) and b == pytest.approx(-1.0, abs=2e-3)


def test_auroc_and_wilson_equal_the_libraries() -> None:
    """semv's rank-sum AUROC and Wilson interval (kept out of the libraries for the start-up
    cost of every ``semv eval``) against scikit-learn's ``roc_auc_score`` and scipy's Wilson
    ``proportion_ci`` on random samples with many ties."""
    from scipy.stats import binomtest
    from sklearn.metrics import roc_auc_score

    rng = random.Random(5)
    for _ in range(50):
        n = rng.randint(2, 60)
        scores = [round(rng.random(), 1) for _ in range(n)]  # rounded: many ties
        positive = [rng.random() < 0.4 for _ in range(n)]
        if 0 < sum(positive) < n:
            assert auroc(scores, positive) == pytest.approx(
                roc_auc_score(positive, scores), abs=1e-12
            )
        k = rng.randint(0, n)
        ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert wilson_interval(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12)
    ci99 = binomtest(1562, 1700).proportion_ci(confidence_level=0.99, method="wilson")
    assert wilson_interval(1562, 1700, z=2.5758293035489004) == pytest.approx(
        (ci99.low, ci99.high), abs=1e-12
    )
