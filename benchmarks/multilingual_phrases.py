"""Accuracy of the multilingual readers on the phrase table, per language and kind.

The table is ``tests/data/multilingual/phrases.yaml`` (300 phrases in English, French, Spanish,
German, Portuguese and Italian, written from general public knowledge): places (the city and
its country), ambiguous places with the country that settles them, people, dates, landmarks,
and fact-checks that quote a claim and rate it false. Each phrase is read as semv reads any
text, with no language hint (``semv.nlp.language`` identifies it):

- place: a resolved place in the expected country whose name is the expected city's;
- ambiguous-place: the ambiguous name resolves to a city of the expected country;
- person: the expected person is among the people;
- date: the expected ISO date is among the dates;
- landmark: the landmark is not named as a person;
- quote: the stance reading (``semv.nlp.stance``) refutes the quoted claim.

Separately, for every phrase, "named as a person" counts a place, date or landmark the reader
calls a person (any person in a phrase that names none; in a person phrase, a person other
than the expected one). ``tests/test_multilingual_phrases.py`` runs every row.

    python benchmarks/multilingual_phrases.py [--table tests/data/multilingual/phrases_heldout.yaml]

``phrases_heldout.yaml`` (132 phrases, other entities and wording) is scored with the same
rules and was never used to change the readers: its figures are out-of-sample.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "tests" / "data" / "multilingual" / "phrases.yaml"
KINDS = ("place", "ambiguous-place", "person", "date", "landmark", "quote")


@dataclass(frozen=True)
class Outcome:
    """One phrase read: right or not, a non-person named as a person, and what was read."""

    correct: bool
    person_error: bool
    detail: str


def rows(table: Path = TABLE) -> list[dict[str, Any]]:
    data = yaml.safe_load(table.read_text("utf-8"))
    assert isinstance(data, list)
    return data


def check(row: dict[str, Any]) -> Outcome:
    """Read one phrase and judge it (module docstring)."""
    from semv.config import OfflineAgentConfig
    from semv.nlp.entities import extract, same_name
    from semv.nlp.stance import Stance, judge_stance
    from semv.nlp.text import fold

    text, kind = str(row["text"]), str(row["kind"])
    facts = extract(text)
    people = list(facts.people)
    expected_person = row.get("person")
    wrong_people = [p for p in people if not (expected_person and same_name(p, expected_person))]
    person_error = bool(wrong_people)
    places = [(m.text, m.place) for m in facts.places]
    detail = f"{facts.language}: places {[(t, p.label if p else None) for t, p in places]}"
    detail += f", people {people}, dates {[d.iso for d in facts.dates]}"
    if kind == "place":
        city = fold(str(row["city"]))
        correct = any(
            p is not None
            and p.country == row["country"]
            and (city in fold(p.name) or fold(p.name) in city)
            for _, p in places
        )
    elif kind == "ambiguous-place":
        name = fold(str(row["name"]))
        correct = any(
            p is not None and fold(t) == name and p.country == row["country"] for t, p in places
        )
    elif kind == "person":
        correct = any(same_name(p, str(expected_person)) for p in people)
    elif kind == "date":
        correct = str(row["date"]) in [d.iso for d in facts.dates]
    elif kind == "landmark":
        correct = not person_error
    elif kind == "quote":
        judged = judge_stance(str(row["claim"]), text, OfflineAgentConfig())
        correct = judged.stance is Stance.REFUTES
        detail += f", stance {judged.describe()}"
    else:
        raise ValueError(f"{TABLE}: unknown kind {kind!r}")
    return Outcome(correct, person_error, detail)


def main() -> int:
    import argparse

    from rich.console import Console
    from rich.table import Table

    parser = argparse.ArgumentParser()
    parser.add_argument("--table", type=Path, default=TABLE)
    args = parser.parse_args()
    table_rows = rows(args.table)
    right: dict[tuple[str, str], list[bool]] = defaultdict(list)
    as_person: dict[str, int] = defaultdict(int)
    misses: list[str] = []
    for row in table_rows:
        outcome = check(row)
        right[(row["lang"], row["kind"])].append(outcome.correct)
        as_person[row["lang"]] += outcome.person_error
        if not outcome.correct or outcome.person_error:
            misses.append(f"[{row['lang']} {row['kind']}] {row['text']}  →  {outcome.detail}")
    languages = list(dict.fromkeys(r["lang"] for r in table_rows))
    out = Table(title=f"{args.table.name} ({len(table_rows)} phrases): correct / phrases")
    out.add_column("kind")
    for language in languages:
        out.add_column(language, justify="right")
    for kind in KINDS:
        cells = []
        for language in languages:
            got = right.get((language, kind), [])
            cells.append(f"{sum(got)}/{len(got)}" if got else "-")
        out.add_row(kind, *cells)
    out.add_row("named as a person", *(str(as_person[lang]) for lang in languages))
    console = Console()
    console.print(out)
    for miss in misses:
        console.print(miss, markup=False)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    raise SystemExit(main())
