"""The generic case-folder adapter: schema, media checks, error messages, sealed gold."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from PIL import Image

from semv.adapters import GenericAdapter, LoadedCase, SealedGold
from semv.errors import GoldAccessError, InputError
from semv.model import Case, MediaKind, RunStatus, SourceType

CASE_YAML = """\
id: test-case
claim: Flooding in Paris on 14 March 2024.
media:
  - path: photo.jpg
  - path: clip.mp4
    role: context
context:
  date: 2024-03-14
  location: Paris, France
  source_url: https://social.example.org/posts/1
  language: en
evidence:
  - id: news-1
    url: https://news.example.org/a
    title: Seine rises
    publisher: Example News
    published: 2024-03-14
    text: The Seine rose in Paris.
    source_type: news
    reliability: 0.7
  - text: A second, minimal item.
"""


def _jpeg(path: Path, size: tuple[int, int] = (32, 24)) -> bytes:
    Image.new("RGB", size, (200, 120, 40)).save(path, "JPEG")
    return path.read_bytes()


def _case_folder(tmp_path: Path, text: str = CASE_YAML, name: str = "case.yaml") -> Path:
    folder = tmp_path / "cases" / "x"
    folder.mkdir(parents=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def _load(path: Path, **kwargs: bool) -> list[LoadedCase]:
    return list(GenericAdapter().load(path, **kwargs))


def _error(path: Path, **kwargs: bool) -> str:
    with pytest.raises(InputError) as info:
        _load(path, **kwargs)
    return str(info.value)


def test_loads_a_complete_case(tmp_path: Path) -> None:
    folder = _case_folder(tmp_path)
    photo = _jpeg(folder / "photo.jpg")
    (folder / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42 not really a video")
    [loaded] = _load(folder)
    case = loaded.case
    assert loaded.gold is None
    assert case.id == "test-case"
    assert case.adapter == "generic"
    assert case.claim == "Flooding in Paris on 14 March 2024."
    assert [a.id for a in case.media] == ["asset:1", "asset:2"]
    image, video = case.media
    assert image.kind is MediaKind.IMAGE and video.kind is MediaKind.VIDEO
    assert Path(image.path).is_absolute() and Path(image.path) == (folder / "photo.jpg").absolute()
    assert image.sha256 == hashlib.sha256(photo).hexdigest()
    assert image.loaded and video.loaded and video.role == "context"
    assert case.context.date == "2024-03-14"  # a YAML date stays the text the user wrote
    assert case.context.location == "Paris, France"
    assert case.context.source_url == "https://social.example.org/posts/1"
    first, second = case.evidence
    assert first.id == "news-1" and first.source_type is SourceType.NEWS
    assert first.published == "2024-03-14" and first.reliability == 0.7
    assert second.id is None and second.source_type is SourceType.SUPPLIED


def test_case_json_and_default_id(tmp_path: Path) -> None:
    document = {"claim": "A claim.", "media": [{"path": "a.png"}]}
    folder = _case_folder(tmp_path, json.dumps(document), name="case.json")
    Image.new("RGB", (8, 8)).save(folder / "a.png")
    [loaded] = _load(folder)
    assert loaded.case.id == "x"
    assert loaded.case.media[0].kind is MediaKind.IMAGE


def test_text_only_does_not_read_media(tmp_path: Path) -> None:
    folder = _case_folder(tmp_path)  # no media files at all
    [loaded] = _load(folder, text_only=True)
    assert all(not a.loaded and a.sha256 is None for a in loaded.case.media)
    assert loaded.case.media[0].path == str((folder / "photo.jpg").absolute())


def test_missing_media_file(tmp_path: Path) -> None:
    folder = _case_folder(tmp_path)
    message = _error(folder)
    assert message == f"{folder / 'case.yaml'}: media[0].path: file not found: photo.jpg"


def test_unreadable_media_loads_for_the_media_stage(tmp_path: Path) -> None:
    """Undecodable, truncated or empty media is the media stage's uncertainty, not an input
    error (tests/test_hostile_media.py): the case loads with the file's hash."""
    folder = _case_folder(tmp_path)
    data = _jpeg(folder / "photo.jpg", size=(400, 300))
    (folder / "photo.jpg").write_bytes(data[: len(data) // 2])
    (folder / "clip.mp4").write_bytes(b"")
    [loaded] = _load(folder)
    photo, clip = loaded.case.media
    assert photo.loaded and photo.sha256 == hashlib.sha256(data[: len(data) // 2]).hexdigest()
    assert clip.sha256 == hashlib.sha256(b"").hexdigest()


def test_unknown_media_type(tmp_path: Path) -> None:
    folder = _case_folder(tmp_path, "claim: c\nmedia:\n  - path: notes.docx\n")
    message = _error(folder, text_only=True)
    assert f"{folder / 'case.yaml'}: media[0].path: unknown media type .docx" in message


def test_malformed_yaml_names_the_line(tmp_path: Path) -> None:
    folder = _case_folder(tmp_path, "claim: ok\nmedia:\n  - path: [unclosed\n")
    message = _error(folder)
    assert message.startswith(f"{folder / 'case.yaml'}: invalid YAML at line ")


def test_malformed_json_names_the_line(tmp_path: Path) -> None:
    folder = _case_folder(tmp_path, '{\n  "claim": "x",\n  oops\n}', name="case.json")
    assert _error(folder) == f"{folder / 'case.json'}: invalid JSON at line 3: " + (
        "Expecting property name enclosed in double quotes"
    )


def test_missing_claim(tmp_path: Path) -> None:
    folder = _case_folder(tmp_path, "id: a\nmedia: []\n")
    assert _error(folder) == f"{folder / 'case.yaml'}: claim: field required"


def test_schema_problems_are_all_named(tmp_path: Path) -> None:
    text = "claim: '  '\ncolour: red\nevidence:\n  - text: t\n    source_type: rumour\n"
    message = _error(_case_folder(tmp_path, text))
    assert "claim: string should have at least 1 character" in message
    assert "colour: unknown field" in message
    assert "evidence[0].source_type: input should be 'supplied', 'prior-caption'" in message


def test_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    folder = _case_folder(tmp_path, "- a\n- b\n")
    assert "expected a mapping of fields at the top level, got list" in _error(folder)
    (folder / "case.yaml").write_text("", encoding="utf-8")
    assert "got empty document" in _error(folder)


def test_duplicate_evidence_ids(tmp_path: Path) -> None:
    text = "claim: c\nevidence:\n  - {id: a, text: one}\n  - {id: a, text: two}\n"
    assert "evidence[1].id: duplicate id 'a'" in _error(_case_folder(tmp_path, text))


def test_about_asset_must_exist(tmp_path: Path) -> None:
    text = "claim: c\nevidence:\n  - {text: one, about_asset: 'asset:3'}\n"
    assert "evidence[0].about_asset: no media item asset:3" in _error(_case_folder(tmp_path, text))


def test_two_case_files_are_ambiguous(tmp_path: Path) -> None:
    folder = _case_folder(tmp_path, "claim: c\n")
    (folder / "case.json").write_text('{"claim": "c"}', encoding="utf-8")
    assert "more than one of case.yaml, case.json" in _error(folder)


def test_folder_of_case_folders_in_name_order_with_limit(tmp_path: Path) -> None:
    for name in ("b", "a", "c"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "case.yaml").write_text(f"claim: claim {name}\n", encoding="utf-8")
    (tmp_path / "not-a-case").mkdir()
    assert [lc.case.id for lc in _load(tmp_path)] == ["a", "b", "c"]
    assert [lc.case.id for lc in GenericAdapter().load(tmp_path, limit=2)] == ["a", "b"]


def test_no_case_found(tmp_path: Path) -> None:
    assert "no case file found" in _error(tmp_path)
    assert "no such file or directory" in _error(tmp_path / "missing")


# ---- gold isolation ---------------------------------------------------------------------


def test_gold_is_sealed_until_commit(tmp_path: Path) -> None:
    folder = _case_folder(tmp_path, "claim: c\n")
    (folder / "gold.yaml").write_text(
        "label: manipulated-or-synthetic\nrationale: spliced\n", encoding="utf-8"
    )
    [loaded] = _load(folder)
    gold = loaded.gold
    assert isinstance(gold, SealedGold)
    for status in (RunStatus.RUNNING, RunStatus.FAILED):
        with pytest.raises(GoldAccessError):
            gold.reveal(status)
        with pytest.raises(GoldAccessError):
            gold.reveal_rationale(status)
    for text in (repr(gold), str(gold), repr(loaded)):
        assert "manipulated" not in text
    assert "manipulated" not in loaded.case.model_dump_json()
    assert gold.reveal(RunStatus.COMMITTED) == "manipulated-or-synthetic"
    assert gold.reveal_rationale(RunStatus.COMMITTED) == "spliced"


def test_case_model_has_no_gold_field() -> None:
    assert not {"gold", "label", "rationale"} & set(Case.model_fields)


def test_gold_label_must_be_an_internal_label(tmp_path: Path) -> None:
    folder = _case_folder(tmp_path, "claim: c\n")
    (folder / "gold.yaml").write_text("label: fake\n", encoding="utf-8")
    assert _error(folder).startswith(f"{folder / 'gold.yaml'}: label: input should be 'verified'")


def test_media_outside_the_case_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.jpg"
    outside.write_bytes(b"not even read")
    folder = tmp_path / "case"
    folder.mkdir()
    (folder / "case.yaml").write_text("id: x\nclaim: a claim\nmedia:\n  - path: ../secret.jpg\n")
    with pytest.raises(InputError, match=r"media\[0\]\.path: \.\./secret\.jpg is outside"):
        list(GenericAdapter().load(folder))
