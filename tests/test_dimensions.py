"""The dimension registry: one spec per dimension, read by the report, the web pages, eval and
the MV2026 report reader; typed facts in the result, read by evaluation instead of prose."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from semv import verify
from semv.adapters import REQUIRED_FIELDS
from semv.config import Settings
from semv.dimensions import DIMENSIONS, ClaimView, report_order, spec
from semv.eval._tasks import _event_time, remmd_l2_from_result
from semv.model import (
    REMMD_L2,
    ClaimFacts,
    DateFact,
    DatePrecision,
    Dimension,
    Evidence,
    Exif,
    Facts,
    Modality,
    ProducerKind,
    Provenance,
    Result,
    ResultArgument,
    ResultSubclaim,
    SourceType,
    Stance,
    Subclaim,
)
from semv.report import SECTION_ORDER, ReportView
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "lyon-flood"


def test_every_dimension_has_one_spec_under_its_own_key() -> None:
    assert list(DIMENSIONS) == list(Dimension)
    for dimension, s in DIMENSIONS.items():
        assert s.dimension is dimension
        assert spec(dimension.value) is s
    with pytest.raises(KeyError, match="known: what, where, when"):
        spec("how")


def test_report_sections_and_fields_come_from_the_registry() -> None:
    keys = [s.section.key for s in report_order()]
    assert ("summary", "final_status", *keys, "case_summary", "source", "glossary") == SECTION_ORDER
    assert keys == ["where", "when", "who", "why", "forensic_analysis", "other_evidence"]
    assert set(keys) <= set(ReportView.model_fields)
    fields = {s.mv_field for s in DIMENSIONS.values()}
    assert fields <= set(REQUIRED_FIELDS)
    assert len(fields) == len(DIMENSIONS)  # no two dimensions fill the same MV2026 field
    assert {s.remmd_l2 for s in DIMENSIONS.values()} <= set(REMMD_L2)


def test_a_report_section_beyond_the_six_is_validated_as_a_section() -> None:
    with pytest.raises(ValidationError):
        ReportView.model_validate({"how": {"key": "how"}})


def _metadata(ev_id: str, exif: Exif) -> Evidence:
    return Evidence(
        id=ev_id,
        source="exif",
        source_type=SourceType.METADATA,
        modality=Modality.METADATA,
        content="EXIF",
        reliability=0.9,
        relevance=0.5,
        observation=exif,
        provenance=Provenance(producer=ProducerKind.TOOL, agent="test"),
    )


def test_when_types_claimed_and_observed_dates_with_their_precision() -> None:
    when = DIMENSIONS[Dimension.WHEN]
    sub = Subclaim(
        id="claim:when",
        dimension=Dimension.WHEN,
        statement="s",
        claim_type="time",
        asserted=True,
        facts=ClaimFacts(dates=("2024-03-14", "2024-03", "--03-14")),
    )
    assert [(d.iso, d.precision) for d in when.claimed(sub).dates] == [
        ("2024-03-14", DatePrecision.DAY),
        ("2024-03", DatePrecision.MONTH),
        ("--03-14", DatePrecision.DAY_OF_YEAR),
    ]
    view = ClaimView(subclaim=sub, claim_text="Lyon, 14 March 2024")
    (finding,) = when.rule(
        view, _metadata("ev:exif", Exif(capture_time="2019-06-01T10:00:00")), Settings().offline
    )
    assert finding.stance is Stance.ATTACK
    typed = when.typed(finding.key_facts, None)
    assert [(d.iso, d.precision) for d in typed.dates] == [("2019-06-01", DatePrecision.DAY)]


def _result(arguments: tuple[ResultArgument, ...], decision: str, facts: Facts | None) -> Result:
    return Result(
        run_id="r",
        case_id="c",
        label="false-context",
        probabilities={},
        confidence=0.5,
        subclaims=(
            ResultSubclaim(
                id="claim:when",
                dimension="when",
                statement="The events took place on 2024-03-14",
                score=0.2,
                decision=decision,
                arguments=arguments,
                facts=facts,
            ),
        ),
        evidence=(),
        uncertainty=(),
        report_paths={},
        trace_head="h",
    )


def test_event_time_is_read_from_typed_facts_not_prose() -> None:
    prose_only = ResultArgument(
        id="arg:when:att:1",
        stance=Stance.ATTACK,
        text="EXIF capture time 2019-06-01 is 1,748 days before the claimed date 2024-03-14.",
        evidence=("ev:exif",),
        strength=0.8,
        verified=True,
    )
    # a date in the statement or an argument's text, without facts, is no event time
    assert _event_time(_result((prose_only,), "refuted", None)) is None
    assert _event_time(_result((), "supported", None)) is None
    month = DateFact(text="May 2019", iso="2019-05", precision=DatePrecision.MONTH)
    day = DateFact(text="2019-06-01", iso="2019-06-01", precision=DatePrecision.DAY)
    typed = prose_only.model_copy(update={"facts": Facts(dates=(month, day))})
    assert _event_time(_result((typed,), "refuted", None)) == "2019-06-01"
    claimed = Facts(dates=(DateFact(text="x", iso="2024-03-14", precision=DatePrecision.DAY),))
    assert _event_time(_result((typed,), "supported", claimed)) == "2024-03-14"
    assert DIMENSIONS[Dimension.WHEN].remmd_l2 in remmd_l2_from_result(
        _result((typed,), "refuted", claimed)
    )


def test_the_result_carries_typed_facts_only_where_there_are_some(tmp_path: Path) -> None:
    result = verify(EXAMPLE, data_dir=tmp_path / "d", reports_dir=tmp_path / "o", text_only=True)
    document = json.loads(result.model_dump_json())
    by_dim = {s["dimension"]: s for s in document["subclaims"]}
    when = by_dim["when"]
    assert when["facts"]["dates"][0]["precision"] == "day"
    assert when["facts"]["dates"][0]["iso"] == "2024-03-14"
    dated = [a for a in when["arguments"] if "facts" in a]
    assert dated and all(a["facts"]["dates"] for a in dated)
    assert "facts" not in by_dim["authenticity"]  # nothing typed: the key is absent
    where = by_dim["where"]
    places = {p["text"]: p for p in where["facts"]["places"]}
    assert places["Paris"]["country"] == "FR" and places["Paris"]["latitude"] is not None
