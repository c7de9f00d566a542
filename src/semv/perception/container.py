"""Container and stream data of videos and audio via ffprobe (``ev:container:<asset>``).

Duration, format, streams (codec, size, frame rate, sample rate), and the container tags that
matter for verification: creation time, encoder (the software that wrote the file) and the
QuickTime location. A file ffprobe cannot read (a truncated MP4 without its ``moov`` atom) or
a missing ffprobe is an uncertainty item.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

from semv.model import (
    Asset,
    Container,
    Evidence,
    EvidenceKind,
    MediaEvidence,
    MediaKind,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    UncertaintyCode,
)
from semv.perception._toolcache import remembered
from semv.perception.extraction import ExtractContext, nothing, only
from semv.perception.integrity import STRUCTURAL_RELEVANCE

__all__ = ["ffmpeg_version", "ffprobe_version", "probe", "probe_file", "streams"]

_TIMEOUT_S: Final = 60.0
_TAGS: Final = {
    "creation_time": "creation_time",
    "encoder": "encoder",
    "com.apple.quicktime.location.iso6709": "location_iso6709",
    "location": "location_iso6709",
    "com.apple.quicktime.make": "make",
    "com.apple.quicktime.model": "model",
    "com.apple.quicktime.software": "software",
}


class ProbeFailed(Exception):
    """ffprobe is missing or could not read the file."""


@functools.cache
def _version(tool: str) -> str:
    """``<tool> <version>``, remembered by the program file's identity
    (``semv.perception._toolcache``)."""
    return remembered(tool, tool, lambda: _ask_version(tool))


def _ask_version(tool: str) -> str:
    exe = shutil.which(tool)
    if exe is None:
        return f"{tool} missing"
    try:
        done = subprocess.run(
            [exe, "-version"], capture_output=True, text=True, timeout=_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return f"{tool} missing"
    first = done.stdout.splitlines()[0] if done.stdout else ""
    parts = first.split()
    return f"{tool} {parts[2]}" if len(parts) > 2 else f"{tool} unknown"


def ffprobe_version() -> str:
    """``ffprobe <version>`` or ``ffprobe missing``."""
    return _version("ffprobe")


def ffmpeg_version() -> str:
    """``ffmpeg <version>`` or ``ffmpeg missing``."""
    return _version("ffmpeg")


def probe_file(path: Path) -> dict[str, Any]:
    """ffprobe's format and streams JSON for ``path``; ``ProbeFailed`` with its message."""
    exe = shutil.which("ffprobe")
    if exe is None:
        raise ProbeFailed("ffprobe not found")
    try:
        done = subprocess.run(
            [
                exe,
                "-v",
                "error",
                "-print_format",
                "json",
                "-show_format",
                "-show_streams",
                str(path),
            ],
            capture_output=True,
            text=True,
            timeout=_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise ProbeFailed(f"ffprobe timed out after {_TIMEOUT_S:.0f} s") from exc
    except OSError as exc:
        raise ProbeFailed(f"ffprobe cannot run: {exc}") from exc
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()
        raise ProbeFailed(message[-1] if message else f"ffprobe exited {done.returncode}")
    try:
        result: dict[str, Any] = json.loads(done.stdout or "{}")
    except json.JSONDecodeError as exc:
        raise ProbeFailed(f"ffprobe printed invalid JSON: {exc}") from exc
    if not result.get("streams"):
        raise ProbeFailed("no audio or video stream")
    return result


def streams(result: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The streams of ``kind`` (``video``/``audio``), cover art excluded."""
    out = []
    for stream in result.get("streams", []):
        if stream.get("codec_type") != kind:
            continue
        if kind == "video" and stream.get("disposition", {}).get("attached_pic"):
            continue
        out.append(stream)
    return out


def probe(asset: Asset, path: Path, context: ExtractContext) -> MediaEvidence:
    """ffprobe the asset (videos and audio only)."""
    if not context.usable or context.kind not in (MediaKind.VIDEO, MediaKind.AUDIO):
        return nothing(asset)
    version = ffprobe_version()
    try:
        result = probe_file(path)
    except ProbeFailed as exc:
        context.usable = False
        code = (
            UncertaintyCode.TOOL_MISSING
            if "not found" in str(exc)
            else UncertaintyCode.MEDIA_UNREADABLE
        )
        return nothing(asset, code, f"ffprobe: {path.name}: {exc}")
    context.probe = result
    data = _summary(result)
    evidence = Evidence(
        id=f"ev:container:{asset.id}",
        source="ffprobe",
        source_type=SourceType.METADATA,
        modality=Modality.METADATA,
        content=_text(data),
        observation=Container.model_validate(data),
        reliability=0.9,
        relevance=STRUCTURAL_RELEVANCE,
        location=context.location(asset),
        provenance=Provenance(
            producer=ProducerKind.TOOL,
            agent="ffprobe",
            tool_version=version.removeprefix("ffprobe "),
            method="-show_format -show_streams",
            derived_from=(asset.id,),
        ),
    )
    return only(asset, evidence)


def _summary(result: dict[str, Any]) -> dict[str, Any]:
    fmt = result.get("format", {})
    data: dict[str, Any] = {"kind": EvidenceKind.CONTAINER, "format": fmt.get("format_name")}
    duration = _float(fmt.get("duration"))
    if duration is not None:
        data["duration_s"] = round(duration, 3)
    video = streams(result, "video")
    audio = streams(result, "audio")
    data["video_streams"] = len(video)
    data["audio_streams"] = len(audio)
    if video:
        v = video[0]
        data["video_codec"] = v.get("codec_name")
        data["width"], data["height"] = v.get("width"), v.get("height")
        rate = _rate(v.get("avg_frame_rate")) or _rate(v.get("r_frame_rate"))
        if rate is not None:
            data["fps"] = round(rate, 3)
    if audio:
        a = audio[0]
        data["audio_codec"] = a.get("codec_name")
        data["sample_rate_hz"] = _int(a.get("sample_rate"))
        data["channels"] = a.get("channels")
    tags = {str(k).lower(): v for k, v in (fmt.get("tags") or {}).items()}
    for key, name in _TAGS.items():
        value = tags.get(key)
        if isinstance(value, str) and value.strip() and name not in data:
            data[name] = value.strip()
    return {k: v for k, v in data.items() if v is not None}


def _text(data: dict[str, Any]) -> str:
    parts = [f"Container {data.get('format', 'unknown')}"]
    if "duration_s" in data:
        parts.append(f"{data['duration_s']:.2f} s")
    if data.get("video_streams"):
        parts.append(
            f"video {data.get('video_codec')} {data.get('width')}×{data.get('height')}"
            + (f" at {data['fps']:g} fps" if "fps" in data else "")
        )
    else:
        parts.append("no video stream")
    if data.get("audio_streams"):
        parts.append(f"audio {data.get('audio_codec')} {data.get('sample_rate_hz')} Hz")
    else:
        parts.append("no audio stream")
    for key, label in (
        ("creation_time", "created"),
        ("encoder", "encoder"),
        ("software", "software"),
        ("location_iso6709", "location"),
    ):
        if key in data:
            parts.append(f"{label} {data[key]}")
    return "; ".join(parts) + "."


def _float(value: object) -> float | None:
    try:
        return float(str(value))
    except (TypeError, ValueError):
        return None


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def _rate(value: object) -> float | None:
    try:
        rate = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        return None
    return float(rate) if rate > 0 else None
