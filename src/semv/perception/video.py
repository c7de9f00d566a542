"""Video keyframes and audio track (SEMV §4.2, Table S4 K_f and pHash).

Scenes come from PySceneDetect's ContentDetector (PyAV backend: frame numbers follow the
stream's timestamps, as in PySceneDetect's own goldens). One keyframe is taken at each scene's
temporal midpoint; with more than K_f scenes the K_f longest are kept, and without any cut the
video is sampled uniformly at K_f points. Frames within pHash Hamming distance ≤ 4 of an
earlier keyframe are dropped as near-duplicates. Keyframes are stored as content-addressed PNG
artifacts, described by one evidence item ``ev:keyframes:<asset>``, and handed to the image
extractors. The audio track is extracted with ffmpeg to 16 kHz mono WAV for speech recognition.

PySceneDetect, PyAV, OpenCV and imagehash are imported on first use only.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from semv.config import MediaConfig
from semv.model import (
    Asset,
    Evidence,
    Keyframes,
    MediaEvidence,
    MediaKind,
    MediaLocation,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    UncertaintyCode,
)
from semv.model import Keyframe as KeyframeRow
from semv.perception.artifacts import ArtifactStore
from semv.perception.container import streams
from semv.perception.extraction import ExtractContext, Keyframe, nothing, only
from semv.perception.integrity import STRUCTURAL_RELEVANCE

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "Scene",
    "detect_scenes",
    "extract_audio",
    "keyframes",
    "keyframes_evidence_id",
    "plan_keyframes",
    "scenedetect_version",
]

_FFMPEG_TIMEOUT_S: Final = 600.0


@dataclass(frozen=True)
class Scene:
    """A shot: start and end (exclusive) in seconds and in frames."""

    start_s: float
    end_s: float
    start_frame: int
    end_frame: int

    @property
    def mid_s(self) -> float:
        """The temporal midpoint."""
        return (self.start_s + self.end_s) / 2


def keyframes_evidence_id(asset_id: str) -> str:
    """``ev:keyframes:<asset id>``."""
    return f"ev:keyframes:{asset_id}"


@functools.cache
def scenedetect_version() -> str:
    """``scenedetect <v>; av <v>`` from the installed distributions (nothing imported)."""
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for name in ("scenedetect", "av", "imagehash"):
        try:
            parts.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name} missing")
    return "; ".join(parts)


def detect_scenes(path: Path, config: MediaConfig) -> tuple[list[Scene], float, float]:
    """ContentDetector scenes of ``path``, with the frame rate and duration in seconds.

    An empty list means no cut was found.
    """
    from scenedetect import ContentDetector, SceneManager, open_video

    video = open_video(str(path), backend="pyav")
    manager = SceneManager()
    manager.add_detector(
        ContentDetector(threshold=config.scene_threshold, min_scene_len=config.min_scene_frames)
    )
    manager.detect_scenes(video)
    rate = float(video.frame_rate)
    duration = float(video.duration.seconds) if video.duration is not None else 0.0
    found = [
        Scene(
            start_s=float(start.seconds),
            end_s=float(end.seconds),
            start_frame=int(start.frame_num),
            end_frame=int(end.frame_num),
        )
        for start, end in manager.get_scene_list()
    ]
    return found, rate, duration


def plan_keyframes(
    scenes: list[Scene], rate: float, duration: float, max_keyframes: int
) -> list[Scene]:
    """The scenes whose midpoints become keyframes, in time order.

    With cuts: the ``max_keyframes`` longest scenes (ties: earlier first). Without: the video
    split uniformly into ``max_keyframes`` equal parts (near-duplicates are dropped later).
    """
    if len(scenes) > 1:
        longest = sorted(scenes, key=lambda s: (-(s.end_s - s.start_s), s.start_s))
        return sorted(longest[:max_keyframes], key=lambda s: s.start_s)
    end = scenes[0].end_s if scenes else duration
    start = scenes[0].start_s if scenes else 0.0
    if end <= start:
        return []
    step = (end - start) / max_keyframes
    return [
        Scene(
            start_s=start + i * step,
            end_s=start + (i + 1) * step,
            start_frame=round((start + i * step) * rate),
            end_frame=round((start + (i + 1) * step) * rate),
        )
        for i in range(max_keyframes)
    ]


def _grab(path: Path, times: list[float]) -> list[tuple[float, int, npt.NDArray[np.uint8]]]:
    """Decode the frame shown at each time (seconds): (time, frame number, RGB array)."""
    from scenedetect import open_video

    video = open_video(str(path), backend="pyav")
    out = []
    for t in times:
        video.seek(t)
        frame = video.read()
        if frame is False or frame is None:
            continue
        number = int(video.position.frame_num)
        out.append((t, number, frame[:, :, ::-1].copy()))  # BGR → RGB
    return out


def _store_frame(store: ArtifactStore, rgb: npt.NDArray[np.uint8]) -> tuple[str, Path, Any]:
    import io

    from PIL import Image

    image = Image.fromarray(rgb)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    digest, path = store.put(buffer.getvalue(), ".png")
    return digest, path, image


def keyframes(asset: Asset, path: Path, context: ExtractContext) -> MediaEvidence:
    """Scene detection, midpoint keyframes, pHash de-duplication, audio extraction."""
    if not context.usable or context.kind is not MediaKind.VIDEO or context.probe is None:
        return nothing(asset)
    parts: list[MediaEvidence] = []
    if streams(context.probe, "audio"):
        parts.append(_audio(asset, path, context))
    if not streams(context.probe, "video"):
        parts.append(
            nothing(
                asset,
                UncertaintyCode.EMPTY_OUTPUT,
                f"{path.name} has no video stream: no keyframes to analyse",
            )
        )
        return _merge_parts(asset, parts)
    try:
        import imagehash

        scenes, rate, duration = detect_scenes(path, context.config)
        planned = plan_keyframes(scenes, rate, duration, context.config.max_keyframes)
        frames = _grab(path, [s.mid_s for s in planned])
    except ImportError as exc:
        parts.append(
            nothing(asset, UncertaintyCode.TOOL_MISSING, f"keyframes: {exc.name} not installed")
        )
        return _merge_parts(asset, parts)
    except Exception as exc:  # PyAV/OpenCV raise many types on broken streams
        parts.append(
            nothing(
                asset,
                UncertaintyCode.MEDIA_UNREADABLE,
                f"keyframes: {path.name}: {type(exc).__name__}: {exc}",
            )
        )
        return _merge_parts(asset, parts)
    kept: list[Keyframe] = []
    hashes: list[Any] = []
    dropped = 0
    by_time = {round(s.mid_s, 6): s for s in planned}
    for t, number, rgb in frames:
        digest, stored, image = _store_frame(context.artifacts, rgb)
        phash = imagehash.phash(image)
        if any(phash - h <= context.config.phash_duplicate for h in hashes):
            dropped += 1
            continue
        scene = by_time.get(round(t, 6))
        hashes.append(phash)
        kept.append(
            Keyframe(
                number=len(kept) + 1,
                frame=number,
                time_s=round(t, 3),
                scene_start_s=round(scene.start_s if scene else t, 3),
                scene_end_s=round(scene.end_s if scene else t, 3),
                path=stored,
                sha256=digest,
                phash=str(phash),
                width=image.width,
                height=image.height,
            )
        )
    context.keyframes = kept
    if not kept:
        parts.append(
            nothing(asset, UncertaintyCode.EMPTY_OUTPUT, f"{path.name}: no frame could be decoded")
        )
        return _merge_parts(asset, parts)
    parts.append(only(asset, _evidence(asset, kept, scenes, dropped, duration, context)))
    return _merge_parts(asset, parts)


def _merge_parts(asset: Asset, parts: list[MediaEvidence]) -> MediaEvidence:
    return MediaEvidence(
        asset_id=asset.id,
        evidence=tuple(e for p in parts for e in p.evidence),
        uncertainty=tuple(u for p in parts for u in p.uncertainty),
    )


def _evidence(
    asset: Asset,
    kept: list[Keyframe],
    scenes: list[Scene],
    dropped: int,
    duration: float,
    context: ExtractContext,
) -> Evidence:
    cuts = [s.start_frame for s in scenes[1:]]
    how = (
        f"{len(scenes)} scenes (cuts at frames {', '.join(map(str, cuts))})"
        if cuts
        else "no scene cut; sampled uniformly"
    )
    lines = [
        f"{k.subject}: frame {k.frame}, scene {k.scene_start_s:.2f}–{k.scene_end_s:.2f} s, "
        f"{k.width}×{k.height}, pHash {k.phash}, saved as {k.path}"
        for k in kept
    ]
    content = (
        f"{len(kept)} keyframe(s) of a {duration:.2f} s video, {how}"
        + (f"; {dropped} near-duplicate frame(s) dropped" if dropped else "")
        + ". "
        + "; ".join(lines)
        + "."
    )
    return Evidence(
        id=keyframes_evidence_id(asset.id),
        source="PySceneDetect",
        source_type=SourceType.OTHER,
        modality=Modality.VIDEO,
        content=content,
        observation=Keyframes(
            cuts=tuple(cuts),
            duration_s=round(duration, 3),
            dropped_duplicates=dropped,
            keyframes=tuple(
                KeyframeRow(
                    number=k.number,
                    frame=k.frame,
                    time_s=k.time_s,
                    scene_start_s=k.scene_start_s,
                    scene_end_s=k.scene_end_s,
                    phash=k.phash,
                    sha256=k.sha256,
                    artifact=str(k.path),
                    width=k.width,
                    height=k.height,
                )
                for k in kept
            ),
        ),
        reliability=0.9,
        relevance=STRUCTURAL_RELEVANCE,
        location=MediaLocation(asset_id=asset.id, start_s=0.0, end_s=round(duration, 3)),
        provenance=Provenance(
            producer=ProducerKind.TOOL,
            agent="PySceneDetect ContentDetector",
            tool_version=scenedetect_version(),
            method=(
                f"ContentDetector(threshold={context.config.scene_threshold:g}, "
                f"min_scene_len={context.config.min_scene_frames}); keyframe at each scene "
                f"midpoint, at most K_f={context.config.max_keyframes}; pHash distance "
                f"≤ {context.config.phash_duplicate} dropped"
            ),
            derived_from=(asset.id,),
        ),
    )


def extract_audio(path: Path, target: Path, rate_hz: int) -> None:
    """ffmpeg: the first audio stream of ``path`` as ``rate_hz`` mono 16-bit WAV."""
    exe = shutil.which("ffmpeg")
    if exe is None:
        raise FileNotFoundError("ffmpeg not found")
    done = subprocess.run(
        [
            exe,
            "-nostdin",
            "-v",
            "error",
            "-y",
            "-i",
            str(path),
            "-vn",
            "-map",
            "0:a:0",
            "-ac",
            "1",
            "-ar",
            str(rate_hz),
            "-c:a",
            "pcm_s16le",
            str(target),
        ],
        capture_output=True,
        text=True,
        timeout=_FFMPEG_TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0 or not target.is_file() or target.stat().st_size <= 44:
        lines = done.stderr.strip().splitlines()
        raise OSError(lines[-1] if lines else f"ffmpeg exited {done.returncode}")


def _audio(asset: Asset, path: Path, context: ExtractContext) -> MediaEvidence:
    target = context.workdir / f"{asset.id.replace(':', '-')}-audio.wav"
    try:
        extract_audio(path, target, context.config.audio_rate_hz)
    except (OSError, subprocess.SubprocessError) as exc:
        code = (
            UncertaintyCode.TOOL_MISSING
            if "not found" in str(exc)
            else UncertaintyCode.MEDIA_UNREADABLE
        )
        return nothing(asset, code, f"audio track of {path.name}: {exc}")
    context.audio = target
    return nothing(asset)
