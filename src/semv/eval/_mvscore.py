"""The MV2026 time-adjusted judge score (SEMV Eq. 32) and the organiser's aggregate (Table 5).

    MVScore_i = max(0, Q_i − 0.001·T_i²)                                             (Eq. 32)

Q_i ∈ [0, 110] is the expert judges' rubric score of case i's report (10 summary and
classification, 65 verified evidence, 20 forensic analysis, 5 supporting evidence and
cross-checking, 10 clarity and structure) and T_i the hours between the case's release and the
report's submission. The aggregate is the sum over the official cases (Table 5: 714.95 for
SEMV's ten case scores).

Q comes from the judges (a file: ``semv eval mv2026 --judge-scores FILE``); T from the file
when it gives ``hours`` (another team's submissions), else from the store: the newest committed
run of the case, from the release time ``semv verify`` recorded (the case file's ``released``)
to the run's ``run.committed`` event.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from semv.errors import InputError
from semv.model import RunStatus, TraceKind
from semv.store import Store

__all__ = [
    "MV_TIME_PENALTY",
    "Q_MAX",
    "JudgeScore",
    "MvScoreTable",
    "ScoredCase",
    "mv_score",
    "read_judge_scores",
    "release_hours",
    "score_cases",
    "table5_markdown",
]

MV_TIME_PENALTY: Final = 0.001
"""The organiser's penalty per squared hour of Eq. 32 (a rule of the challenge, not a tunable)."""
Q_MAX: Final = 110.0
"""The rubric's maximum (10 + 65 + 20 + 5 + 10)."""
DEFAULT_METHOD: Final = "semv"


def mv_score(q: float, hours: float) -> float:
    """Eq. 32: max(0, Q − 0.001·T²)."""
    if not 0.0 <= q <= Q_MAX:
        raise ValueError(f"Q must lie in [0, {Q_MAX:g}], not {q}")
    if hours < 0:
        raise ValueError(f"T must not be negative, not {hours}")
    return max(0.0, q - MV_TIME_PENALTY * hours * hours)


@dataclass(frozen=True)
class JudgeScore:
    """One row of a judge-scores file."""

    case: str
    q: float
    method: str = DEFAULT_METHOD
    hours: float | None = None


@dataclass(frozen=True)
class ScoredCase:
    method: str
    case: str
    q: float
    hours: float
    score: float
    source: str
    """Where T came from: ``file`` or the run id whose release and commit times gave it."""


@dataclass(frozen=True)
class MvScoreTable:
    """Table 5: per method, the case scores and their sum (the organiser's aggregate)."""

    cases: tuple[str, ...]
    rows: tuple[ScoredCase, ...]

    def methods(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.method for r in self.rows))

    def score(self, method: str, case: str) -> float | None:
        return next((r.score for r in self.rows if r.method == method and r.case == case), None)

    def total(self, method: str) -> float:
        return sum(r.score for r in self.rows if r.method == method)

    def as_json(self) -> dict[str, Any]:
        return {
            "equation": "MVScore = max(0, Q - 0.001*T^2)",
            "cases": list(self.cases),
            "methods": [
                {
                    "method": m,
                    "total": round(self.total(m), 4),
                    "cases": [
                        {
                            "case": r.case,
                            "q": r.q,
                            "hours": round(r.hours, 4),
                            "score": round(r.score, 4),
                            "hours_from": r.source,
                        }
                        for r in self.rows
                        if r.method == m
                    ],
                }
                for m in self.methods()
            ],
        }


def _number(value: object, what: str, where: str) -> float:
    try:
        number = float(str(value).strip())
    except ValueError:
        raise InputError(f"{where}: {what} {value!r} is not a number") from None
    if number != number:  # NaN
        raise InputError(f"{where}: {what} is not a number")
    return number


