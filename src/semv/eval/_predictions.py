"""Reading prediction files that were produced elsewhere, for ``semv eval score``.

Formats (``prediction_formats()``):

- ``remmd-results``: the published ReMMD-Agent run layout, ``samples/<id>/result.json`` (or a
  folder of ``<id>/result.json``). Gold is ``gold.verdict`` / ``gold.distortion_taxonomy``,
  the prediction ``judge.level1_verdict`` / ``judge.level2_taxonomy``. As in the authors'
  evaluation, a sample is eligible when its ``status`` is ``ok`` and both verdicts are L1
  labels; the others are counted with their reason.
- any dataset adapter name (``cosmos``, ``remmd``, ``mv2026``...): a results folder (or its
  ``results.jsonl``) written by ``semv eval <adapter>``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from semv.adapters import REMMD_L1, l2_label
from semv.errors import InputError
from semv.eval._datasets import task_names
from semv.eval._tasks import Record
from semv.safeload import loads_json

__all__ = [
    "RESULTS_FILE",
    "PredictionSet",
    "prediction_formats",
    "read_predictions",
    "read_results_log",
]

RESULTS_FILE: Final = "results.jsonl"
REMMD_RESULTS: Final = "remmd-results"


@dataclass(frozen=True)
class PredictionSet:
    """Records in the shape a task scores, the task that scores them, and skipped samples."""

    task: str
    records: list[Record]
    skipped: dict[str, int] = field(default_factory=dict)
    method: str = "semv"
    """How the summary table names the system that made the predictions."""


def prediction_formats() -> tuple[str, ...]:
    return (REMMD_RESULTS, *task_names())


def read_predictions(path: Path, fmt: str) -> PredictionSet:
    """Read ``path`` in format ``fmt``; ``InputError`` names the file and the problem."""
    if fmt == REMMD_RESULTS:
        return _remmd_results(path)
    if fmt in task_names():
        file = path / RESULTS_FILE if path.is_dir() else path
        return PredictionSet(task=fmt, records=read_results_log(file))
    valid = ", ".join(prediction_formats())
    raise InputError(f"unknown prediction format {fmt!r}; valid: {valid}")


def read_results_log(file: Path) -> list[Record]:
    """The records of a ``results.jsonl``. A last line cut short by a crash is ignored (it was
    never finished); a broken line elsewhere is an error."""
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as exc:
        raise InputError(f"{file}: no such results file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{file}: cannot read: {exc}") from exc
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = loads_json(line, f"{file}: line {number}")
        except json.JSONDecodeError as exc:
            if number == len(lines):
                break
            raise InputError(f"{file}: line {number}: invalid JSON: {exc.msg}") from exc
        if not isinstance(record, dict) or "case_id" not in record:
            raise InputError(f"{file}: line {number}: not a case record")
        records.append(record)
    return records


def _result_files(path: Path) -> Iterator[Path]:
    if not path.is_dir():
        raise InputError(f"{path}: not a folder of ReMMD-Agent results")
    root = path / "samples" if (path / "samples").is_dir() else path
    files = sorted(root.glob("*/result.json"))
    if not files:
        raise InputError(f"{path}: no samples/<id>/result.json found (ReMMD-Agent layout)")
    yield from files


def _l2(values: Any, file: Path, key: str) -> list[str]:
    if not isinstance(values, list):
        raise InputError(f"{file}: {key} must be a list")
    out = []
    for value in values:
        label = l2_label(str(value))
        if label is None:
            raise InputError(f"{file}: {key}: unknown L2 label {value!r}")
        out.append(label)
    return sorted(set(out))


def _tokens(data: dict[str, Any], kind: str) -> int | None:
    parts = [data.get("atomic_usage"), data.get("judge_usage")]
    if not all(isinstance(p, dict) and isinstance(p.get(kind), int) for p in parts):
        return None
    return sum(int(p[kind]) for p in parts if isinstance(p, dict))


def _published_cost(data: dict[str, Any]) -> dict[str, Any]:
    """The cost of one published run as far as its file records it: tokens of the atomic
    parse and the judge (the analysers' tokens are not recorded: a lower bound), the agent's
    total seconds, and its retrieval queries (``atom_queries``). Calls and reuse are not
    recorded (None)."""
    queries = data.get("atom_queries")
    total = (data.get("timings") or {}).get("total_s")
    return {
        "calls": None,
        "prompt_tokens": _tokens(data, "prompt_tokens"),
        "completion_tokens": _tokens(data, "completion_tokens"),
        "wall_s": float(total) if isinstance(total, int | float) else None,
        "retrievals": len(queries) if isinstance(queries, list) else None,
        "retrievals_reused": None,
    }


def _remmd_results(path: Path) -> PredictionSet:
    records: list[Record] = []
    skipped: Counter[str] = Counter()
    for index, file in enumerate(_result_files(path)):
        try:
            data = loads_json(file.read_text(encoding="utf-8"), str(file))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{file}: not valid JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise InputError(f"{file}: expected a JSON object")
        gold = data.get("gold") or {}
        judge = data.get("judge") or {}
        if data.get("status") != "ok":
            skipped[f"status {data.get('status')!r}"] += 1
            continue
        if gold.get("verdict") not in REMMD_L1:
            skipped["gold verdict not an L1 label"] += 1
            continue
        if judge.get("level1_verdict") not in REMMD_L1:
            skipped["predicted verdict not an L1 label"] += 1
            continue
        records.append(
            {
                "index": index,
                "case_id": str(data.get("sample_id", file.parent.name)),
                "status": "committed",
                "prediction": {
                    "l1": judge["level1_verdict"],
                    "l2": _l2(judge.get("level2_taxonomy", []), file, "judge.level2_taxonomy"),
                },
                "gold": {
                    "l1": gold["verdict"],
                    "l2": _l2(
                        gold.get("distortion_taxonomy", []), file, "gold.distortion_taxonomy"
                    ),
                },
                "seconds": (data.get("timings") or {}).get("total_s"),
                "cost": _published_cost(data),
            }
        )
    return PredictionSet(
        task="remmd",
        records=records,
        skipped=dict(skipped),
        method=f"ReMMD-Agent ({path.absolute().name})",
    )
