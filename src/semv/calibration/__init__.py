"""The verdict calibration: a probability fitted on a declared training split, reported beside
the paper's Eq. 20 value.

p(OOC) of Eq. 20 is ψ̄ or 1 − ψ̄ depending on the decision; it is not a calibrated
probability (docs/evaluation.md). ``data/calibration.json`` (``scripts/fit_calibration.py``,
``make fit``) holds a logistic calibration of the COSMOS contract fitted on a declared
training split (Platt scaling with the decision as a second input):

    p_cal(OOC) = σ(a·[decision = false-context] + b·ψ̄ + c).

The file is package data of this package, so it enters the ``aggregate`` stage's code
fingerprint: a refit invalidates the cached verdicts, never the arguments.
"""

from __future__ import annotations

import hashlib
import json
import math
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["CALIBRATED_CONTRACTS", "calibrated", "calibrated_ooc", "calibration", "calibration_id"]

CALIBRATED_CONTRACTS: tuple[str, ...] = ("cosmos",)
"""The label contracts the shipped file calibrates (its top-level keys other than
``version``)."""


@cache
def _raw() -> bytes:
    path = resources.files("semv.calibration").joinpath("data", "calibration.json")
    return path.read_bytes() if path.is_file() else b""


@cache
def calibration() -> dict[str, Any]:
    """The shipped calibration file (empty when it has not been fitted)."""
    raw = _raw()
    if not raw:
        return {}
    data: dict[str, Any] = json.loads(raw.decode("utf-8"))
    return data


def calibration_id(contract: str) -> str | None:
    """The identity of the calibration of ``contract``: ``<contract>@<first 12 hex digits of
    the sha256 of the shipped file>``; None when the file does not calibrate it."""
    if not calibration().get(contract):
        return None
    return f"{contract}@{hashlib.sha256(_raw()).hexdigest()[:12]}"


def calibrated_ooc(decision_is_ooc: bool, mean_score: float) -> float | None:
    """p_cal(OOC) of a COSMOS-contract verdict from its decision (false-context or not) and
    its mean subclaim score ψ̄ (the two inputs of Eq. 20); None when no calibration is
    shipped."""
    params = calibration().get("cosmos")
    if not params:
        return None
    a, b = (float(c) for c in params["coef"])
    z = a * (1.0 if decision_is_ooc else 0.0) + b * mean_score + float(params["intercept"])
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def calibrated(contract: str, decision_is_positive: bool, mean_score: float) -> float | None:
    """The calibrated probability of ``contract``'s positive class (COSMOS: OOC); None when
    the contract has no shipped calibration."""
    if contract == "cosmos":
        return calibrated_ooc(decision_is_positive, mean_score)
    return None