def read_judge_scores(path: Path) -> list[JudgeScore]:
    """Rows ``case, q[, method][, hours]`` from CSV (a header row) or JSON (a list of objects).
    Raises ``InputError`` naming the file, the row and the problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read judge scores: {exc}") from exc
    records: list[Any]
    if path.suffix.lower() == ".json":
        try:
            records = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: malformed JSON: {exc.msg} (line {exc.lineno})") from exc
        if not isinstance(records, list):
            raise InputError(f"{path}: expected a list of {{case, q, ...}} objects")
    else:
        records = list(csv.DictReader(text.splitlines()))
    out: list[JudgeScore] = []
    seen: set[tuple[str, str]] = set()
    for n, record in enumerate(records, 1):
        where = f"{path}: row {n}"
        if not isinstance(record, dict):
            raise InputError(f"{where}: not an object")
        case = str(record.get("case") or "").strip()
        if not case:
            raise InputError(f"{where}: no case")
        if record.get("q") in (None, ""):
            raise InputError(f"{where}: no q (the judges' rubric score)")
        q = _number(record["q"], "q", where)
        if not 0.0 <= q <= Q_MAX:
            raise InputError(f"{where}: q {q:g} is outside [0, {Q_MAX:g}]")
        hours = None
        if record.get("hours") not in (None, ""):
            hours = _number(record["hours"], "hours", where)
            if hours < 0:
                raise InputError(f"{where}: hours {hours:g} is negative")
        method = str(record.get("method") or DEFAULT_METHOD).strip()
        if (method, case) in seen:
            raise InputError(f"{where}: a second score for case {case!r} of {method!r}")
        seen.add((method, case))
        out.append(JudgeScore(case=case, q=q, method=method, hours=hours))
    if not out:
        raise InputError(f"{path}: no judge scores")
    return out


def _time(value: str) -> dt.datetime:
    parsed = dt.datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def release_hours(store: Store, case: str) -> tuple[float, str] | None:
    """(T in hours, run id) of the newest committed run of ``case`` whose start recorded a
    release time; None when there is none."""
    for record in store.list_runs(limit=max(1, store.count_runs())):
        if record.case_id != case or record.status is not RunStatus.COMMITTED:
            continue
        events = store.trace(record.run_id)
        started = next((e for e in events if e.kind is TraceKind.RUN_STARTED), None)
        committed = next((e for e in events if e.kind is TraceKind.RUN_COMMITTED), None)
        released = started.payload.get("released") if started is not None else None
        if committed is None or not isinstance(released, str):
            continue
        seconds = (_time(committed.at) - _time(released)).total_seconds()
        return max(0.0, seconds / 3600.0), record.run_id
    return None


def score_cases(scores: Sequence[JudgeScore], store: Store | None) -> MvScoreTable:
    """Eq. 32 for every row; T from the row, else from the store (``InputError`` when neither
    gives it)."""
    rows: list[ScoredCase] = []
    for s in scores:
        if s.hours is not None:
            hours, source = s.hours, "file"
        else:
            found = release_hours(store, s.case) if store is not None else None
            if found is None:
                raise InputError(
                    f"case {s.case!r} ({s.method}): no hours in the judge scores and no "
                    "committed run of it with a recorded release time (give the case file a "
                    "'released' time, or an 'hours' column)"
                )
            hours, source = found
        rows.append(ScoredCase(s.method, s.case, s.q, hours, mv_score(s.q, hours), source))
    cases = tuple(dict.fromkeys(s.case for s in scores))
    return MvScoreTable(cases=cases, rows=tuple(rows))


def _best(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def table5_markdown(table: MvScoreTable) -> str:
    """The paper's Table 5 layout: one row per method, one column per case, the total; the
    best value of each column in bold."""
    methods = table.methods()

    def cell(value: float | None, best: float | None) -> str:
        if value is None:
            return "–"
        text = f"{value:.2f}"
        return f"**{text}**" if best is not None and round(value, 2) == round(best, 2) else text

    header = ["Method", *table.cases, "Total ↑"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    best_case = {c: _best(table.score(m, c) for m in methods) for c in table.cases}
    best_total = _best(table.total(m) for m in methods)
    for m in methods:
        cells = [cell(table.score(m, c), best_case[c]) for c in table.cases]
        lines.append("| " + " | ".join([m, *cells, cell(table.total(m), best_total)]) + " |")
    return "\n".join(lines) + "\n"
