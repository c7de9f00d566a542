"""Stability (Table S5) and one-group-at-a-time sensitivity (Table S6). Pure parts.

``sweep_conditions`` lists the perturbed configurations of Table S6a: all decision cut-points
shifted by ∓``eval.band_shift``, each of the six Eq. 14 strength weights removed (set to 0),
the six weights replaced by uniform 1/6, and — when the settings carry a memory section with
``theta_v`` — θ_v ∈ {0.50, 0.60, 0.70} (Table S6b). The runner evaluates each condition on
the same cases; ``sweep_table`` and ``stability_table`` render the results.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from semv.config import Settings
from semv.eval._datasets import get_dataset

__all__ = [
    "Condition",
    "headline",
    "stability_table",
    "sweep_conditions",
    "sweep_table",
]

_WEIGHTS: Final = (
    ("w_reliability", "reliability"),
    ("w_relevance", "relevance"),
    ("w_source_diversity", "source diversity"),
    ("w_modality_diversity", "modality diversity"),
    ("w_provenance", "provenance"),
    ("w_specificity", "specificity"),
)


@dataclass(frozen=True)
class Condition:
    """One perturbed configuration: its Table S6 group, a short slug and a description."""

    group: str
    slug: str
    perturbation: str
    settings: Settings


def _bands(settings: Settings, delta: float) -> Settings | None:
    d = settings.decision
    values = {
        "refuted": round(d.refuted + delta, 6),
        "weakly_refuted": round(d.weakly_refuted + delta, 6),
        "weakly_supported": round(d.weakly_supported + delta, 6),
        "supported": round(d.supported + delta, 6),
    }
    r, wr, ws, s = values.values()
    if not 0 < r < wr <= ws < s < 1:
        return None
    return settings.model_copy(update={"decision": d.model_copy(update=values)})


def sweep_conditions(settings: Settings) -> list[Condition]:
    """The Table S6 perturbations of ``settings`` (the reference is not included)."""
    shift = settings.eval.band_shift
    out: list[Condition] = []
    for sign, name in ((-1, "minus"), (1, "plus")):
        shifted = _bands(settings, sign * shift)
        if shifted is not None:
            out.append(
                Condition(
                    "Decision bands",
                    f"bands-{name}",
                    f"Shift all decision cut-points by {sign * shift:+.2f}",
                    shifted,
                )
            )
    strength = settings.strength
    for field, label in _WEIGHTS:
        out.append(
            Condition(
                "Strength ablation",
                f"remove-{field.removeprefix('w_').replace('_', '-')}",
                f"Remove {label}",
                settings.model_copy(update={"strength": strength.model_copy(update={field: 0.0})}),
            )
        )
    uniform = dict.fromkeys((f for f, _ in _WEIGHTS), 1 / 6)
    out.append(
        Condition(
            "Strength control",
            "uniform-weights",
            "Replace the six hand-set weights with uniform 1/6 weights",
            settings.model_copy(update={"strength": strength.model_copy(update=uniform)}),
        )
    )
    memory = getattr(settings, "memory", None)
    if memory is not None and hasattr(memory, "theta_v"):
        for theta in (0.50, 0.60, 0.70):
            out.append(
                Condition(
                    "Memory verification",
                    f"theta-v-{theta:.2f}",
                    f"Set θ_v = {theta:.2f}",
                    settings.model_copy(
                        update={"memory": memory.model_copy(update={"theta_v": theta})}
                    ),
                )
            )
    return out


def headline(task: str, metrics: Mapping[str, Any]) -> dict[str, float]:
    """The numbers Tables S5/S6 track for a task (accuracy as a fraction in [0, 1]), as its
    dataset entry names them (``semv.eval._datasets``)."""
    return get_dataset(task).headline(metrics)


def stability_table(task: str, runs: Sequence[Mapping[str, float]]) -> str:
    """Table S5: per-run values, sample standard deviation (pp) and range of each headline."""
    keys = list(runs[0]) if runs else []
    lines = [
        f"## Stability over {len(runs)} runs (SEMV Table S5 layout)",
        "",
        "| Metric | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + " | sd | range |",
        "|---|" + "---|" * (len(runs) + 2),
    ]
    for key in keys:
        values = [run[key] for run in runs]
        scale = 100.0 if key in ("accuracy", "l2_macro_f1") else 1.0
        unit = " pp" if scale == 100.0 else ""
        sd = statistics.stdev(values) * scale if len(values) > 1 else 0.0
        cells = " | ".join(f"{v * scale:.2f}" for v in values)
        lines.append(
            f"| {key} | {cells} | {sd:.2f}{unit} | {min(values) * scale:.2f}–"
            f"{max(values) * scale:.2f} |"
        )
    return "\n".join(lines) + "\n"


def sweep_table(reference: float, rows: Sequence[tuple[Condition, float]]) -> str:
    """Table S6: accuracy of each perturbation and its Δ from the reference, in pp."""
    lines = [
        "## Sensitivity, one factor group at a time (SEMV Table S6 layout)",
        "",
        f"Reference accuracy: {100 * reference:.1f}%.",
        "",
        "| Group | Perturbation | Acc. (%) | Δ pp |",
        "|---|---|---|---|",
    ]
    for condition, acc in rows:
        lines.append(
            f"| {condition.group} | {condition.perturbation} | {100 * acc:.1f} | "
            f"{100 * (acc - reference):+.1f} |"
        )
    return "\n".join(lines) + "\n"
