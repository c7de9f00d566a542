"""The glossary: one source for every label, code and symbol a user sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from semv import glossary
from semv.model import Band, CosmosLabel, Dimension, InternalLabel, Stage, UncertaintyCode

DOC = Path(__file__).resolve().parents[1] / "docs" / "glossary.md"


@pytest.mark.parametrize(
    "enum", [InternalLabel, CosmosLabel, Band, Dimension, Stage, UncertaintyCode]
)
def test_every_value_a_user_sees_has_a_plain_explanation(enum: type) -> None:
    missing = [member.value for member in enum if not glossary.explain(member.value)]
    assert missing == []


@pytest.mark.parametrize(
    "term", ["u*", "route", "C+S", "U", "M^epi", "MU", "VC", "CR", "tgt_h", "ψ", "Loc"]
)
def test_the_jargon_named_in_issue_22_is_explained(term: str) -> None:
    meaning = glossary.explain(term)
    assert meaning is not None and len(meaning.split()) >= 5  # a sentence, not another symbol


def test_terms_are_unique_and_grouped() -> None:
    names = [str(t.term) for t in glossary.GLOSSARY]
    assert len(names) == len(set(names))
    assert {t.group for t in glossary.GLOSSARY} == set(glossary.GROUPS)


def test_a_stage_symbol_and_a_policy_symbol_do_not_shadow_each_other() -> None:
    assert glossary.stage_name("C") == "Claims"
    assert glossary.policy_meaning("causal").startswith("C (causal): Revision policy")
    assert glossary.policy_meaning("scoped").startswith("C+S (scoped): Revision policy")


def test_extraction_failures_and_findings_are_told_apart() -> None:
    assert glossary.note_heading(UncertaintyCode.TOOL_MISSING) == "Not extracted"
    assert glossary.note_heading(UncertaintyCode.FORENSIC_ANOMALY) == "To review"


def test_docs_glossary_is_generated_from_the_module() -> None:
    assert DOC.read_text(encoding="utf-8") == glossary.markdown(), (
        "docs/glossary.md is stale: run `python -m semv.glossary > docs/glossary.md`"
    )


def test_stage_words_read_inside_a_sentence() -> None:
    assert [glossary.stage_word(s.value) for s in Stage] == [
        "claims",
        "retrieval",
        "validation",
        "argumentation",
        "QBAF",
        "aggregation",
        "output",
    ]
