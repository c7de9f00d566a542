"""The bundled example told in French, Spanish, German and Portuguese keeps its English
verdict: the photo's EXIF (Lyon, June 2019) and the fact-check that quotes the claim and
rates it false refute the claimed place and date, whatever the language of the texts."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "lyon-flood"
TRANSLATIONS = ROOT / "tests" / "data" / "multilingual" / "lyon_flood_translations.yaml"


def _translated_case(language: str, folder: Path) -> Path:
    text: dict[str, Any] = yaml.safe_load(TRANSLATIONS.read_text("utf-8"))[language]
    case = yaml.safe_load((EXAMPLE / "case.yaml").read_text("utf-8"))
    case["id"] = f"lyon-flood-{language}"
    case["claim"] = text["claim"]
    case["context"]["location"] = text["location"]
    case["context"]["language"] = language
    news, factcheck = case["evidence"]
    assert news["source_type"] == "news" and factcheck["source_type"] == "fact-check"
    news.update(title=text["news_title"], text=text["news"])
    factcheck.update(title=text["factcheck_title"], text=text["factcheck"])
    folder.mkdir()
    shutil.copy(EXAMPLE / "photo.jpg", folder / "photo.jpg")
    (folder / "case.yaml").write_text(yaml.safe_dump(case, allow_unicode=True), "utf-8")
    return folder


@pytest.fixture(scope="module")
def english(tmp_path_factory: pytest.TempPathFactory) -> Any:
    import semv

    return semv.verify(EXAMPLE, data_dir=tmp_path_factory.mktemp("en") / "data")


@pytest.mark.parametrize("language", ["fr", "es", "de", "pt"])
def test_the_example_in_another_language_keeps_its_verdict(
    language: str, english: Any, tmp_path: Path
) -> None:
    import semv

    folder = _translated_case(language, tmp_path / f"case-{language}")
    result = semv.verify(folder, data_dir=tmp_path / "data")
    assert english.label == "false-context"
    assert result.label == english.label
    scores = {s.dimension: s.score for s in result.subclaims}
    # the place and the date are refuted, as in English (EXIF: Lyon, 1 June 2019)
    assert scores["where"] < 0.5 and scores["when"] < 0.5, scores
    where = next(s for s in result.subclaims if s.dimension == "where")
    assert "Paris, France" in where.statement
    # the fact-check quotes the claim and rates it false: it never argues for the claim
    fact_check = [
        a
        for s in result.subclaims
        for a in s.arguments
        if any("factcheck-lyon-2019" in e for e in a.evidence)
    ]
    assert fact_check and all(a.stance.value != "sup" for a in fact_check), fact_check
