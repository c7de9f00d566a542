"""One date parser (semv.nlp.dates): the claimed date, its precision, the day/month order from
the case's language, and the cut-off and EXIF checks that must read it the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from semv import verify
from semv.agents import ArgueInput, DecomposeInput
from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.model import (
    Case,
    Context,
    Dimension,
    Evidence,
    Exif,
    MemoryView,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    Stance,
)
from semv.nlp.dates import (
    Agreement,
    DateOrder,
    Precision,
    capture_agreement,
    compare,
    date_order,
    from_iso,
    iso_date,
    parse_date,
)
from semv.procedures.remmd._models import AtomicPoint, PointFacts, PointRole, PointStatus, PointType
from semv.procedures.remmd.judge import compare_point
from semv.retrieval import Retrieval

CLAIM = "Floodwater covers the streets of Lyon as residents wade through."


def _case(date: str, language: str | None = None) -> Case:
    return Case(id="case:d", claim=CLAIM, context=Context(date=date, language=language))


async def _when_dates(case: Case) -> tuple[str, ...]:
    claims = await OfflineAgents(Settings()).decompose(DecomposeInput(case=case, evidence=()))
    return claims.subclaims[Dimension.WHEN.value].facts.dates


def _cutoff(case: Case) -> str | None:
    retrieval = Retrieval((), Settings().retrieval, before_claim_date=True)
    return retrieval.before_for(case)


@pytest.mark.parametrize(
    ("date", "language", "expected"),
    [
        ("7/3/2024", None, "2024-07-03"),  # English or no tag: month first, as before
        ("7/3/2024", "en-US", "2024-07-03"),
        ("7/3/2024", "en-GB", "2024-03-07"),
        ("7/3/2024", "fr", "2024-03-07"),
        ("13/3/2024", None, "2024-03-13"),  # a day above 12 decides
        ("March 2024", None, "2024-03"),
        ("2024", None, "2024"),
        ("3-5 March 2024", None, "2024-03-03/2024-03-05"),
    ],
)
async def test_when_subclaim_and_cutoff_read_the_claimed_date_alike(
    date: str, language: str | None, expected: str
) -> None:
    """The bug: "7/3/2024" was 2024-07-03 for ``when`` but 2024-03-07 for the cut-off, and
    "March 2024" gave no cut-off. Both now come from ``parse_date``."""
    case = _case(date, language)
    dates = await _when_dates(case)
    assert dates[0] == expected
    parsed = parse_date(date, language)
    assert parsed is not None
    assert _cutoff(case) == parsed.cutoff
    last = expected.split("/")[-1]
    assert _cutoff(case) == last


def test_precision_and_range() -> None:
    day, month, year = parse_date("7 March 2024"), parse_date("March 2024"), parse_date("2024")
    assert day is not None and month is not None and year is not None
    assert (day.precision, month.precision, year.precision) == (
        Precision.DAY,
        Precision.MONTH,
        Precision.YEAR,
    )
    for text in ("3-5 March 2024", "March 3-5, 2024", "3 March to 5 March 2024"):
        rng = parse_date(text)
        assert rng is not None and rng.precision is Precision.RANGE, text
        assert rng.iso == "2024-03-03/2024-03-05" and rng.cutoff == "2024-03-05"
    years = parse_date("between 2019 and 2021")
    assert years is not None and years.iso == "2019/2021"
    # a range survives the ISO round trip of ClaimFacts.dates and compares as an interval
    mention = from_iso("2024-03-03/2024-03-05")
    assert mention is not None and mention.precision is Precision.RANGE
    inside, after = from_iso("2024-03-04"), from_iso("2024-03-09")
    assert inside is not None and after is not None
    assert compare(mention, inside, 0)[0] is Agreement.AGREE
    assert compare(mention, after, 1) == (Agreement.DISAGREE, 4)
    backwards = parse_date("5 March 2024 to 3 March 2024")  # not a range: its first date
    assert backwards is not None and backwards.precision is Precision.DAY


def test_order_from_language_and_recorded_ambiguity() -> None:
    assert date_order(None) is None and date_order("en") is None and date_order("en-CA") is None
    assert date_order("en-US") is DateOrder.MONTH_FIRST
    assert date_order("en_GB") is DateOrder.DAY_FIRST and date_order("de") is DateOrder.DAY_FIRST
    undecided = parse_date("7/3/2024")
    assert undecided is not None and undecided.ambiguous
    assert undecided.alternative is not None and undecided.alternative.iso == "2024-03-07"
    assert "2024-07-03" in undecided.ambiguity() and "2024-03-07" in undecided.ambiguity()
    for text, language in (("7/3/2024", "en-US"), ("7/3/2024", "it"), ("13/3/2024", None)):
        decided = parse_date(text, language)
        assert decided is not None and not decided.ambiguous and decided.ambiguity() == ""
    same = parse_date("3/3/2024")
    assert same is not None and not same.ambiguous


def test_publication_dates_stay_day_first_and_relative_dates_are_not_read() -> None:
    assert iso_date("07/03/2024") == "2024-03-07"
    assert iso_date("Thu, 07 Mar 2024 12:00:00 GMT") == "2024-03-07"
    assert iso_date("20240307T120000Z") == "2024-03-07"
    assert iso_date("March 2024") == "2024-03"
    assert iso_date("not a date") is None
    assert parse_date("yesterday") is None  # would depend on today's date


def test_one_capture_check_and_one_tolerance() -> None:
    """SEMV's when rule and ReMMD's capture-date check agree on the same EXIF gap."""
    claimed, two_days_on = from_iso("2024-03-07"), from_iso("2024-03-09")
    assert claimed is not None and two_days_on is not None
    tol = Settings().offline.time_tolerance_days
    assert capture_agreement(claimed, two_days_on, tol) == (Agreement.AGREE, 2)
    assert capture_agreement(claimed, two_days_on, 1)[0] is Agreement.DISAGREE
    point = AtomicPoint(
        id="a1",
        text="photo: taken on 7 March 2024",
        query="photo taken on 7 March 2024",
        type=PointType.BINDING,
        role=PointRole.EVENT,
        central=True,
        centrality=1.0,
        facts=PointFacts(dates=("2024-03-07",)),
        sentence_index=0,
    )
    ev = _exif("2024-03-09T10:00:00")
    remmd = Settings().remmd
    default = compare_point(point, ev, 0.9, remmd)
    assert default is not None and default.status is PointStatus.SUPPORTED
    strict = compare_point(point, ev, 0.9, remmd, capture_tolerance_days=1)
    assert strict is not None and strict.status is PointStatus.CONTRADICTED


async def test_offline_when_rule_uses_the_same_tolerance() -> None:
    case = Case(id="case:d", claim="Floods in Lyon on 7 March 2024.", context=Context())
    for tol, stance in ((2, Stance.SUPPORT), (1, Stance.ATTACK)):
        settings = Settings().model_copy(
            update={"offline": Settings().offline.model_copy(update={"time_tolerance_days": tol})}
        )
        agents = OfflineAgents(settings)
        claims = await agents.decompose(DecomposeInput(case=case, evidence=()))
        out = await agents.argue(
            ArgueInput(
                case=case,
                subclaim=claims.subclaims[Dimension.WHEN.value],
                evidence=(_exif("2024-03-09T10:00:00"),),
                memory=MemoryView(subclaim="claim:when"),
            )
        )
        assert [d.stance for d in out.drafts] == [stance], tol


def test_ambiguous_claimed_date_is_an_uncertainty_item(tmp_path: Path) -> None:
    def codes(language: str | None) -> list[tuple[str, str]]:
        case = _case("7/3/2024", language).model_copy(update={"id": f"case:{language}"})
        result = verify(case, data_dir=tmp_path / str(language))
        return [(u.code, u.subject) for u in result.uncertainty]

    assert ("date-ambiguous", "claim:when") in codes(None)
    assert not any(code == "date-ambiguous" for code, _ in codes("en-GB"))


def _exif(capture_time: str, **data: Any) -> Evidence:
    return Evidence(
        id="ev:exif:asset:1",
        source="exiftool",
        source_type=SourceType.METADATA,
        modality=Modality.METADATA,
        content="EXIF summary",
        observation=Exif(capture_time=capture_time, **data),
        reliability=0.9,
        provenance=Provenance(producer=ProducerKind.TOOL, agent="exiftool"),
    )
