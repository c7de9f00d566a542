"""Run a dataset through the pipeline and score it; gold is revealed only per committed run."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semv.adapters import LoadedCase
from semv.agents import Agents
from semv.config import Settings
from semv.errors import StageError
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
from semv.model import Usage
from semv.pipeline import run_graded
from semv.procedures import DEFAULT_PROCEDURE
from semv.store import Store

logger = logging.getLogger(__name__)

__all__ = ["CaseOutcome", "EvalReport", "binary_report", "evaluate"]


@dataclass(frozen=True)
class CaseOutcome:
    case_id: str
    run_id: str | None
    predicted: str | None
    probabilities: dict[str, float]
    gold: str | None
    reused: int
    executed: int
    error: str | None = None
    usage: Usage | None = None


@dataclass(frozen=True)
class EvalReport:
    metrics: dict[str, Any]
    outcomes: list[CaseOutcome]


async def evaluate(
    cases: Iterable[LoadedCase],
    *,
    store: Store,
    settings: Settings,
    agents: Agents,
    contract: str,
    reports_dir: Path | None = None,
    on_case: Callable[[CaseOutcome], None] | None = None,
    procedure: str = DEFAULT_PROCEDURE,
) -> list[CaseOutcome]:
    """Verify every case as its own run; reveal gold after each run is committed.

    A stage failure in one case is recorded (the run is kept as failed) and the evaluation
    goes on; bad input stops it with the adapter's error before any run of that case exists.
    """
    outcomes: list[CaseOutcome] = []
    for loaded in cases:
        try:
            graded = await run_graded(
                loaded,
                store=store,
                settings=settings,
                agents=agents,
                contract=contract,
                reports_dir=reports_dir,
                procedure=procedure,
            )
        except StageError as exc:
            logger.warning("%s: %s", loaded.case.id, exc)
            outcome = CaseOutcome(loaded.case.id, None, None, {}, None, 0, 0, error=str(exc))
        else:
            run = graded.outcome
            outcome = CaseOutcome(
                case_id=loaded.case.id,
                run_id=run.result.run_id,
                predicted=run.result.label,
                probabilities=dict(run.result.probabilities),
                gold=graded.gold_label(),
                reused=run.reused,
                executed=run.executed,
                usage=run.result.usage,
            )
        outcomes.append(outcome)
        if on_case is not None:
            on_case(outcome)
    return outcomes


def binary_report(outcomes: list[CaseOutcome], *, positive: str, bins: int = 10) -> EvalReport:
    """Accuracy, P/R/F1 (``positive`` is the positive class), balanced accuracy, ECE with
    equal-width bins over the winning-class probability (Eq. 30), Brier on p(positive) (Eq.
    31) and the Wilson 95% interval of accuracy."""
    scored = [o for o in outcomes if o.predicted is not None and o.gold is not None]
    predicted = [o.predicted == positive for o in scored]
    gold = [o.gold == positive for o in scored]
    c = counts(predicted, gold)
    p_pos = [o.probabilities.get(positive, 0.0) for o in scored]
    winning = [max(o.probabilities.values()) if o.probabilities else 0.0 for o in scored]
    correct = [p == g for p, g in zip(predicted, gold, strict=True)]
    lo, hi = wilson_interval(c.tp + c.tn, c.n)
    metrics: dict[str, Any] = {
        "n": c.n,
        "accuracy": accuracy(c),
        "precision": precision(c),
        "recall": recall(c),
        "f1": f1(c),
        "balanced_accuracy": balanced_accuracy(c),
        "ece": expected_calibration_error(winning, correct, bins=bins),
        "brier": brier(p_pos, gold),
        "accuracy_ci95": [lo, hi],
        "confusion": {"tp": c.tp, "fp": c.fp, "tn": c.tn, "fn": c.fn},
        "positive": positive,
        "failed": sum(o.error is not None for o in outcomes),
        "unlabelled": sum(o.error is None and o.gold is None for o in outcomes),
    }
    costed = [o.usage for o in outcomes if o.usage is not None]
    if costed:
        metrics["cost"] = cost_columns(costed)
    return EvalReport(metrics=metrics, outcomes=outcomes)


def cost_columns(usages: list[Usage]) -> dict[str, Any]:
    """The paper's Wall / Tok. / Calls columns: means per case (seconds, tokens, requests),
    prompt and completion tokens apart, and the price per case when every case has one
    (``llm.prices``)."""
    n = len(usages)
    prices = [u.cost for u in usages]
    return {
        "prompt_tokens": sum(u.prompt_tokens for u in usages) / n,
        "completion_tokens": sum(u.completion_tokens for u in usages) / n,
        "price": None if any(p is None for p in prices) else sum(p or 0.0 for p in prices) / n,
        "cases": n,
        "wall_s": sum(u.wall_s for u in usages) / n,
        "critical_path_s": sum(u.critical_path_s for u in usages) / n,
        "tokens": sum(u.prompt_tokens + u.completion_tokens for u in usages) / n,
        "calls": sum(u.calls for u in usages) / n,
        "cached": sum(u.cached for u in usages) / n,
    }
