"""Scenes, keyframes and audio (Module B item 3): PySceneDetect goldens and generated videos."""

from __future__ import annotations

import hashlib
import json
import wave
from pathlib import Path

import pytest

from semv.config import MediaConfig, Settings
from semv.model import Asset, Evidence, Keyframes, MediaKind
from semv.perception.artifacts import ArtifactStore
from semv.perception.container import probe
from semv.perception.extraction import ExtractContext
from semv.perception.video import Scene, detect_scenes, keyframes, plan_keyframes
from semv.stages.media import extract_media
from tests.conftest import shared_data
from tests.media_factory import caption_video, need, speech_wav

GOLDEN_VIDEOS = ("testvideo.mp4", "goldeneye-vfr-drop3.mp4")


def _frames(item: Evidence) -> Keyframes:
    frames = item.observed(Keyframes)
    assert frames is not None
    return frames


def _asset(path: Path, kind: MediaKind = MediaKind.VIDEO) -> Asset:
    return Asset(id="asset:1", path=str(path), kind=kind)


def _context(tmp_path: Path, config: MediaConfig | None = None) -> ExtractContext:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return ExtractContext(
        config=config or MediaConfig(),
        artifacts=ArtifactStore(tmp_path / "artifacts"),
        workdir=work,
        kind=MediaKind.VIDEO,
    )


@pytest.mark.shared_data
@pytest.mark.parametrize("name", GOLDEN_VIDEOS)
def test_cuts_match_pyscenedetect_goldens(name: str) -> None:
    video = shared_data("scene-asr-media", "pyscenedetect", name)
    golden_file = shared_data(
        "scene-asr-media", "pyscenedetect", "goldens", f"{name}.ContentDetector.default.json"
    )
    golden = json.loads(golden_file.read_text())["cuts"]
    scenes, _, _ = detect_scenes(video, MediaConfig())
    cuts = [s.start_frame for s in scenes[1:]]
    assert len(cuts) == len(golden)
    assert all(abs(c - g) <= 1 for c, g in zip(cuts, golden, strict=True)), (cuts, golden)


@pytest.mark.shared_data
def test_keyframes_are_scene_midpoints(tmp_path: Path) -> None:
    video = shared_data("scene-asr-media", "pyscenedetect", "testvideo.mp4")
    asset = _asset(video)
    context = _context(tmp_path)
    probe(asset, video, context)
    out = keyframes(asset, video, context)
    scenes, _, _ = detect_scenes(video, MediaConfig())
    assert len(scenes) == 4  # golden cuts 30, 180, 394
    [item] = out.evidence
    assert item.id == "ev:keyframes:asset:1"
    assert _frames(item).cuts == (30, 180, 394)
    # the four scenes look different: none is dropped as a near-duplicate
    assert len(context.keyframes) == 4
    for frame, scene in zip(context.keyframes, scenes, strict=True):
        middle = (scene.start_frame + scene.end_frame) / 2
        assert abs(frame.frame - middle) <= 1, (frame, scene)
        assert frame.scene_start_s == pytest.approx(scene.start_s, abs=1e-3)
        assert frame.path.read_bytes() and frame.path.suffix == ".png"
        assert hashlib.sha256(frame.path.read_bytes()).hexdigest() == frame.sha256
        assert (frame.width, frame.height) == (1280, 720)
    assert item.provenance is not None and "ContentDetector" in item.provenance.agent


def test_plan_keeps_the_longest_scenes_up_to_k_f() -> None:
    scenes = [Scene(float(i), float(i) + 1 + (i % 3), i * 25, (i + 1) * 25) for i in range(12)]
    planned = plan_keyframes(scenes, 25.0, 40.0, 8)
    assert len(planned) == 8
    assert planned == sorted(planned, key=lambda s: s.start_s)
    kept_lengths = sorted(s.end_s - s.start_s for s in planned)
    dropped = [s for s in scenes if s not in planned]
    assert all(s.end_s - s.start_s <= kept_lengths[0] for s in dropped)


def test_plan_samples_uniformly_without_cuts() -> None:
    planned = plan_keyframes([], 25.0, 16.0, 8)
    assert [round(s.mid_s, 3) for s in planned] == [1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0]
    single = plan_keyframes([Scene(0.0, 8.0, 0, 200)], 25.0, 8.0, 4)
    assert [s.mid_s for s in single] == [1.0, 3.0, 5.0, 7.0]


def test_static_video_keeps_one_keyframe_after_phash_dedup(tmp_path: Path) -> None:
    clip = caption_video(tmp_path / "static.mp4", caption="STILL", scenes=("testsrc2",))
    # a single source still moves (testsrc2 animates); freeze it with one repeated frame
    frozen = tmp_path / "frozen.mp4"
    need("ffmpeg")
    import subprocess

    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-i",
            str(clip),
            "-vf",
            "select=eq(n\\,0),loop=200:1:0",
            "-frames:v",
            "150",
            "-r",
            "25",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            str(frozen),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    asset = _asset(frozen)
    context = _context(tmp_path)
    probe(asset, frozen, context)
    out = keyframes(asset, frozen, context)
    [item] = out.evidence
    assert _frames(item).cuts == ()
    assert len(context.keyframes) == 1
    assert _frames(item).dropped_duplicates == MediaConfig().max_keyframes - 1


def test_generated_video_keyframes_audio_and_burnt_in_caption(tmp_path: Path) -> None:
    speech = speech_wav(tmp_path / "s.wav", "The river flooded the old town this morning.")
    clip = caption_video(tmp_path / "clip.mp4", caption="FLOOD IN LYON 12 MARCH", speech=speech)
    asset = _asset(clip)
    media = extract_media(asset, Settings())
    ids = {e.id for e in media.evidence}
    assert {"ev:file:asset:1", "ev:container:asset:1", "ev:keyframes:asset:1"} <= ids
    frames = next(e for e in media.evidence if e.id == "ev:keyframes:asset:1")
    assert _frames(frames).cuts == (75,)  # two 3 s scenes at 25 fps
    assert [k.time_s for k in _frames(frames).keyframes] == [1.5, 4.5]
    # the caption is read from each keyframe, with the keyframe's time as location
    ocr = [e for e in media.evidence if e.id.startswith("ev:ocr:asset:1:f")]
    assert ocr, media.uncertainty
    for item in ocr:
        assert "FLOOD IN LYON 12 MARCH" in item.content
        assert item.location is not None and item.location.start_s in (1.5, 4.5)
        assert item.provenance is not None
        assert "ev:keyframes:asset:1" in item.provenance.derived_from
    speech_item = next(e for e in media.evidence if e.id == "ev:asr:asset:1")
    assert "flooded" in speech_item.content.lower()


def test_audio_track_is_16khz_mono(tmp_path: Path) -> None:
    speech = speech_wav(tmp_path / "s.wav", "Testing the audio track.")
    clip = caption_video(tmp_path / "clip.mp4", caption="AUDIO", speech=speech)
    asset = _asset(clip)
    context = _context(tmp_path)
    probe(asset, clip, context)
    keyframes(asset, clip, context)
    assert context.audio is not None
    with wave.open(str(context.audio)) as track:
        assert (track.getframerate(), track.getnchannels()) == (16000, 1)
        assert track.getnframes() > 16000
