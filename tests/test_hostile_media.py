"""Hostile media never crashes a run: each case is an uncertainty item and a report line."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
import yaml
from PIL import Image

import semv
from semv.adapters import GenericAdapter
from semv.config import Settings
from semv.errors import InputError
from semv.model import Asset, MediaKind, UncertaintyCode
from semv.stages.media import extract_media
from tests.media_factory import audio_only_mp4, caption_video, png_bomb, speech_wav


def _jpeg_bytes(size: tuple[int, int] = (320, 240)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (90, 120, 200)).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def _media(path: Path, kind: MediaKind) -> tuple[set[str], dict[UncertaintyCode, str]]:
    out = extract_media(Asset(id="asset:1", path=str(path), kind=kind), Settings())
    return {e.id for e in out.evidence}, {u.code: u.detail for u in out.uncertainty}


def test_zero_byte_file(tmp_path: Path) -> None:
    (tmp_path / "empty.jpg").write_bytes(b"")
    ids, notes = _media(tmp_path / "empty.jpg", MediaKind.IMAGE)
    assert ids == set()
    assert "empty.jpg is empty (0 bytes)" in notes[UncertaintyCode.MEDIA_UNREADABLE]


def test_truncated_jpeg(tmp_path: Path) -> None:
    data = _jpeg_bytes()
    (tmp_path / "cut.jpg").write_bytes(data[: len(data) // 2])
    ids, notes = _media(tmp_path / "cut.jpg", MediaKind.IMAGE)
    assert "truncated" in notes[UncertaintyCode.MEDIA_UNREADABLE]
    assert ids <= {"ev:file:asset:1", "ev:exif:asset:1"}  # the hash, never content analysis


def test_truncated_mp4(tmp_path: Path) -> None:
    clip = caption_video(tmp_path / "clip.mp4", caption="CUT")
    data = clip.read_bytes()
    (tmp_path / "cut.mp4").write_bytes(data[: len(data) // 3])
    ids, notes = _media(tmp_path / "cut.mp4", MediaKind.VIDEO)
    assert "ev:keyframes:asset:1" not in ids
    assert UncertaintyCode.MEDIA_UNREADABLE in notes
    assert "cut.mp4" in notes[UncertaintyCode.MEDIA_UNREADABLE]


def test_wrong_extension_is_analysed_as_what_it_is(tmp_path: Path) -> None:
    png = io.BytesIO()
    Image.new("RGB", (200, 100), "white").save(png, format="PNG")
    (tmp_path / "photo.mp4").write_bytes(png.getvalue())
    ids, notes = _media(tmp_path / "photo.mp4", MediaKind.VIDEO)
    detail = notes[UncertaintyCode.MEDIA_TYPE_MISMATCH]
    assert "named as video (.mp4) but its content is PNG (image)" in detail
    assert "ev:visual:asset:1" in ids  # analysed as an image


def test_decompression_bomb_is_refused_before_decoding(tmp_path: Path) -> None:
    bomb = png_bomb(tmp_path / "bomb.png")
    assert Image.MAX_IMAGE_PIXELS is not None  # Pillow's own limit is kept
    ids, notes = _media(bomb, MediaKind.IMAGE)
    detail = notes[UncertaintyCode.MEDIA_REFUSED]
    assert detail.startswith("bomb.png: ") and "decompression bomb" in detail
    assert "1600000000 pixels" in detail or "1,600,000,000 pixels" in detail
    assert ids == {"ev:file:asset:1"}


def test_one_pixel_image(tmp_path: Path) -> None:
    Image.new("RGB", (1, 1), "red").save(tmp_path / "dot.png")
    ids, notes = _media(tmp_path / "dot.png", MediaKind.IMAGE)
    assert "1×1 pixels: too small to analyse" in notes[UncertaintyCode.MEDIA_TOO_SMALL]
    assert ids == {"ev:file:asset:1"}


def test_video_without_video_stream(tmp_path: Path) -> None:
    speech = speech_wav(tmp_path / "s.wav", "There is no picture in this file.")
    clip = audio_only_mp4(tmp_path / "voice.mp4", speech)
    ids, notes = _media(clip, MediaKind.VIDEO)
    assert "voice.mp4 has no video stream" in notes[UncertaintyCode.EMPTY_OUTPUT]
    assert "ev:keyframes:asset:1" not in ids
    assert "ev:asr:asset:1" in ids  # the speech is still transcribed


def test_symlink_out_of_the_case_folder_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.jpg"
    secret.write_bytes(_jpeg_bytes())
    folder = tmp_path / "case"
    folder.mkdir()
    (folder / "photo.jpg").symlink_to(secret)
    (folder / "case.yaml").write_text(
        yaml.safe_dump({"claim": "A photo.", "media": [{"path": "photo.jpg"}]})
    )
    with pytest.raises(InputError, match="outside the case folder"):
        list(GenericAdapter().load(folder))


def test_a_case_of_hostile_files_runs_and_reports_each(tmp_path: Path) -> None:
    folder = tmp_path / "case"
    folder.mkdir()
    data = _jpeg_bytes()
    (folder / "empty.mp4").write_bytes(b"")
    (folder / "cut.jpg").write_bytes(data[: len(data) // 2])
    png_bomb(folder / "bomb.png")
    Image.new("RGB", (1, 1), "red").save(folder / "dot.png")
    shutil.copy(folder / "dot.png", folder / "renamed.jpg")
    (folder / "renamed.jpg").write_bytes(_png_of_size((64, 64)))
    spec = {
        "id": "hostile",
        "claim": "Flooding in Lyon on 12 March 2024.",
        "media": [
            {"path": name}
            for name in ("empty.mp4", "cut.jpg", "bomb.png", "dot.png", "renamed.jpg")
        ],
    }
    (folder / "case.yaml").write_text(yaml.safe_dump(spec))
    result = semv.verify(folder, data_dir=tmp_path / "store")
    report = Path(result.report_paths["markdown"]).read_text()
    for line in (
        "empty.mp4 is empty (0 bytes)",
        "cut.jpg: image file is truncated",
        "possible decompression bomb",
        "dot.png is 1×1 pixels: too small to analyse",
        "renamed.jpg is named as image (.jpg) but its content is PNG",
    ):
        assert line in report, line


def _png_of_size(size: tuple[int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "white").save(buffer, format="PNG")
    return buffer.getvalue()


def test_every_accepted_extension_has_a_signature(tmp_path: Path) -> None:
    """Real files of each kind ffmpeg can write are recognised (no false mismatch)."""
    from semv.adapters._media import MEDIA_EXTENSIONS
    from semv.perception.integrity import sniff
    from tests.media_factory import need, run

    need("ffmpeg")
    speech = speech_wav(tmp_path / "s.wav", "one two")
    for suffix in (".mp3", ".flac", ".ogg", ".m4a", ".aac", ".wav", ".opus"):
        out = tmp_path / f"a{suffix}"
        run("ffmpeg", "-v", "error", "-y", "-i", str(speech), str(out))
        found = sniff(out.read_bytes()[:64])
        assert found is not None, suffix
        # ISO media (.m4a) is sniffed as the MP4 family; ffprobe then finds it holds audio only
        expected = MediaKind.VIDEO if suffix == ".m4a" else MEDIA_EXTENSIONS[suffix]
        assert found[1] is expected, (suffix, found)
