"""A generated video (ffmpeg + espeak-ng) through ``semv verify``: keyframes, transcript and
metadata become evidence, the report shows them with provenance, the agents use them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml
from typer.testing import CliRunner

from semv.cli import app
from tests.media_factory import caption_video, need, speech_wav

CLAIM = "Flood waters covered the main square of Lyon on 12 March 2024; 300 people were evacuated."


def _case(tmp_path: Path) -> Path:
    folder = tmp_path / "case"
    folder.mkdir()
    speech = speech_wav(
        tmp_path / "speech.wav",
        "Flood waters covered the main square this morning. 300 people were evacuated.",
    )
    raw = caption_video(tmp_path / "raw.mp4", caption="FLOOD IN LYON 12 MARCH 2024", speech=speech)
    need("ffmpeg")
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-i",
            str(raw),
            "-c",
            "copy",
            "-metadata",
            "creation_time=2024-03-12T08:30:00Z",
            str(folder / "clip.mp4"),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    spec = {"id": "generated-video", "claim": CLAIM, "media": [{"path": "clip.mp4"}]}
    (folder / "case.yaml").write_text(yaml.safe_dump(spec))
    return folder


def test_generated_video_end_to_end(tmp_path: Path) -> None:
    folder = _case(tmp_path)
    data_dir = tmp_path / "store"
    done = CliRunner().invoke(app, ["verify", str(folder), "--data-dir", str(data_dir)])
    assert done.exit_code == 0, done.output
    [report_dir] = (data_dir / "reports").iterdir()
    report = (report_dir / "report.md").read_text()
    result = json.loads((report_dir / "report.json").read_text())

    # keyframes: two scenes, one keyframe each, stored as artifacts the report names by their
    # place in the data directory, never by their absolute path on this machine
    assert "`ev:keyframes:asset:1` PySceneDetect" in report
    assert "Provenance: tool: PySceneDetect ContentDetector" in report
    artifacts = sorted((data_dir / "artifacts").rglob("*.png"))
    assert len(artifacts) == 2
    for png in artifacts:
        assert f"({png.relative_to(data_dir)} in the data directory)" in report
        assert str(png) not in report
    # transcript and burnt-in caption, with provenance
    assert "`ev:asr:asset:1` speech recognition" in report
    assert "Provenance: tool: faster-whisper" in report
    assert "FLOOD IN LYON 12 MARCH 2024" in report
    assert "`ev:ocr:asset:1:f1` OCR" in report
    # container and EXIF/QuickTime metadata
    assert "`ev:container:asset:1` ffprobe" in report
    assert "`ev:exif:asset:1` exiftool" in report
    assert "captured 2024-03-12T08:30:00+00:00" in report
    assert "`ev:describe:asset:1` describe (offline)" in report

    # the agents used them: QuickTime time supports 'when', the caption's and the speech's
    # number supports 'what', the caption's place supports 'where'
    text = json.dumps(result)
    assert "ev:exif:asset:1" in text
    cited = {
        evidence
        for section in ("where", "when", "other_evidence")
        for side in ("support", "attack")
        for argument in result[section][side]
        for evidence in [e["id"] for e in argument["evidence"]]
        if argument["verified"]
    }
    assert "ev:exif:asset:1" in cited
    assert any(e.startswith("ev:ocr:asset:1") for e in cited), cited
