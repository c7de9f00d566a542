"""Dataset adapters on files of their real formats: MV2026, ReMMDBench, MMFakeBench, VERITE,
and the official COSMOS layouts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from semv.adapters import (
    REMMD_L2,
    REQUIRED_FIELDS,
    CosmosAdapter,
    LoadedCase,
    MmFakeBenchAdapter,
    Mv2026Adapter,
    RemmdAdapter,
    VeriteAdapter,
    detect_adapter,
    parse_mv_report,
)
from semv.errors import GoldAccessError, InputError
from semv.model import MediaKind, RunStatus, SourceType
from tests.conftest import ROOT, shared_data
from tests.mv2026_case import REPORT, make_mv2026_case

COMMITTED = RunStatus.COMMITTED


# ---- MV2026 ------------------------------------------------------------------------------


def test_mv2026_case_folder_in_the_official_layout(tmp_path: Path) -> None:
    folder = make_mv2026_case(tmp_path)
    (loaded,) = list(Mv2026Adapter().load(folder))
    case = loaded.case
    assert case.id == "lyon-flood" and case.adapter == "mv2026"
    assert case.claim.startswith("Flooding in Paris on 14 March 2024")
    assert case.context.date == "2024-03-14" and case.context.location == "Paris, France"
    assert case.context.source_url == "https://social.example.org/@riverwatch/posts/48213"
    assert [a.kind for a in case.media] == [MediaKind.IMAGE] and case.media[0].sha256
    assert {e.id for e in case.evidence} == {"input:title", "input:description"}
    assert loaded.gold is not None
    with pytest.raises(GoldAccessError):
        loaded.gold.reveal(RunStatus.RUNNING)
    assert loaded.gold.reveal(COMMITTED) == "false-context"
    details = loaded.gold.reveal_details(COMMITTED)
    assert details["event_time"] == "2019-06-01"
    assert details["publication_times"] == ["2024-03-14"]
    assert (
        "https://factcheck.example.org/2024/03/15/paris-flood-photo-is-lyon-2019"
        in (details["urls"])
    )
    assert all(details["fields"][f] for f in REQUIRED_FIELDS)  # the gold report is complete
    assert detect_adapter(tmp_path).name == "mv2026"


def test_mv2026_report_fields_missing_are_counted(tmp_path: Path) -> None:
    partial = REPORT.split("## Who")[0] + "**Final Verification Status:** False context\n"
    fields = parse_mv_report(partial).fields
    assert not fields["people-and-organisations"] and not fields["forensic-analysis"]
    assert fields["location"] and fields["event-time"] and fields["final-status"]


def _replace_with_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _replace_with_link(path: Path) -> None:
    path.unlink()
    path.symlink_to(ROOT / "README.md")  # a file outside the case folder


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda f: (f / "output" / "report.md").write_text("# r\n\nno status\n"), "Final Verif"),
        (
            lambda f: (f / "output" / "report.md").write_text("Final Verification Status: maybe"),
            "unknown final verification status 'maybe'",
        ),
        (
            lambda f: (f / "input" / "lyon-flood.json").write_text('{"Headline": "x"}'),
            "unknown field 'Headline'",
        ),
        (
            lambda f: _replace_with_folder(f / "input" / "lyon-flood.json"),
            "lyon-flood.json: cannot read: Is a directory",
        ),
        (
            lambda f: (f / "output" / "report.md").write_bytes(b"Final \xff"),
            "report.md: not UTF-8 text",
        ),
        # unreadable media is the media stage's business (an uncertainty item), not a refusal
        (lambda f: _replace_with_link(f / "input" / "media" / "photo.jpg"), "outside"),
    ],
)
def test_mv2026_bad_input_names_the_file(tmp_path: Path, edit: object, message: str) -> None:
    folder = make_mv2026_case(tmp_path)
    edit(folder)  # type: ignore[operator]
    with pytest.raises(InputError, match=message) as info:
        list(Mv2026Adapter().load(tmp_path))
    assert "lyon-flood" in str(info.value)


# ---- ReMMDBench --------------------------------------------------------------------------


def _remmd_sample(root: Path, sample_id: str, verdict: str, l2: list[str]) -> None:
    folder = root / sample_id
    folder.mkdir(parents=True)
    Image.new("RGB", (12, 12), (200, 10, 10)).save(folder / "01.png")
    (folder / "sample.json").write_text(
        json.dumps({"text": f"Article {sample_id}.", "images": ["01.png"], "language": "en"})
    )
    (folder / "annotation.json").write_text(
        json.dumps({"verdict": verdict, "distortion_taxonomy": l2, "rationale": "because"})
    )


def test_remmdbench_folder_layout(tmp_path: Path) -> None:
    _remmd_sample(tmp_path, "001", "Mixture", ["T3", "V2 Visual Editing"])
    _remmd_sample(tmp_path, "002", "True", [])
    loaded = list(RemmdAdapter().load(tmp_path))
    assert [c.case.id for c in loaded] == ["001", "002"]
    gold = loaded[0].gold
    assert gold is not None and gold.reveal(COMMITTED) == "Mixture"
    assert gold.reveal_details(COMMITTED)["l2"] == ["T3 Misleading Context", "V2 Visual Editing"]
    assert gold.reveal_rationale(COMMITTED) == "because"
    assert detect_adapter(tmp_path).name == "remmd"
    (tmp_path / "002" / "annotation.json").write_text(json.dumps({"verdict": "Half True"}))
    with pytest.raises(InputError, match=r"002.annotation\.json: verdict 'Half True'"):
        list(RemmdAdapter().load(tmp_path))


def test_remmd_showcase_export() -> None:
    path = shared_data("remmd-showcase")
    loaded = list(RemmdAdapter().load(path))
    assert len(loaded) == 15
    assert len({c.case.id for c in loaded}) == 15
    by_id = {c.case.id: c for c in loaded}
    # images present beside the export are loaded, the others are kept as not loaded
    assert all(a.loaded for a in by_id["304"].case.media) and len(by_id["304"].case.media) == 3
    assert sum(not a.loaded for c in loaded for a in c.case.media) > 0
    verdicts = Counter(c.gold.reveal(COMMITTED) for c in loaded if c.gold)
    assert verdicts == {"Mixture": 6, "Mostly False": 4, "False": 3, "Mostly True": 1, "True": 1}
    assert all(
        set(c.gold.reveal_details(COMMITTED)["l2"]) <= set(REMMD_L2) for c in loaded if c.gold
    )


# ---- MMFakeBench -------------------------------------------------------------------------


def _mmfakebench(root: Path) -> Path:
    (root / "source").mkdir(parents=True)
    for sub in ("real/coco", "fake/edit"):
        (root / sub).mkdir(parents=True)
    Image.new("RGB", (10, 10), (1, 2, 3)).save(root / "real/coco/1.jpg")
    Image.new("RGB", (10, 10), (3, 2, 1)).save(root / "fake/edit/2.jpg")
    records = [
        {
            "text": "A dog runs on the beach.",
            "image_path": "/real/coco/1.jpg",
            "gt_answers": "True",
            "fake_cls": "original",
            "text_source": "coco",
            "image_source": "coco",
        },
        {
            "text": "The president waves at the crowd.",
            "image_path": "/fake/edit/2.jpg",
            "gt_answers": "Fake",
            "fake_cls": "visual_veracity_distortion",
            "text_source": "gpt",
            "image_source": "photoshop",
        },
    ]
    file = root / "source" / "MMFakeBench_val.json"
    file.write_text(json.dumps(records))
    return file


def test_mmfakebench_records_and_label_maps(tmp_path: Path) -> None:
    file = _mmfakebench(tmp_path)
    loaded = list(MmFakeBenchAdapter().load(file))
    assert [c.case.id for c in loaded] == ["MMFakeBench_val:0", "MMFakeBench_val:1"]
    assert all(c.case.media[0].loaded for c in loaded)
    gold = [c.gold for c in loaded]
    assert [g.reveal(COMMITTED) for g in gold if g] == ["original", "visual_veracity_distortion"]
    assert [g.reveal_details(COMMITTED)["binary"] for g in gold if g] == ["real", "fake"]
    assert detect_adapter(file).name == "mmfakebench"
    rows = json.loads(file.read_text())
    rows[1]["gt_answers"] = "True"
    file.write_text(json.dumps(rows))
    with pytest.raises(InputError, match="record 1: gt_answers 'True' contradicts"):
        list(MmFakeBenchAdapter().load(file))
    file.write_bytes(b'[{"text": "caf\xe9"}]')
    with pytest.raises(InputError, match=r"MMFakeBench_val\.json: not UTF-8 text"):
        list(MmFakeBenchAdapter().load(file))
    file.write_text('[{"text": "x"},', encoding="utf-8")
    with pytest.raises(InputError, match=r"MMFakeBench_val\.json: invalid JSON at line 1"):
        list(MmFakeBenchAdapter().load(file))


# ---- VERITE ------------------------------------------------------------------------------


def test_verite_real_file_runs_text_only_without_images() -> None:
    file = shared_data("verite", "VERITE.csv")
    loaded = list(VeriteAdapter().load(file))
    assert len(loaded) == 1001
    labels = Counter(c.gold.reveal(COMMITTED) for c in loaded if c.gold)
    assert labels == {"true": 338, "miscaptioned": 338, "out-of-context": 325}
    first = loaded[0].case
    assert first.id == "VERITE:0" and not first.media[0].loaded  # images are not shipped
    assert detect_adapter(file).name == "verite"


def test_verite_loads_an_image_that_is_present_and_keeps_urls(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    Image.new("RGB", (8, 8)).save(tmp_path / "images" / "true_0.jpg")
    file = tmp_path / "VERITE.csv"
    file.write_text(
        ",caption,image_path,label\n"
        "0,A caption.,images/true_0.jpg,true\n"
        "1,Another caption.,https://media.example.org/x/false_0.jpg,out-of-context\n"
        "2,Third.,images/missing.jpg,miscaptioned\n"
    )
    loaded = list(VeriteAdapter().load(file))
    assert [c.case.media[0].loaded for c in loaded] == [True, False, False]
    assert loaded[1].case.media[0].path == "https://media.example.org/x/false_0.jpg"
    file.write_text(",caption,image_path,label\n0,A caption.,images/true_0.jpg,fake\n")
    with pytest.raises(InputError, match=r"VERITE\.csv: line 2: label 'fake'"):
        list(VeriteAdapter().load(file))


# ---- COSMOS official layouts -------------------------------------------------------------


def test_cosmos_official_folder_and_splits(tmp_path: Path) -> None:
    Image.new("RGB", (8, 8)).save(tmp_path / "1.jpg")
    val = {
        "img_local_path": "1.jpg",
        "articles": [
            {"caption": "Protesters march in Hong Kong.", "article_url": "https://n.example/1"},
            {"caption": "A crowd in Hong Kong on Sunday.", "article_url": "https://n.example/2"},
        ],
        "maskrcnn_bboxes": [],
    }
    test = {"img_local_path": "1.jpg", "caption1": "a", "caption2": "b", "context_label": 1}
    (tmp_path / "val_data.json").write_text(json.dumps(val) + "\n")
    (tmp_path / "test_data.json").write_text(json.dumps(test) + "\n")
    (default,) = list(CosmosAdapter().load(tmp_path))
    assert default.case.id == "test_data:1" and default.gold is not None
    (row,) = list(CosmosAdapter().load(tmp_path / "val_data.json"))
    assert row.case.claim == "Protesters march in Hong Kong." and row.gold is None
    assert [e.text for e in row.case.evidence] == ["A crowd in Hong Kong on Sunday."]
    assert row.case.evidence[0].source_type is SourceType.PRIOR_CAPTION
    assert row.case.evidence[0].publisher == "COSMOS article caption"
    assert row.case.context.source_url == "https://n.example/1"


def test_ookpik_float_labels_text_only() -> None:
    file = shared_data("ookpik-dev", "dev_data.json")
    loaded: list[LoadedCase] = list(CosmosAdapter().load(file, text_only=True))
    labels = Counter(c.gold.reveal(COMMITTED) for c in loaded if c.gold)
    assert sum(labels.values()) == len(loaded) == 145
    assert set(labels) == {"OOC", "NOOC"}
    assert not any(a.loaded for c in loaded for a in c.case.media)
