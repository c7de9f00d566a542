"""The wording errors a fact-checker met in the lyon-flood report, one
test each, and no machine path in what the report shows.

The unit tests pin each fix where it is made; the example run checks the written report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from semv import verify
from semv.model import Band, Dimension, SubclaimDecision, camera_name
from semv.nlp.entities import extract_facts
from semv.reasoning import deciding_dimensions
from semv.report import data_relative
from tests.paper_reasoning import aggregate, band

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"


def _decisions(**scores: float) -> list[SubclaimDecision]:
    return [
        SubclaimDecision(
            subclaim=f"claim:{name}",
            dimension=Dimension(name),
            score=score,
            band=band(score),
            support_total=0.0,
            attack_total=0.0,
        )
        for name, score in scores.items()
    ]


# ---- "where, when is refuted" -------------------------------------------------------------


def test_two_refuted_context_subclaims_are_a_plural_list() -> None:
    out = aggregate(_decisions(what=0.84, where=0.42, when=0.44, who=0.5))
    assert "where and when are refuted" in out.rule
    assert out.deciding == (Dimension.WHAT, Dimension.WHERE, Dimension.WHEN)


def test_one_refuted_context_subclaim_is_singular() -> None:
    out = aggregate(_decisions(what=0.84, where=0.2, when=0.5))
    assert "where is refuted while" in out.rule


def test_three_weakly_supported_subclaims_join_with_commas_and_and() -> None:
    out = aggregate(_decisions(what=0.6, where=0.62, when=0.65))
    assert out.rule_number == 4
    assert "what, where and when are weakly supported" in out.rule


def test_deciding_dimensions_follow_the_rule_that_fired() -> None:
    # A weakly refuted `who` with uncertain content is now rule 2, so the fourth
    # subclaim is a weakly refuted authenticity (rule 1 needs it refuted) instead.
    decided = _decisions(what=0.5, where=0.5, when=0.5, authenticity=0.4)
    out = aggregate(decided)
    assert out.rule_number == 5
    assert deciding_dimensions(5, decided) == (Dimension.WHAT, Dimension.WHERE, Dimension.WHEN)
    assert all(d.band is Band.UNCERTAIN for d in decided if d.dimension in out.deciding)


# ---- "Canon Canon EOS 80D" ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "model", "name"),
    [
        ("Canon", "Canon EOS 80D", "Canon EOS 80D"),
        ("NIKON CORPORATION", "NIKON D750", "NIKON D750"),
        ("Apple", "iPhone 12", "Apple iPhone 12"),
        (None, "EOS 80D", "EOS 80D"),
        ("Canon", None, "Canon"),
        (None, None, ""),
    ],
)
def test_a_camera_name_says_the_make_once(make: str | None, model: str | None, name: str) -> None:
    assert camera_name(make, model) == name


# ---- "The people shown include Seine" ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Flooding in Paris on 14 March 2024: the Seine has burst its banks near the quays.",
        "Days of heavy rain over northern France pushed the Seine above its banks in Paris.",
        "Tourists on a boat on Lake Como.",
    ],
)
def test_a_river_or_lake_is_not_who_is_shown(text: str) -> None:
    facts = extract_facts(text)
    names = [*facts.people, *facts.organizations]
    assert not any(word in name for name in names for word in ("Seine", "Lake", "Como"))


def test_an_organisation_after_the_stays_an_organisation() -> None:
    facts = extract_facts("The BBC filmed the flood in York.")
    assert "BBC" in facts.organizations


# ---- the example's written report -------------------------------------------------------


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data = tmp_path_factory.mktemp("wording") / "data"
    result = verify(EXAMPLE, data_dir=data)
    paths = {kind: Path(p) for kind, p in result.report_paths.items()}
    return {
        "data": data,
        "markdown": paths["markdown"].read_text(encoding="utf-8"),
        "html": paths["html"].read_text(encoding="utf-8"),
        "json": json.loads(paths["json"].read_text(encoding="utf-8")),
        "json_text": paths["json"].read_text(encoding="utf-8"),
    }


def test_the_example_report_has_none_of_the_reported_wording_errors(
    example: dict[str, Any],
) -> None:
    for text in (example["markdown"], example["html"]):
        assert "where, when is refuted" not in text
        # the fact-check of this image outranks the news report on `why` as well
        assert "here, when and why are refuted" in text
        assert "Canon Canon" not in text
        assert "include Seine" not in text
        assert "wins with rate" not in text


def test_the_unedited_example_photo_carries_no_forensic_review_item(
    example: dict[str, Any],
) -> None:
    media = example["json"]["case_summary"]["media"][0]
    assert "forensic-anomaly" not in [n["code"] for n in media["notes"]]


def test_a_held_back_forensic_finding_is_not_called_not_extracted(
    tmp_path: Path,
) -> None:
    from semv.config import ForensicsConfig, Settings

    flagged = Settings(forensics=ForensicsConfig(review_threshold=0.0))  # every image flagged
    result = verify(EXAMPLE, data_dir=tmp_path / "data", settings=flagged)
    report = json.loads(Path(result.report_paths["json"]).read_text(encoding="utf-8"))
    markdown = Path(result.report_paths["markdown"]).read_text(encoding="utf-8")
    media = report["case_summary"]["media"][0]
    assert [n["code"] for n in media["notes"]] == ["forensic-anomaly"]
    assert "Not extracted: `forensic-anomaly`" not in markdown
    assert "To review: `forensic-anomaly`" in markdown


def test_every_code_the_report_shows_is_in_its_glossary(example: dict[str, Any]) -> None:
    report = example["json"]
    shown = {item["code"] for item in report["summary"]["review"]}
    shown |= {report["final_status"]["label"]}
    shown |= {d["band"] for d in report["final_status"]["decisions"]}
    glossary = {entry["term"] for entry in report["glossary"]}
    assert shown <= glossary
    assert "## Glossary" in example["markdown"]
    assert '<section id="glossary">' in example["html"]


def test_the_report_names_no_machine_path(example: dict[str, Any]) -> None:
    for folder in (str(EXAMPLE), str(ROOT), str(example["data"])):
        for kind in ("markdown", "html", "json_text"):
            assert folder not in example[kind], (kind, folder)
    assert "Provenance: user: case folder lyon-flood" in example["markdown"]


@pytest.mark.parametrize(
    ("recorded", "shown"),
    [
        ("/srv/semv/data/artifacts/ab/ab12.png", "artifacts/ab/ab12.png"),
        ("/home/x/artifacts/old/artifacts/cd/cd34.png", "artifacts/cd/cd34.png"),
        ("/tmp/elsewhere/frame.png", "frame.png"),
    ],
)
def test_an_artifact_is_named_by_its_place_in_the_data_directory(recorded: str, shown: str) -> None:
    assert data_relative(recorded) == shown
