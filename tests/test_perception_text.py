"""OCR (tesseract + RapidOCR, per-region choice) and speech (faster-whisper) on real inputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from semv.config import MediaConfig, Settings
from semv.model import Asset, MediaKind, OcrText, UncertaintyCode
from semv.perception.ocr import OcrLine, choose, language_of, read_image
from semv.perception.speech import transcribe_file
from semv.stages.media import extract_media
from tests.conftest import shared_data
from tests.media_factory import need, text_image

RENDERED = {
    "en": "The river flooded the old town",
    "fr": "La crue a inondé la vieille ville",
    "vi": "Lũ lụt đã tràn vào phố cổ",
    "ja": "川が旧市街を浸水させた",
    "zh": "河水淹没了老城区",
}


@pytest.mark.parametrize("language", sorted(RENDERED))
def test_ocr_reads_rendered_text_in_five_languages(tmp_path: Path, language: str) -> None:
    need("tesseract")
    from PIL import Image

    text = RENDERED[language]
    path = text_image(tmp_path / f"{language}.png", text)
    lines = read_image(Image.open(path), MediaConfig())
    read = "".join(line["text"] for line in lines)
    squeeze = "".join(text.split())
    assert "".join(read.split()) == squeeze, lines
    assert [line["language"] for line in lines] == [language]
    assert all(set(line["readings"]) <= {"tesseract", "rapidocr"} for line in lines)


def test_ocr_evidence_of_an_image_asset(tmp_path: Path) -> None:
    need("tesseract")
    path = text_image(tmp_path / "sign.png", "Evacuation centre 300 beds")
    media = extract_media(Asset(id="asset:1", path=str(path), kind=MediaKind.IMAGE), Settings())
    item = next(e for e in media.evidence if e.id == "ev:ocr:asset:1")
    assert item.content == "Evacuation centre 300 beds"
    text = item.observed(OcrText)
    assert text is not None and text.languages == ("en",)
    [line] = text.lines
    x, y, w, h = line.box
    assert 0 <= x < 200 and 0 <= y < 80 and w > 300 and h > 20
    assert item.provenance is not None and "tesseract" in (item.provenance.tool_version or "")


def _line(text: str, box: tuple[int, int, int, int], conf: float, engine: str) -> OcrLine:
    return OcrLine(text, box, conf, engine, language_of(text))


def test_choose_prefers_tesseract_unless_rapidocr_is_clearly_surer() -> None:
    document = _line("Sale ends 12 March", (10, 10, 300, 30), 0.91, "tesseract")
    fragments = [
        _line("Sale ends", (8, 6, 150, 40), 0.97, "rapidocr"),
        _line("12 March", (170, 6, 140, 40), 0.98, "rapidocr"),
    ]
    [(pick, _, r)] = choose([document], fragments)
    assert pick is document and r is not None and r.text == "Sale ends 12 March"
    garbled = _line("WH3N P1GS FLY", (10, 100, 300, 40), 0.41, "tesseract")
    meme = _line("WHEN PIGS FLY", (6, 96, 310, 50), 0.96, "rapidocr")
    scene_only = _line("EXIT", (500, 300, 60, 30), 0.9, "rapidocr")
    regions = choose([document, garbled], [*fragments, meme, scene_only])
    assert [p.text for p, _, _ in regions] == ["Sale ends 12 March", "WHEN PIGS FLY", "EXIT"]
    assert [p.engine for p, _, _ in regions] == ["tesseract", "rapidocr", "rapidocr"]


def test_language_of_script_and_letters() -> None:
    assert [language_of(t) for t in RENDERED.values()] == list(RENDERED)


@pytest.mark.shared_data
def test_jfk_transcript() -> None:
    audio = shared_data("scene-asr-media", "whisper", "jfk.flac")
    segments, info = transcribe_file(audio, MediaConfig())
    text = " ".join(s["text"] for s in segments).lower()
    for phrase in ("my fellow americans", "your country", "do for you"):
        assert phrase in text
    assert info["language"] == "en"
    assert segments[0]["start_s"] < 1.8 < segments[0]["end_s"]  # "Americans" at t = 1.8 s
    assert segments[-1]["end_s"] <= info["duration_s"] + 0.5


@pytest.mark.shared_data
def test_audio_asset_becomes_transcript_evidence() -> None:
    audio = shared_data("scene-asr-media", "whisper", "jfk.flac")
    media = extract_media(Asset(id="asset:2", path=str(audio), kind=MediaKind.AUDIO), Settings())
    item = next(e for e in media.evidence if e.id == "ev:asr:asset:2")
    assert "my fellow americans" in item.content.lower()
    assert item.location is not None and item.location.start_s == 0.0
    assert item.provenance is not None and item.provenance.agent == "faster-whisper"
    assert "VAD on" in item.provenance.method


def test_configured_model_path_that_holds_no_model_is_an_uncertainty(tmp_path: Path) -> None:
    from tests.media_factory import speech_wav

    audio = speech_wav(tmp_path / "s.wav", "hello there")
    settings = Settings(media=MediaConfig(whisper_model=str(tmp_path / "no-model")))
    media = extract_media(Asset(id="asset:1", path=str(audio), kind=MediaKind.AUDIO), settings)
    assert not any(e.id.startswith("ev:asr") for e in media.evidence)
    [item] = [u for u in media.uncertainty if u.code is UncertaintyCode.TOOL_MISSING]
    assert "no-model" in item.detail and "model.bin" in item.detail


def test_text_repeated_on_later_keyframes_is_one_observation(tmp_path: Path) -> None:
    need("tesseract")
    from semv.perception.artifacts import ArtifactStore
    from semv.perception.extraction import ExtractContext, Keyframe
    from semv.perception.ocr import read_text

    frame_png = text_image(tmp_path / "frame.png", "BREAKING NEWS")
    context = ExtractContext(
        config=MediaConfig(),
        artifacts=ArtifactStore(tmp_path / "a"),
        workdir=tmp_path,
        kind=MediaKind.VIDEO,
    )
    asset = Asset(id="asset:1", path=str(tmp_path / "clip.mp4"), kind=MediaKind.VIDEO)
    frames = [
        Keyframe(n, 25 * n, float(n), n - 0.5, n + 0.5, frame_png, "0" * 64, "0" * 16, 900, 130)
        for n in (1, 2)
    ]
    first = read_text(asset, frame_png, context.on_frame(frames[0]))
    second = read_text(asset, frame_png, context.on_frame(frames[1]))
    assert [e.id for e in first.evidence] == ["ev:ocr:asset:1:f1"]
    assert first.evidence[0].content == "BREAKING NEWS"
    assert first.evidence[0].location is not None and first.evidence[0].location.start_s == 1.0
    assert second.evidence == () and second.uncertainty == ()


@pytest.mark.parametrize(
    ("script", "want"),
    [
        (None, "tesseract missing"),
        (
            "#!/bin/sh\necho 'not a version banner'\n",
            "tesseract unknown (Invalid tesseract version",
        ),
        (
            "#!/bin/sh\necho 'cannot start: libleptonica missing' >&2\nexit 3\n",
            "tesseract unknown (",
        ),
    ],
)
def test_tesseract_version_tells_a_missing_program_from_one_that_gives_no_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str | None, want: str
) -> None:
    """Only an absent program is "missing"; one that runs but answers no version is "unknown"
    with what went wrong, never silently reported as missing."""
    import pytesseract

    from semv.perception.ocr import _tesseract_version

    program = tmp_path / "tesseract"
    if script is not None:
        program.write_text(script)
        program.chmod(0o755)
    monkeypatch.setattr(pytesseract.pytesseract, "tesseract_cmd", str(program))
    assert _tesseract_version().startswith(want)
