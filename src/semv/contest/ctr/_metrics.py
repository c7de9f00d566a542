"""CTR metrics (Eq. 37-42, §6.4.1) with 95% intervals from a cluster bootstrap over source
cases, and the Markdown table in the layout of the paper's Table 9."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from semv.contest.ctr._run import POLICIES, TRACE_ELEMENTS, EpisodeOutcome
from semv.glossary import explain

__all__ = ["CtrMetric", "ctr_metrics", "ctr_table", "metrics_json"]

_SYMBOL = {"global": "U", "causal": "C", "scoped": "C+S"}


@dataclass(frozen=True)
class CtrMetric:
    value: float | None
    low: float | None
    high: float | None
    numerator: float
    denominator: float


Ratio = Callable[[EpisodeOutcome], tuple[float, float]]


def _ratios() -> dict[str, Ratio]:
    """Each ratio metric as per-episode (numerator, denominator) terms: sums over episodes."""
    return {
        # Eq. 37 (over the N_H corrupted episodes)
        "apply": lambda o: (float(o.applied), 1.0) if o.corrupted else (0.0, 0.0),
        "revision": lambda o: (float(o.revised), 1.0) if o.corrupted else (0.0, 0.0),
        # Eq. 38 (micro-average over out-of-scope objects of corrupted episodes)
        "localization": lambda o: (
            (float(o.preserved), float(o.outside)) if o.corrupted else (0.0, 0.0)
        ),
        # Eq. 39 (all N episodes, |K| = 7)
        "trace": lambda o: (float(o.trace_present), float(len(TRACE_ELEMENTS))),
        # Eq. 40
        "correction": lambda o: (
            float(o.y0 != o.y and o.yh == o.y),
            float(o.y0 != o.y),
        ),
        "induced_error": lambda o: (
            float(o.y0 == o.y and o.yh != o.y),
            float(o.y0 == o.y),
        ),
        # Eq. 41
        "dcp": lambda o: (float(o.y0 != o.y and o.yh == o.y), float(o.yh != o.y0)),
        # Eq. 42 (corrupted report fields of the N_H corrupted episodes)
        "report_recovery": lambda o: (
            (float(o.recovered), float(o.fields)) if o.corrupted else (0.0, 0.0)
        ),
    }


def _medians(outcomes: Sequence[EpisodeOutcome]) -> dict[str, Callable[[EpisodeOutcome], float]]:
    """Per-episode cost terms; the metric is their median over matched episodes."""
    base = {(o.case_id, o.episode): o for o in outcomes if o.policy == "global"}

    def avoided(o: EpisodeOutcome) -> float:
        u = base[(o.case_id, o.episode)]
        return 1.0 - o.executed / u.executed if u.executed else 0.0

    def saved(o: EpisodeOutcome) -> float:
        u = base[(o.case_id, o.episode)]
        return 1.0 - o.cost / u.cost if u.cost else 0.0

    return {
        "revision_time_s": lambda o: o.seconds,
        "recomputation_avoided": avoided,
        "compute_saved": saved,
    }


def ctr_metrics(
    outcomes: Sequence[EpisodeOutcome], *, replicates: int, level: float, seed: int = 0
) -> dict[str, dict[str, CtrMetric]]:
    """policy → metric → value with its cluster-bootstrap interval (source cases resampled
    with replacement, all their episodes kept; percentiles of the replicate values)."""
    cases = sorted({o.case_id for o in outcomes})
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(cases), size=(replicates, len(cases)))
    lo_q, hi_q = (1 - level) / 2 * 100, (1 + level) / 2 * 100
    result: dict[str, dict[str, CtrMetric]] = {}
    medians = _medians(outcomes)
    for policy in POLICIES:
        mine = [o for o in outcomes if o.policy == policy.value]
        by_case = [[o for o in mine if o.case_id == c] for c in cases]
        metrics: dict[str, CtrMetric] = {}
        for name, term in _ratios().items():
            num = np.array([sum(term(o)[0] for o in group) for group in by_case])
            den = np.array([sum(term(o)[1] for o in group) for group in by_case])
            total_den = float(den.sum())
            value = float(num.sum()) / total_den if total_den else None
            rn, rd = num[draws].sum(axis=1), den[draws].sum(axis=1)
            ok = rd > 0
            boot = rn[ok] / rd[ok]
            low, high = (
                (float(np.percentile(boot, lo_q)), float(np.percentile(boot, hi_q)))
                if boot.size
                else (None, None)
            )
            metrics[name] = CtrMetric(value, low, high, float(num.sum()), total_den)
        for name, fn in medians.items():
            vals = [[fn(o) for o in group] for group in by_case]
            flat = [v for group in vals for v in group]
            value = statistics.median(flat) if flat else None
            boot_m = [
                float(np.median(np.concatenate([vals[i] for i in row])))
                for row in draws
                if any(vals[i] for i in row)
            ]
            low = float(np.percentile(boot_m, lo_q)) if boot_m else None
            high = float(np.percentile(boot_m, hi_q)) if boot_m else None
            metrics[name] = CtrMetric(value, low, high, 0.0, float(len(flat)))
        result[policy.value] = metrics
    return result


_ROWS: tuple[tuple[str | None, str, str, str], ...] = (
    (None, "Contestation fidelity", "", ""),
    ("apply", "Apply (%) ↑", "pct", "/N_H"),
    ("revision", "Revision (%) ↑", "pct", "/N_H"),
    ("localization", "Localization (%) ↑", "pct", ""),
    ("trace", "Trace (%) ↑", "pct", ""),
    (None, "Contestation effectiveness", "", ""),
    ("correction", "Correction ↑", "count", "/err"),
    ("induced_error", "Induced error ↓", "count", "/ok"),
    ("dcp", "DCP (%) ↑", "pct", ""),
    ("report_recovery", "Report recovery (%) ↑", "pct", ""),
    (None, "Computational cost", "", ""),
    ("revision_time_s", "Revision time (s) ↓", "sec", ""),
    ("recomputation_avoided", "Recomputation avoided (%) ↑", "pct", ""),
    ("compute_saved", "Compute saved (%) ↑", "pct", ""),
)


def _cell(m: CtrMetric, kind: str) -> str:
    if m.value is None:
        return "n/a"
    ci = ""
    if m.low is not None and m.high is not None:
        scale = 100 if kind in ("pct", "count") else 1
        digits = 1 if scale == 100 else 3
        ci = f" [{m.low * scale:.{digits}f}, {m.high * scale:.{digits}f}]"
    if kind == "count":
        return f"{m.numerator:.0f} ({m.value * 100:.1f}%){ci}"
    if kind == "sec":
        return f"{m.value:.3f}{ci}"
    return f"{m.value * 100:.1f}{ci}"


def ctr_table(metrics: dict[str, dict[str, CtrMetric]], *, title: str) -> str:
    """The Markdown table (layout of Table 9, with the fidelity metrics of Fig. 6 on top)."""
    lines = [
        f"**{title}**",
        "",
        "| Metric | | U | C | C+S |",
        "|---|---|---|---|---|",
    ]
    for key, label, kind, unit in _ROWS:
        if key is None:
            lines.append(f"| *{label}* | | | | |")
            continue
        cells = [_cell(metrics[p.value][key], kind) for p in POLICIES]
        denom = metrics[POLICIES[0].value][key].denominator
        shown = f"{unit[:1]}{denom:.0f}" if unit and unit.startswith("/") else ""
        lines.append(f"| {label} | {shown} | " + " | ".join(cells) + " |")
    lines.append("")
    lines += [f"{term}: {explain(term)}" for term in ("U", "C (causal)", "C+S")]
    return "\n".join(lines) + "\n"


def metrics_json(metrics: dict[str, dict[str, CtrMetric]]) -> dict[str, Any]:
    return {
        _SYMBOL[policy]: {
            name: {
                "value": m.value,
                "ci95": [m.low, m.high],
                "numerator": m.numerator,
                "denominator": m.denominator,
            }
            for name, m in per.items()
        }
        for policy, per in metrics.items()
    }
