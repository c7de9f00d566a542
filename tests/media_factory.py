"""Media generated for tests with real tools: ffmpeg videos, espeak-ng speech, rendered text."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

CJK_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
CAPTION_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


def need(*tools: str) -> None:
    """Skip unless every tool is on PATH."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (system-packages.txt)")


def need_font(font: Path) -> Path:
    if not font.is_file():
        pytest.skip(f"needs font {font} (system-packages.txt)")
    return font


def run(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=120)


def speech_wav(path: Path, text: str) -> Path:
    """``text`` spoken by espeak-ng."""
    need("espeak-ng")
    run("espeak-ng", "-w", str(path), text)
    return path


def caption_video(
    path: Path,
    *,
    caption: str,
    speech: Path | None = None,
    scenes: tuple[str, ...] = ("testsrc2", "smptebars"),
    seconds: float = 3.0,
) -> Path:
    """An H.264 MP4 made of lavfi sources (one scene each, hard cuts between them), a caption
    burnt in with drawtext, and optionally an AAC audio track."""
    need("ffmpeg")
    font = need_font(CAPTION_FONT)
    args = ["ffmpeg", "-v", "error", "-y"]
    for source in scenes:
        args += ["-f", "lavfi", "-i", f"{source}=size=640x360:rate=25:duration={seconds}"]
    if speech is not None:
        args += ["-i", str(speech)]
    inputs = "".join(f"[{i}:v]" for i in range(len(scenes)))
    text = caption.replace(":", r"\:").replace("'", "")
    graph = (
        f"{inputs}concat=n={len(scenes)}:v=1:a=0,"
        f"drawtext=fontfile={font}:text='{text}':fontsize=36:fontcolor=white:box=1:"
        "boxcolor=black@0.8:boxborderw=12:x=(w-text_w)/2:y=h-90[v]"
    )
    args += ["-filter_complex", graph, "-map", "[v]"]
    if speech is not None:
        args += ["-map", f"{len(scenes)}:a", "-c:a", "aac", "-af", "apad", "-shortest"]
    args += ["-c:v", "libx264", "-pix_fmt", "yuv420p", str(path)]
    run(*args)
    return path


def audio_only_mp4(path: Path, speech: Path) -> Path:
    """An MP4 container with an AAC track and no video stream."""
    need("ffmpeg")
    run("ffmpeg", "-v", "error", "-y", "-i", str(speech), "-c:a", "aac", str(path))
    return path


def text_image(path: Path, text: str, *, size: tuple[int, int] = (900, 130)) -> Path:
    """Black text on white, rendered with Noto Sans CJK (covers Latin, Vietnamese, CJK)."""
    font = ImageFont.truetype(str(need_font(CJK_FONT)), 44)
    image = Image.new("RGB", size, "white")
    ImageDraw.Draw(image).text((20, 30), text, fill="black", font=font)
    image.save(path)
    return path


def png_bomb(path: Path, width: int = 40_000, height: int = 40_000) -> Path:
    """A tiny PNG whose header declares ``width``×``height`` pixels (a decompression bomb)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1-bit greyscale
    row = b"\x00" + b"\x00" * ((width + 7) // 8)
    body = zlib.compress(row * 64)  # only the first rows: the header alone must be refused
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")
    )
    return path
