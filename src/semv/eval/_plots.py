"""PNG plots of an evaluation: reliability diagram (Eq. 30's bins) and confusion matrix.

matplotlib with the Agg backend (no display); each figure is written atomically.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

from semv.atomic import atomic_target

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

__all__ = ["confusion_plot", "reliability_bins", "reliability_plot"]


def reliability_bins(
    confidence: Sequence[float], correct: Sequence[bool], bins: int
) -> list[tuple[float, float, float, int]]:
    """Per non-empty bin: (bin centre, mean confidence, accuracy, count), the bins of Eq. 30."""
    members: list[list[int]] = [[] for _ in range(bins)]
    for i, conf in enumerate(confidence):
        members[min(int(conf * bins), bins - 1)].append(i)
    out = []
    for b, idx in enumerate(members):
        if idx:
            out.append(
                (
                    (b + 0.5) / bins,
                    sum(confidence[i] for i in idx) / len(idx),
                    sum(correct[i] for i in idx) / len(idx),
                    len(idx),
                )
            )
    return out


def _save(fig: Figure, path: Path) -> None:
    try:
        with atomic_target(path, prefix=f".{path.stem}.") as tmp:
            fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight")
    finally:
        plt.close(fig)


def reliability_plot(
    confidence: Sequence[float], correct: Sequence[bool], bins: int, path: Path, title: str
) -> None:
    """Accuracy per confidence bin against the diagonal, with bin counts."""
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    data = reliability_bins(confidence, correct, bins)
    width = 1.0 / bins
    ax.bar(
        [d[0] for d in data],
        [d[2] for d in data],
        width=width * 0.9,
        edgecolor="black",
        label="accuracy",
    )
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
    ax.scatter([d[1] for d in data], [d[2] for d in data], color="red", zorder=3, s=12)
    for centre, _, acc, count in data:
        ax.annotate(str(count), (centre, acc), ha="center", va="bottom", fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("confidence (winning-class probability)")
    ax.set_ylabel("accuracy")
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize=8)
    _save(fig, path)


def confusion_plot(
    matrix: Sequence[Sequence[int]], labels: Sequence[str], path: Path, title: str
) -> None:
    """Gold (rows) × predicted (columns) counts."""
    size = max(4.0, 0.9 * len(labels) + 2)
    fig, ax = plt.subplots(figsize=(size, size))
    ax.imshow(matrix, cmap="Blues")
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    peak = max((max(row) for row in matrix), default=0)
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            colour = "white" if peak and value > peak / 2 else "black"
            ax.text(j, i, str(value), ha="center", va="center", color=colour, fontsize=8)
    ax.set_xlabel("predicted")
    ax.set_ylabel("gold")
    ax.set_title(title)
    _save(fig, path)
