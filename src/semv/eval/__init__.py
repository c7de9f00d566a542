"""Evaluation: metrics for every table of the papers, dataset tasks, the resumable runner.

Pure metric functions: ``_metrics`` (binary, Eq. 30-31, Wilson), ``_classes`` (multi-class and
multi-label, ReMMD L1/L2), ``_report_metrics`` (MV2026, Eq. 33-36), ``_stats`` (z-test, AUROC,
cluster bootstrap), ``_mvscore`` (the MV2026 time-adjusted score, Eq. 32, Table 5).
``_tasks`` maps each dataset's predictions and gold; ``_harness`` runs and
resumes evaluations; ``_predictions`` reads prediction files made elsewhere.
"""

from semv.eval._classes import (
    ClassScores,
    MultiClassReport,
    MultiLabelReport,
    confusion_matrix,
    hamming_loss,
    multiclass_report,
    multilabel_report,
    subset_accuracy,
)
from semv.eval._cost import cost_summary, cost_table, role_table
from semv.eval._datasets import (
    Dataset,
    dataset_names,
    dataset_path,
    get_dataset,
    get_task,
    task_names,
)
from semv.eval._harness import (
    EvalPlan,
    finalize,
    load_plan_cases,
    memory_snapshot_hash,
    open_results,
    run_plan,
)
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
from semv.eval._mvscore import (
    MV_TIME_PENALTY,
    JudgeScore,
    MvScoreTable,
    ScoredCase,
    mv_score,
    read_judge_scores,
    release_hours,
    score_cases,
    table5_markdown,
)
from semv.eval._predictions import (
    RESULTS_FILE,
    PredictionSet,
    prediction_formats,
    read_predictions,
    read_results_log,
)
from semv.eval._ray import run_in_ray
from semv.eval._remmd_compare import comparison_rows, comparison_table
from semv.eval._report_metrics import (
    ABSTENTION_LABELS,
    TemporalOutcome,
    abstention_rate,
    case_accuracy,
    field_coverage,
    normalize_url,
    temporal_outcome,
    temporal_rates,
    url_f1,
    url_prf,
)
from semv.eval._runner import CaseOutcome, EvalReport, binary_report, evaluate
from semv.eval._stability import headline, stability_table, sweep_conditions, sweep_table
from semv.eval._stats import (
    BootstrapInterval,
    ZTest,
    auroc,
    cluster_bootstrap,
    two_proportion_z_test,
)
from semv.eval._summary import summary_markdown
from semv.eval._tasks import (
    INTERNAL_TO_MMFAKEBENCH,
    INTERNAL_TO_REMMD,
    Record,
    Task,
    score_remmd,
)
from semv.eval._workers import run_in_processes

__all__ = [
    "ABSTENTION_LABELS",
    "INTERNAL_TO_MMFAKEBENCH",
    "INTERNAL_TO_REMMD",
    "MV_TIME_PENALTY",
    "RESULTS_FILE",
    "BinaryCounts",
    "BootstrapInterval",
    "CaseOutcome",
    "ClassScores",
    "Dataset",
    "EvalPlan",
    "EvalReport",
    "JudgeScore",
    "MultiClassReport",
    "MultiLabelReport",
    "MvScoreTable",
    "PredictionSet",
    "Record",
    "ScoredCase",
    "Task",
    "TemporalOutcome",
    "ZTest",
    "abstention_rate",
    "accuracy",
    "auroc",
    "balanced_accuracy",
    "binary_report",
    "brier",
    "case_accuracy",
    "cluster_bootstrap",
    "comparison_rows",
    "comparison_table",
    "confusion_matrix",
    "cost_summary",
    "cost_table",
    "counts",
    "dataset_names",
    "dataset_path",
    "evaluate",
    "expected_calibration_error",
    "f1",
    "field_coverage",
    "finalize",
    "get_dataset",
    "get_task",
    "hamming_loss",
    "headline",
    "load_plan_cases",
    "memory_snapshot_hash",
    "multiclass_report",
    "multilabel_report",
    "mv_score",
    "normalize_url",
    "open_results",
    "precision",
    "prediction_formats",
    "read_judge_scores",
    "read_predictions",
    "read_results_log",
    "recall",
    "release_hours",
    "role_table",
    "run_in_processes",
    "run_in_ray",
    "run_plan",
    "score_cases",
    "score_remmd",
    "stability_table",
    "subset_accuracy",
    "summary_markdown",
    "sweep_conditions",
    "sweep_table",
    "table5_markdown",
    "task_names",
    "temporal_outcome",
    "temporal_rates",
    "two_proportion_z_test",
    "url_f1",
    "url_prf",
    "wilson_interval",
]
