"""The dataset registry of ``semv eval``: what each dataset needs of the evaluation, by the
name of the adapter that reads it (``semv.adapters``).

One entry per adapter: its evaluation task (the metrics of its paper table), where a split
lives in a dataset folder, how cases cluster for the bootstrap, which numbers the stability
table tracks and whether MV2026 judge scores apply. Every place of the evaluation that differs
by dataset asks its entry here instead of testing the name; an unknown name is one
``AdapterNotFound`` listing the known names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from semv.adapters import Adapter, LoadedCase, get_adapter
from semv.adapters import split_file as cosmos_split_file
from semv.errors import AdapterNotFound, InputError
from semv.eval._tasks import (
    CosmosTask,
    FivePilsOocTask,
    InternalTask,
    MmFakeBenchTask,
    Mv2026Task,
    RemmdTask,
    Task,
    VeriteTask,
)

__all__ = [
    "Dataset",
    "dataset_names",
    "dataset_path",
    "get_dataset",
    "get_task",
    "task_names",
]


def split_path(path: Path, split: str) -> Path:
    """The first of ``<split>_data.json``, ``<split>.json``, ``<split>.jsonl``,
    ``<split>.csv``, ``*_<split>.json`` (also under ``source/``, MMFakeBench's layout) or a
    ``<split>/`` folder under the dataset folder ``path``."""
    candidates = [
        path / f"{split}_data.json",
        path / f"{split}.json",
        path / f"{split}.jsonl",
        path / f"{split}.csv",
        *sorted(path.glob(f"*_{split}.json")),
        *sorted(path.glob(f"source/*_{split}.json")),
        path / split,
    ]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    raise InputError(f"{path}: no file or folder for split {split!r}")


def accuracy_headline(metrics: Mapping[str, Any]) -> dict[str, float]:
    """Accuracy (a fraction in [0, 1]): the headline of a single-label task."""
    return {"accuracy": float(metrics["accuracy"])}


def remmd_headline(metrics: Mapping[str, Any]) -> dict[str, float]:
    """ReMMD's level-1 accuracy and level-2 macro-F1."""
    return {
        "accuracy": float(metrics["level1"]["accuracy"]),
        "l2_macro_f1": float(metrics["level2"]["macro_f1"]),
    }


def mv2026_headline(metrics: Mapping[str, Any]) -> dict[str, float]:
    """MV2026's accuracy (reported in percent, returned as a fraction), correct count and URL
    F1."""
    return {
        "accuracy": float(metrics["accuracy"]) / 100,
        "correct": float(metrics["correct"]),
        "url_f1": float(metrics["url_f1"]),
    }


@dataclass(frozen=True)
class Dataset:
    """What the evaluation needs of one dataset."""

    name: str
    """The name of the adapter that reads it (``semv.adapters``)."""
    task: Callable[[], Task]
    """Its evaluation task (a fresh one per call)."""
    split: Callable[[Path, str], Path] = split_path
    """The file or folder of a named split inside a dataset folder."""
    image_clusters: bool = False
    """Cases share images (VERITE in triplets, 5Pils-OOC in pairs), so the bootstrap resamples
    by image instead of by case."""
    headline: Callable[[Mapping[str, Any]], dict[str, float]] = accuracy_headline
    """The numbers Tables S5/S6 track, from the task's metrics."""
    judge_scores: bool = False
    """``--judge-scores`` (Eq. 32 from MV2026 judge results) applies."""
    compares_procedures: bool = False
    """Several ``--procedure``s are compared in ReMMD's table, beside the published ReMMD-Agent
    predictions when the dataset path is their runs folder."""

    @property
    def adapter(self) -> Adapter:
        """The adapter that reads the dataset."""
        return get_adapter(self.name)

    def cluster(self, loaded: LoadedCase) -> str:
        """The bootstrap cluster of a case: its first image where cases share images,
        otherwise the case itself."""
        if self.image_clusters and loaded.case.media:
            return loaded.case.media[0].path
        return loaded.case.id


_DATASETS: Final[dict[str, Dataset]] = {
    entry.name: entry
    for entry in (
        Dataset("cosmos", CosmosTask, split=cosmos_split_file),
        Dataset("verite", VeriteTask, image_clusters=True),
        Dataset("5pils-ooc", FivePilsOocTask, image_clusters=True),
        Dataset("remmd", RemmdTask, headline=remmd_headline, compares_procedures=True),
        Dataset("mmfakebench", MmFakeBenchTask),
        Dataset("mv2026", Mv2026Task, headline=mv2026_headline, judge_scores=True),
        Dataset("generic", InternalTask),
    )
}


def dataset_names() -> tuple[str, ...]:
    """The registered dataset names (the adapter names), sorted."""
    return tuple(sorted(_DATASETS))


def get_dataset(name: str) -> Dataset:
    """The dataset read by the adapter ``name``; ``AdapterNotFound`` listing the known names
    otherwise."""
    try:
        return _DATASETS[name]
    except KeyError:
        known = ", ".join(dataset_names())
        raise AdapterNotFound(f"unknown dataset {name!r}; known datasets: {known}") from None


def task_names() -> tuple[str, ...]:
    """The names of the datasets with an evaluation task (every registered dataset)."""
    return dataset_names()


def get_task(name: str) -> Task:
    """The evaluation task of the dataset read by the adapter ``name``."""
    return get_dataset(name).task()


def dataset_path(adapter: str, path: Path, split: str | None) -> Path:
    """The file or folder of ``split`` under ``path`` (``path`` itself without a split), by the
    dataset's own split layout (COSMOS: ``<split>_data.json``; otherwise ``split_path``)."""
    dataset = get_dataset(adapter)
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    if split is None:
        return path
    if not path.is_dir():
        raise InputError(f"{path}: --split needs a dataset folder, not a file")
    return dataset.split(path, split)
