"""The verdict calibration: one function from (decision, ψ̄), and ψ̄ recovered from Eq. 20."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import pytest

import semv.calibration as calibration_module
from semv.calibration import calibrated_ooc
from semv.eval import get_task
from semv.eval._tasks import mean_score_from_eq20

# A hand-made calibration: p = σ(2·[OOC] − 4·ψ̄ + 1)
_PARAMS = {"cosmos": {"coef": [2.0, -4.0], "intercept": 1.0}}


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


@pytest.fixture
def fitted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(calibration_module, "calibration", lambda: _PARAMS)


@pytest.mark.usefixtures("fitted")
def test_calibrated_ooc_takes_the_decision_and_the_mean_score() -> None:
    assert calibrated_ooc(True, 0.5) == pytest.approx(_sigmoid(2.0 - 2.0 + 1.0))
    assert calibrated_ooc(False, 0.5) == pytest.approx(_sigmoid(-2.0 + 1.0))
    assert calibrated_ooc(False, 0.0) == pytest.approx(_sigmoid(1.0))
    # very negative z takes the other branch of the stable sigmoid
    assert calibrated_ooc(False, 100.0) == pytest.approx(_sigmoid(-399.0), abs=1e-300)


def test_calibrated_ooc_is_none_without_a_shipped_calibration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(calibration_module, "calibration", lambda: {})
    assert calibrated_ooc(True, 0.9) is None


def test_mean_score_is_recovered_from_eq_20() -> None:
    # Eq. 20: p(OOC) = ψ̄ for a false-context decision, 1 − ψ̄ otherwise
    assert mean_score_from_eq20(True, 0.8) == pytest.approx(0.8)
    assert mean_score_from_eq20(False, 0.3) == pytest.approx(0.7)


@pytest.mark.usefixtures("fitted")
def test_cosmos_evaluation_calibrates_from_eq_20_through_the_mean_score() -> None:
    task = get_task("cosmos")
    nooc: Any = SimpleNamespace(label="NOOC", probabilities={"OOC": 0.3, "NOOC": 0.7})
    # decision NOOC, p(OOC) = 0.3 → ψ̄ = 0.7 → σ(0 − 2.8 + 1)
    assert task.predict(nooc)["p_calibrated"] == pytest.approx(_sigmoid(-1.8))
    ooc: Any = SimpleNamespace(label="OOC", probabilities={"OOC": 0.75, "NOOC": 0.25})
    # decision OOC, p(OOC) = 0.75 → ψ̄ = 0.75 → σ(2 − 3 + 1)
    assert task.predict(ooc)["p_calibrated"] == pytest.approx(0.5)
