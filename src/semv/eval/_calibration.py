"""The verdict calibration ``semv eval`` reports beside Eq. 20.

p(OOC) of Eq. 20 is ψ̄ or 1 − ψ̄ depending on the decision; it is not a calibrated
probability (docs/evaluation.md). ``data/calibration.json`` (``scripts/fit_calibration.py``,
``make fit``) holds a logistic calibration fitted on a declared training split:
p_cal(OOC) = σ(a·[decision = OOC] + b·ψ̄ + c).
"""

from __future__ import annotations

import json
import math
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["calibrated_ooc", "calibration"]


@cache
def calibration() -> dict[str, Any]:
    """The shipped calibration file (empty when it has not been fitted)."""
    path = resources.files("semv.eval").joinpath("data", "calibration.json")
    if not path.is_file():
        return {}
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def calibrated_ooc(decision_is_ooc: bool, p_ooc_eq20: float) -> float | None:
    """p_cal(OOC) for a COSMOS-contract verdict, from its decision and its Eq. 20 p(OOC);
    None when no calibration is shipped."""
    params = calibration().get("cosmos")
    if not params:
        return None
    psi = p_ooc_eq20 if decision_is_ooc else 1.0 - p_ooc_eq20
    a, b = (float(c) for c in params["coef"])
    z = a * (1.0 if decision_is_ooc else 0.0) + b * psi + float(params["intercept"])
    return 1.0 / (1.0 + math.exp(-z))
