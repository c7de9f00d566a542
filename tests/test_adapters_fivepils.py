"""The 5Pils-OOC adapter: caption as claim, web captions of the image as evidence that refers to
the media, the gold label and the fact-checker's findings sealed until commit."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from semv.adapters import FivePilsOocAdapter, detect_adapter
from semv.errors import GoldAccessError, InputError
from semv.model import RunStatus, SourceType
from tests.conftest import shared_data
from tests.test_eval_datasets import semv

_ROW = {
    "image_id": 7,
    "id": 14,
    "URL": "https://factcheck.example/verdict-slug",
    "caption": "Flooded street in Lyon, France, in June 2024.",
    "true_caption": "Flooded street in Porto Alegre, Brazil, in May 2024.",
    "evidence_captions": ["Inundação em Porto Alegre", " ", "Floods in southern Brazil"],
    "org": "afp",
    "date": "May 2024",
    "location": "Porto Alegre",
    "source": "Reuters",
    "image_URL": "https://img.example/photo.jpg",
}


def _write(tmp_path: Path, rows: object) -> Path:
    file = tmp_path / "dev.json"
    file.write_text(json.dumps(rows), encoding="utf-8")
    return file


def test_a_row_becomes_a_case_with_media_reference_evidence(tmp_path: Path) -> None:
    accurate = {**_ROW, "id": 15, "caption": _ROW["true_caption"]}
    file = _write(tmp_path, [_ROW, accurate])
    first, second = list(FivePilsOocAdapter().load(file))
    case = first.case
    assert case.id == "dev:14" and case.adapter == "5pils-ooc"
    assert case.claim == _ROW["caption"]
    assert case.context.source_url is None  # the fact-check's URL would leak the verdict
    (asset,) = case.media
    assert asset.path == "https://img.example/photo.jpg" and not asset.loaded
    assert [e.text for e in case.evidence] == [
        "Inundação em Porto Alegre",
        "Floods in southern Brazil",
    ]
    assert all(e.source_type is SourceType.WEB and e.about_asset == asset.id for e in case.evidence)
    assert first.gold is not None and second.gold is not None
    assert first.gold.reveal(RunStatus.COMMITTED) == "OOC"
    assert second.gold.reveal(RunStatus.COMMITTED) == "NOOC"
    assert first.gold.reveal_details(RunStatus.COMMITTED)["location"] == "Porto Alegre"
    with pytest.raises(GoldAccessError):
        first.gold.reveal_details(RunStatus.RUNNING)
    assert detect_adapter(file).name == "5pils-ooc"


@pytest.mark.parametrize(
    ("rows", "problem"),
    [
        ({"caption": "x"}, "JSON list"),
        ([{**_ROW, "caption": ""}], "row 0: caption is empty"),
        ([{**_ROW, "true_caption": None}], "row 0: true_caption missing"),
        ([{**_ROW, "evidence_captions": "a caption"}], "evidence_captions must be a list"),
        ([{**_ROW, "evidence_captions": [3]}], r"evidence_captions\[0\] must be a string"),
    ],
)
def test_bad_rows_name_the_file_and_the_problem(tmp_path: Path, rows: object, problem: str) -> None:
    file = _write(tmp_path, rows)
    with pytest.raises(InputError, match=problem) as caught:
        list(FivePilsOocAdapter().load(file))
    assert str(file) in str(caught.value)


def test_the_real_dev_file_loads_every_row_balanced() -> None:
    file = shared_data("5pils-ooc-dev", "dev.json")
    loaded = list(FivePilsOocAdapter().load(file))
    assert len(loaded) == 1048
    labels = Counter(lc.gold.reveal(RunStatus.COMMITTED) for lc in loaded if lc.gold)
    assert labels == {"OOC": 524, "NOOC": 524}
    assert len({lc.case.id for lc in loaded}) == 1048
    raw = json.loads(file.read_text(encoding="utf-8"))
    with_captions = sum(any(c.strip() for c in r["evidence_captions"]) for r in raw)
    assert sum(bool(lc.case.evidence) for lc in loaded) == with_captions


def test_semv_eval_5pils_ooc_clusters_the_two_captions_of_one_image(tmp_path: Path) -> None:
    accurate = {**_ROW, "id": 15, "caption": _ROW["true_caption"]}
    other = {**_ROW, "id": 16, "image_id": 8, "image_URL": "https://img.example/other.png"}
    file = _write(tmp_path, [_ROW, accurate, other])
    out = tmp_path / "out"
    code, stdout, err = semv(
        "eval",
        "5pils-ooc",
        str(file),
        "--out",
        str(out),
        "--json",
        "--data-dir",
        str(tmp_path / "s"),
    )
    assert code == 0, err
    metrics = json.loads(stdout)
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert records[0]["cluster"] == records[1]["cluster"] != records[2]["cluster"]
    assert metrics["n"] == 3 and metrics["positive"] == "OOC"
