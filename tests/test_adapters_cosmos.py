"""The COSMOS adapter on synthetic rows and on the real COSMOS / OOKPIK samples."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from semv.adapters import CosmosAdapter, LoadedCase
from semv.errors import InputError
from semv.model import CosmosLabel, MediaKind, RunStatus, SourceType

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _shared(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path} (only dev machines and CI have ../shared)")
    return path


def _row(n: int, **overrides: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "img_local_path": f"images/{n}.jpg",
        "caption1": f"Caption one of row {n}.",
        "caption2": f"Caption two of row {n}.",
        "context_label": n % 2,
        "article_url": f"https://news.example.org/{n}",
        "maskrcnn_bboxes": [[1.5, 2.5, 30.25, 40.75]],
        "caption1_modified": "PERSON_MARKER at GPE",
        "caption1_entities": [["Someone", "PERSON"]],
        "caption2_modified": "PERSON_MARKER2",
        "caption2_entities": [],
        "bert_base_score": "0.5769946",
        "bert_large_score": "0.60118324",
    }
    row.update(overrides)
    return row


def _write(tmp_path: Path, rows: list[Any], *, images: bool = True) -> Path:
    file = tmp_path / "dev_data.json"
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if images:
        (tmp_path / "images").mkdir(exist_ok=True)
        for n in range(1, 6):
            Image.new("RGB", (16, 16), (n * 40, 10, 10)).save(tmp_path / "images" / f"{n}.jpg")
    return file


def _load(path: Path, **kwargs: Any) -> list[LoadedCase]:
    return list(CosmosAdapter().load(path, **kwargs))


def _error(path: Path, **kwargs: Any) -> str:
    with pytest.raises(InputError) as info:
        _load(path, **kwargs)
    return str(info.value)


def test_row_becomes_a_case(tmp_path: Path) -> None:
    file = _write(tmp_path, [_row(1), _row(2)])
    first, second = _load(file)
    case = first.case
    assert case.id == "dev_data:1" and second.case.id == "dev_data:2"
    assert case.adapter == "cosmos"
    assert case.claim == "Caption one of row 1."
    [asset] = case.media
    assert asset.id == "asset:1" and asset.kind is MediaKind.IMAGE and asset.loaded
    assert Path(asset.path) == (tmp_path / "images" / "1.jpg").absolute()
    assert asset.sha256 is not None
    [prior] = case.evidence
    assert prior.text == "Caption two of row 1."
    assert prior.source_type is SourceType.PRIOR_CAPTION
    assert prior.publisher == "COSMOS caption2"
    assert prior.about_asset == "asset:1"
    assert case.context.source_url == "https://news.example.org/1"


def test_dataset_features_never_enter_the_case(tmp_path: Path) -> None:
    [loaded] = _load(_write(tmp_path, [_row(1)]))
    dumped = loaded.case.model_dump_json()
    for marker in ("PERSON_MARKER", "0.5769946", "0.60118324", "30.25", "Someone", "bert"):
        assert marker not in dumped


def test_labels_are_sealed_and_mapped(tmp_path: Path) -> None:
    rows = [_row(1), _row(2), _row(3, context_label=1.0), _row(4, context_label=0.0)]
    loaded = _load(_write(tmp_path, rows))
    for item in loaded:
        assert item.gold is not None
        assert "OOC" not in repr(item.gold)
    labels = [item.gold.reveal(RunStatus.COMMITTED) for item in loaded if item.gold]
    assert labels == ["OOC", "NOOC", "OOC", "NOOC"]
    assert set(labels) <= {label.value for label in CosmosLabel}


def test_unlabelled_row_has_no_gold(tmp_path: Path) -> None:
    row = _row(1)
    del row["context_label"]
    [loaded] = _load(_write(tmp_path, [row]))
    assert loaded.gold is None


def test_article_url_only_when_it_is_a_url(tmp_path: Path) -> None:
    rows = [_row(1, article_url="FactCheck | The bridge photo is real"), _row(2, article_url="")]
    assert [lc.case.context.source_url for lc in _load(_write(tmp_path, rows))] == [None, None]


def test_json_array_and_blank_lines(tmp_path: Path) -> None:
    file = _write(tmp_path, [_row(1)])
    file.write_text(json.dumps([_row(1), _row(2)], indent=2), encoding="utf-8")
    assert [lc.case.id for lc in _load(file)] == ["dev_data:1", "dev_data:2"]
    file.write_text(json.dumps(_row(1)) + "\n\n" + json.dumps(_row(3)) + "\n", encoding="utf-8")
    assert [lc.case.id for lc in _load(file)] == ["dev_data:1", "dev_data:3"]


def test_limit_stops_before_reading_further_rows(tmp_path: Path) -> None:
    file = _write(tmp_path, [_row(1), _row(2), "not json"])
    assert list(CosmosAdapter().load(file, limit=0)) == []
    assert [lc.case.id for lc in CosmosAdapter().load(file, limit=2)] == [
        "dev_data:1",
        "dev_data:2",
    ]


def test_invalid_json_line(tmp_path: Path) -> None:
    file = _write(tmp_path, [_row(1), '{"caption1": "x",'])
    assert _error(file).startswith(f"{file}: line 2: invalid JSON: ")


def test_missing_caption(tmp_path: Path) -> None:
    row = _row(3)
    del row["caption1"]
    file = _write(tmp_path, [_row(1), _row(2), row])
    assert _error(file) == f"{file}: line 3: caption1 missing"


def test_bad_values(tmp_path: Path) -> None:
    assert _error(_write(tmp_path, [_row(1), [1, 2]])).endswith(
        "line 2: expected a JSON object, got list"
    )
    assert _error(_write(tmp_path, [_row(1, caption2=7)])).endswith(
        "line 1: caption2 must be a string, got int"
    )
    assert _error(_write(tmp_path, [_row(1, context_label=2)])).endswith(
        "line 1: context_label must be 0 or 1, got 2"
    )
    assert _error(_write(tmp_path, [_row(1, context_label=True)])).endswith(
        "line 1: context_label must be 0 or 1, got True"
    )


def test_missing_image_names_path_and_line(tmp_path: Path) -> None:
    file = _write(tmp_path, [_row(1), _row(9)])
    assert _error(file) == f"{file}: line 2: image images/9.jpg: file not found: images/9.jpg"


def test_unreadable_image_loads_for_the_media_stage(tmp_path: Path) -> None:
    file = _write(tmp_path, [_row(1)])
    (tmp_path / "images" / "1.jpg").write_bytes(b"garbage" * 50)
    [loaded] = _load(file)
    assert loaded.case.media[0].loaded and loaded.case.media[0].sha256 is not None


def test_text_only_needs_no_images(tmp_path: Path) -> None:
    file = _write(tmp_path, [_row(9)], images=False)
    [loaded] = _load(file, text_only=True)
    assert not loaded.case.media[0].loaded and loaded.case.media[0].sha256 is None


# ---- real data ----------------------------------------------------------------------------


@pytest.mark.shared_data
def test_cosmos_public_sample_with_images() -> None:
    file = _shared("cosmos-public", "test_data.json")
    loaded = _load(file)
    assert len(loaded) == 21
    assert [lc.case.id for lc in loaded] == [f"test_data:{n}" for n in range(1, 22)]
    for item in loaded:
        [asset] = item.case.media
        assert asset.loaded and asset.sha256 is not None and Path(asset.path).is_file()
        assert item.case.evidence[0].source_type is SourceType.PRIOR_CAPTION
    labels = Counter(lc.gold.reveal(RunStatus.COMMITTED) for lc in loaded if lc.gold)
    assert labels == {"NOOC": 15, "OOC": 6}
    first = loaded[0].case
    assert first.claim.startswith("Julian Castro at his announcement in San Antonio")
    assert first.evidence[0].text.endswith("on Saturday, Jan. 12, 2019.")
    assert first.context.source_url is not None
    assert first.context.source_url.startswith("https://www.nytimes.com/2019/06/13/")


@pytest.mark.shared_data
def test_ookpik_dev_text_only() -> None:
    file = _shared("ookpik-dev", "dev_data.json")
    loaded = _load(file, text_only=True)
    assert len(loaded) == 145
    assert all(not lc.case.media[0].loaded for lc in loaded)
    labels = Counter(lc.gold.reveal(RunStatus.COMMITTED) for lc in loaded if lc.gold)
    assert labels == {"OOC": 107, "NOOC": 38}
    # OOKPIK puts article titles where COSMOS has URLs: those never become a source URL
    assert all(
        lc.case.context.source_url is None or lc.case.context.source_url.startswith("http")
        for lc in loaded
    )
    assert loaded[0].case.context.source_url is None  # an article title, not a URL


@pytest.mark.shared_data
def test_ookpik_dev_without_images_is_an_input_error() -> None:
    file = _shared("ookpik-dev", "dev_data.json")
    message = _error(file)
    assert message.startswith(f"{file}: line 1: image img/PolitiFact_12.png: file not found")
