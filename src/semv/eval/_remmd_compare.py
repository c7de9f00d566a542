"""``semv eval remmd`` across procedures: the L1/L2 table beside the published ReMMD-Agent
numbers (ReMMD Table 4 columns: L1 accuracy and macro-F1, L2 macro-F1 and exact match)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from semv.config import RemmdEvalConfig
from semv.eval._tasks import INTERNAL_TO_REMMD

_MAPPING = ", ".join(f"{label} → {l1.value}" for label, l1 in INTERNAL_TO_REMMD.items())
"""The L1 mapping in words, from the table ``eval`` scores with (so the note cannot drift)."""

__all__ = ["comparison_rows", "comparison_table"]


def _pct(value: Any) -> str:
    return "–" if value is None else f"{100 * float(value):.2f}"


def comparison_rows(metrics: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The four headline numbers (fractions) of each procedure's ``RemmdTask`` metrics."""
    rows: dict[str, dict[str, Any]] = {}
    for name, m in metrics.items():
        l1, l2 = m.get("level1", {}), m.get("level2", {})
        rows[name] = {
            "n": m.get("n", 0),
            "cases": m.get("cases", m.get("n", 0)),
            "failed": m.get("failed", 0),
            "abstained": m.get("abstained", 0),
            "native": m.get("native", 0),
            "l1_accuracy": l1.get("accuracy"),
            "l1_macro_f1": l1.get("macro_f1"),
            "l2_macro_f1": l2.get("macro_f1"),
            "l2_exact_match": l2.get("subset_accuracy"),
        }
    return rows


def comparison_table(
    metrics: Mapping[str, Mapping[str, Any]],
    published: RemmdEvalConfig,
    *,
    title: str,
    backend: str,
) -> str:
    """Markdown: one row per procedure and the published ReMMD-Agent row."""
    lines = [
        f"## {title}: procedures beside the published ReMMD-Agent ({backend} backend)",
        "",
        "| Procedure | Scored | L1 Acc.↑ | L1 macro-F1↑ | L2 macro-F1↑ | L2 exact match↑ | "
        "Abstained | Failed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, row in comparison_rows(metrics).items():
        lines.append(
            f"| {name} | {row['n']}/{row['cases']} | {_pct(row['l1_accuracy'])} | "
            f"{_pct(row['l1_macro_f1'])} | {_pct(row['l2_macro_f1'])} | "
            f"{_pct(row['l2_exact_match'])} | {row['abstained']} | {row['failed']} |"
        )
    lines += [
        f"| {published.published_name} | 500/500 | {_pct(published.published_l1_accuracy)} | "
        f"{_pct(published.published_l1_macro_f1)} | {_pct(published.published_l2_macro_f1)} | "
        f"{_pct(published.published_l2_exact_match)} | – | – |",
        "",
        "L1: 5-way veracity; L2: 8 distortion labels (macro over labels; exact match = all 8 "
        "right). A 5-way procedure is scored on its own L1/L2; semv's verdict label is mapped "
        f"to L1 ({_MAPPING}; uncertain takes the L1 of its mean score's band) and its L2 read "
        "off its refuted subclaims; an abstention (no L1) "
        "counts as an error. The last row is the published numbers (the authors' LLM agent on "
        "all 500 samples, with images); on the published runs folder, the row 'published, these "
        "N cases' scores the authors' own predictions from their run files on exactly the cases "
        "evaluated here.",
    ]
    return "\n".join(lines) + "\n"
