"""Media extraction benchmarks (Module B): per-extractor time per image, keyframe extraction
relative to ffmpeg decode-only time, and the ASR real-time factor. Prints tables.

Part of ``make bench`` (``benchmarks/run.py``); alone: ``python benchmarks/media.py``. Models
are loaded once before timing (warm numbers); every figure is a median over repeats.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from semv.config import MediaConfig
from semv.model import Asset, MediaKind

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"

console = Console(width=120)  # wide enough for the tables when piped


def _median(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _images(tmp: Path) -> list[Path]:
    from PIL import Image, ImageDraw, ImageFont

    found = [
        DATA / "exif-samples" / "jpg" / "gps" / "DSCN0010.jpg",
        DATA / "metadata-extractor-images" / "jpg" / "Apple iPhone 4.jpg",
    ]
    images = [p for p in found if p.is_file()]
    sign = tmp / "rendered-text.png"
    image = Image.new("RGB", (900, 130), "white")
    font_file = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
    font = ImageFont.truetype(str(font_file), 44) if font_file.is_file() else None
    ImageDraw.Draw(image).text((20, 30), "Evacuation centre: 300 beds", fill="black", font=font)
    image.save(sign)
    return [*images, sign]


def bench_images(repeats: int) -> None:
    """Milliseconds per image for each image extractor (and each OCR engine alone)."""
    from semv.perception import ocr

    config = MediaConfig()
    table = Table(title=f"Per-image extractor time, ms (median of {repeats})")
    for col in (
        "image",
        "pixels",
        "integrity",
        "metadata",
        "pHash",
        "visual",
        "tesseract",
        "RapidOCR",
        "OCR (both)",
    ):
        table.add_column(col, justify="left" if col == "image" else "right")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        images = _images(tmp)
        ocr._rapid()  # load the ONNX models before timing
        for path in images:
            table.add_row(*_image_row(path, tmp, config, repeats))
    console.print(table)


def _image_row(path: Path, tmp: Path, config: MediaConfig, repeats: int) -> list[str]:
    import imagehash
    from PIL import Image

    from semv.perception import integrity, metadata, ocr, visual
    from semv.perception.artifacts import ArtifactStore
    from semv.perception.extraction import ExtractContext

    asset = Asset(id="asset:1", path=str(path), kind=MediaKind.IMAGE)

    def context() -> ExtractContext:
        return ExtractContext(
            config=config, artifacts=ArtifactStore(tmp / "a"), workdir=tmp, kind=MediaKind.IMAGE
        )

    with Image.open(path) as opened:
        opened.load()
        image = opened.copy()
    langs = ocr._tesseract_langs(ocr._rapid_lines(image), config)
    metadata.read_metadata(asset)  # start the exiftool session
    cells = [
        _median(lambda: integrity.check_file(asset, path, context()), repeats),
        _median(lambda: metadata.read_metadata(asset), repeats),
        _median(lambda: imagehash.phash(Image.open(path)), repeats),
        _median(lambda: visual.scene_features(path), repeats),
        _median(lambda: ocr._tesseract_lines(image, langs), repeats),
        _median(lambda: ocr._rapid_lines(image), repeats),
        _median(lambda: ocr.read_image(image, config), repeats),
    ]
    return [path.name, f"{image.width}×{image.height}", *(f"{1000 * c:.0f}" for c in cells)]


def _clip(tmp: Path) -> Path | None:
    video = DATA / "scene-asr-media" / "pyscenedetect" / "testvideo.mp4"
    if video.is_file():
        return video
    if shutil.which("ffmpeg") is None:
        return None
    clip = tmp / "clip.mp4"
    subprocess.run(
        [
            "ffmpeg",
            "-v",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=1280x720:rate=25:duration=20",
            "-c:v",
            "libx264",
            str(clip),
        ],
        check=True,
        capture_output=True,
    )
    return clip


def bench_keyframes(repeats: int) -> None:
    """Scene detection + keyframes + pHash, relative to ffmpeg decoding the same clip."""
    from semv.perception.artifacts import ArtifactStore
    from semv.perception.container import probe
    from semv.perception.extraction import ExtractContext
    from semv.perception.video import keyframes

    table = Table(title=f"Keyframe extraction vs ffmpeg decode-only (median of {repeats})")
    for col in ("clip", "duration s", "keyframes", "extract s", "ffmpeg decode s", "ratio"):
        table.add_column(col, justify="left" if col == "clip" else "right")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        clip = _clip(tmp)
        if clip is None:
            console.print("[yellow]keyframes: no clip (needs ffmpeg or ../shared/data)[/]")
            return
        asset = Asset(id="asset:1", path=str(clip), kind=MediaKind.VIDEO)
        found: list[int] = []

        def extract() -> None:
            ctx = ExtractContext(
                config=MediaConfig(),
                artifacts=ArtifactStore(tmp / "a"),
                workdir=tmp,
                kind=MediaKind.VIDEO,
            )
            probe(asset, clip, ctx)
            keyframes(asset, clip, ctx)
            found.append(len(ctx.keyframes))

        def decode() -> None:
            subprocess.run(
                [
                    "ffmpeg",
                    "-v",
                    "error",
                    "-nostdin",
                    "-threads",
                    "1",
                    "-i",
                    str(clip),
                    "-an",
                    "-f",
                    "null",
                    "-",
                ],
                check=True,
                capture_output=True,
            )

        extract_s = _median(extract, repeats)
        decode_s = _median(decode, repeats)
        ctx = ExtractContext(
            config=MediaConfig(),
            artifacts=ArtifactStore(tmp / "a"),
            workdir=tmp,
            kind=MediaKind.VIDEO,
        )
        probe(asset, clip, ctx)
        duration = float((ctx.probe or {}).get("format", {}).get("duration", 0.0))
        table.add_row(
            clip.name,
            f"{duration:.1f}",
            str(found[-1]),
            f"{extract_s:.2f}",
            f"{decode_s:.2f}",
            f"{extract_s / decode_s:.1f}×",
        )
    console.print(table)


def bench_asr(repeats: int) -> None:
    """Real-time factor (transcription time / audio duration) of the bundled tiny.en."""
    from semv.perception.speech import transcribe_file

    table = Table(title=f"ASR real-time factor, faster-whisper tiny.en (median of {repeats})")
    for col in ("audio", "duration s", "transcribe s", "RTF"):
        table.add_column(col, justify="left" if col == "audio" else "right")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        clips = [DATA / "scene-asr-media" / "whisper" / "jfk.flac"]
        if shutil.which("espeak-ng"):
            speech = tmp / "espeak.wav"
            subprocess.run(
                [
                    "espeak-ng",
                    "-w",
                    str(speech),
                    "Flood waters covered the main square this morning. Three hundred people "
                    "were evacuated by the fire brigade before noon.",
                ],
                check=True,
                capture_output=True,
            )
            clips.append(speech)
        config = MediaConfig()
        for clip in (c for c in clips if c.is_file()):
            _, info = transcribe_file(clip, config)  # warm: model loaded
            secs = _median(lambda clip=clip: transcribe_file(clip, config), repeats)  # type: ignore[misc]
            duration = float(info["duration_s"])
            table.add_row(clip.name, f"{duration:.1f}", f"{secs:.2f}", f"{secs / duration:.3f}")
    console.print(table)


def bench_media(repeats: int) -> None:
    """All media tables."""
    bench_images(repeats)
    bench_keyframes(max(1, repeats // 2))
    bench_asr(repeats)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    bench_media(args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
