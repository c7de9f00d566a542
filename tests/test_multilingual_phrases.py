"""Every phrase of the multilingual phrase table (``tests/data/multilingual/phrases.yaml``):
places and ambiguous places settled by their country, people, dates, landmarks never named as
people, and fact-checks that quote a claim and rate it false, in six languages. The reading
and judging rules are ``benchmarks/multilingual_phrases.py``'s, which prints the accuracy
per language and kind."""

from __future__ import annotations

from typing import Any

import pytest
from benchmarks.multilingual_phrases import KINDS, check, rows

ROWS = rows()


def test_the_table_covers_six_languages_and_every_kind() -> None:
    languages = {r["lang"] for r in ROWS}
    assert {"en", "fr", "es", "de", "pt", "it"} <= languages
    assert len(ROWS) >= 300
    for language in languages:
        assert {r["kind"] for r in ROWS if r["lang"] == language} == set(KINDS)


@pytest.mark.parametrize(
    "row", ROWS, ids=[f"{r['lang']}-{r['kind']}-{n}" for n, r in enumerate(ROWS)]
)
def test_phrase(row: dict[str, Any]) -> None:
    outcome = check(row)
    assert not outcome.person_error, f"a place, date or landmark named as a person: {outcome}"
    assert outcome.correct, outcome.detail
