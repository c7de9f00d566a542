"""Evaluation: metrics and dataset runners."""

from semv.eval._metrics import (
    BinaryCounts,
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
from semv.eval._runner import CaseOutcome, EvalReport, binary_report, evaluate

__all__ = [
    "BinaryCounts",
    "CaseOutcome",
    "EvalReport",
    "accuracy",
    "balanced_accuracy",
    "binary_report",
    "brier",
    "counts",
    "evaluate",
    "expected_calibration_error",
    "f1",
    "precision",
    "recall",
    "wilson_interval",
]
