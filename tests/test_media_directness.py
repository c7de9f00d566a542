"""Evidence about the media outweighs news about the event, end to end.

The cases are built by ``scripts/make_exif_cases.py`` from a real camera photo of
``../shared/data/exif-samples`` whose EXIF is rewritten by exiftool (GPS position, capture time,
camera, Software tag), with two true news reports that the claimed event happened. For each
case the label, the aggregation rule that decided it and the report's first "why" sentence
(the summary's reason) are checked: a photo whose own GPS or capture time contradicts the
claim is false context whatever the event reports say; the same photo with matching GPS and
time verifies (the positive control); absent, stripped, implausible or doubtful metadata does
not decide, and the sentence says what the media's evidence is.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

import semv
from semv.model import Result
from tests.conftest import shared_data

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_exif_cases", ROOT / "scripts" / "make_exif_cases.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


CASES = _script()


def verify(name: str, tmp_path: Path) -> tuple[Result, dict[str, object]]:
    if shutil.which("exiftool") is None:
        pytest.skip("exiftool not installed")
    photo = shared_data("exif-samples", "jpg", "gps", "DSCN0010.jpg")
    folder = CASES.build(CASES.BY_NAME[name], tmp_path / name, photo)
    result = semv.verify(folder, data_dir=tmp_path / "store")
    report = json.loads(Path(result.report_paths["json"]).read_text())
    summary = report["summary"]
    assert isinstance(summary, dict)
    return result, summary


def first_sentence(reason: str) -> str:
    """The reason up to its first sentence break (". " or the final stop)."""
    return reason.split(". ", 1)[0]


@pytest.mark.parametrize("name", [case.name for case in CASES.CASES])
def test_label_rule_and_first_sentence(name: str, tmp_path: Path) -> None:
    case = CASES.BY_NAME[name]
    result, summary = verify(name, tmp_path)
    assert result.label == case.expected
    assert summary["rule_number"] == case.rule
    deciding = {d["dimension"] for d in summary["deciding"]}  # type: ignore[union-attr]
    assert set(case.deciding) <= deciding
    sentence = first_sentence(str(summary["reason"]))
    for phrase in case.names:
        assert phrase in sentence, (phrase, sentence)


def test_metadata_contradiction_is_not_cancelled_by_event_reports(tmp_path: Path) -> None:
    """The news reports still argue for Berlin on 20 September 2019, as event reports (typed
    ``event``, their text says so); the EXIF attacks are typed ``media`` and decide."""
    result, _ = verify("gps-and-time-far", tmp_path)
    by_dim = {s.dimension: s for s in result.subclaims}
    for dim in ("where", "when"):
        sub = by_dim[dim]
        assert sub.decision in ("refuted", "weakly-refuted")
        news = [a for a in sub.arguments if any(e.startswith("ev:sup:news") for e in a.evidence)]
        exif = [a for a in sub.arguments if "ev:exif:asset:1" in a.evidence]
        assert news and all(a.stance.value == "sup" for a in news)
        assert all(a.directness is not None and a.directness.value == "event" for a in news)
        assert all("report of the event, not of this media" in a.text for a in news)
        assert [a.stance.value for a in exif] == ["att"]
        assert exif[0].directness is not None and exif[0].directness.value == "media"
    # `what` (the event content) is where event reports do count in full
    assert by_dim["what"].decision == "supported"


def test_directness_is_in_the_json_result(tmp_path: Path) -> None:
    result, _ = verify("consistent", tmp_path)
    payload = json.loads(result.model_dump_json())
    kinds = {
        a["directness"]
        for s in payload["subclaims"]
        for a in s["arguments"]
        if s["dimension"] in ("where", "when")
    }
    assert kinds == {"media", "event"}


def test_capture_after_publication_is_set_aside_in_an_argument(tmp_path: Path) -> None:
    result, _ = verify("after-publication", tmp_path)
    when = next(s for s in result.subclaims if s.dimension == "when")
    neutral = [a for a in when.arguments if "ev:exif:asset:1" in a.evidence]
    assert [a.stance.value for a in neutral] == ["neu"]
    assert "already published on 2019-09-19" in neutral[0].text
    assert not [a for a in when.arguments if a.stance.value == "att"]
