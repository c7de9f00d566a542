"""File integrity: SHA-256, content type vs extension, and whether the media can be decoded.

The first extractor of every asset. It yields ``ev:file:<asset>`` (SHA-256, size, the type the
bytes say) and decides for the extractors after it whether the file is usable: a zero-byte
file, a truncated or undecodable image, a decompression bomb (more pixels than Pillow's limit,
refused before decoding) and a 1×1 image are uncertainty items, never evidence; a file whose
content contradicts its extension (a PNG named ``.jpg``) is analysed as what it is, with an
uncertainty item saying so.
"""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path
from typing import Final

import PIL
from PIL import Image, UnidentifiedImageError

from semv.model import (
    Asset,
    Evidence,
    FileIntegrity,
    MediaEvidence,
    MediaKind,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.perception.extraction import ExtractContext, nothing, only, uncertain

__all__ = ["STRUCTURAL_RELEVANCE", "check_file", "file_evidence_id", "sniff"]

STRUCTURAL_RELEVANCE: Final = 0.1
"""Prior q_e of items that describe the file rather than the event (hash, container, frames):
they stay in the pool for the report and the authenticity checks without displacing texts."""

_CHUNK: Final = 1 << 20

_SIGNATURES: Final[tuple[tuple[int, bytes, str, MediaKind], ...]] = (
    (0, b"\xff\xd8\xff", "JPEG", MediaKind.IMAGE),
    (0, b"\x89PNG\r\n\x1a\n", "PNG", MediaKind.IMAGE),
    (0, b"GIF87a", "GIF", MediaKind.IMAGE),
    (0, b"GIF89a", "GIF", MediaKind.IMAGE),
    (0, b"BM", "BMP", MediaKind.IMAGE),
    (0, b"II*\x00", "TIFF", MediaKind.IMAGE),
    (0, b"MM\x00*", "TIFF", MediaKind.IMAGE),
    (8, b"WEBP", "WEBP", MediaKind.IMAGE),
    (4, b"ftyp", "ISO media (MP4/MOV)", MediaKind.VIDEO),
    (0, b"\x1a\x45\xdf\xa3", "Matroska/WebM", MediaKind.VIDEO),
    (8, b"AVI ", "AVI", MediaKind.VIDEO),
    (0, b"\x00\x00\x01\xba", "MPEG-PS", MediaKind.VIDEO),
    (0, b"fLaC", "FLAC", MediaKind.AUDIO),
    (8, b"WAVE", "WAV", MediaKind.AUDIO),
    (0, b"OggS", "Ogg", MediaKind.AUDIO),
    (0, b"ID3", "MP3", MediaKind.AUDIO),
    (0, b"\xff\xfb", "MP3", MediaKind.AUDIO),
    (0, b"\xff\xfa", "MP3", MediaKind.AUDIO),
    (0, b"\xff\xf3", "MP3", MediaKind.AUDIO),
    (0, b"\xff\xf2", "MP3", MediaKind.AUDIO),
    (0, b"\xff\xe3", "MP3", MediaKind.AUDIO),
    (0, b"\xff\xf1", "AAC (ADTS)", MediaKind.AUDIO),
    (0, b"\xff\xf9", "AAC (ADTS)", MediaKind.AUDIO),
)
"""Magic bytes (offset, bytes) → format name and kind. ISO media (``ftyp``) may hold audio
only (``.m4a``); ffprobe decides that later."""


_EXPECTED: Final[dict[str, str]] = {
    **dict.fromkeys((".jpg", ".jpeg"), "JPEG"),
    ".png": "PNG",
    ".gif": "GIF",
    ".bmp": "BMP",
    **dict.fromkeys((".tif", ".tiff"), "TIFF"),
    ".webp": "WEBP",
    **dict.fromkeys((".mp4", ".mov", ".m4v", ".3gp", ".m4a"), "ISO media (MP4/MOV)"),
    **dict.fromkeys((".mkv", ".webm"), "Matroska/WebM"),
    ".avi": "AVI",
    ".flac": "FLAC",
    ".wav": "WAV",
    **dict.fromkeys((".ogg", ".opus"), "Ogg"),
    ".mp3": "MP3",
    ".aac": "AAC (ADTS)",
}
"""The format each extension promises (extensions without one fixed format are not checked)."""


def file_evidence_id(asset_id: str) -> str:
    """``ev:file:<asset id>``."""
    return f"ev:file:{asset_id}"


def sniff(head: bytes) -> tuple[str, MediaKind] | None:
    """The format and kind the first bytes of a file announce, or None when unknown."""
    for offset, magic, name, kind in _SIGNATURES:
        if head[offset : offset + len(magic)] == magic:
            return name, kind
    return None


def check_file(asset: Asset, path: Path, context: ExtractContext) -> MediaEvidence:
    """Hash the file, compare its content type with its kind, and test that it decodes."""
    context.kind = asset.kind
    if not asset.loaded:
        context.usable = False
        return nothing(asset, UncertaintyCode.MEDIA_NOT_LOADED, "media not loaded (text-only)")
    try:
        size = path.stat().st_size
        digest, head = _hash(path)
    except OSError as exc:
        context.usable = False
        return nothing(asset, UncertaintyCode.MEDIA_UNREADABLE, f"{path.name}: {exc.strerror}")
    problems: list[UncertaintyItem] = []
    if size == 0:
        context.usable = False
        return nothing(asset, UncertaintyCode.MEDIA_UNREADABLE, f"{path.name} is empty (0 bytes)")
    if asset.sha256 is not None and asset.sha256 != digest:
        problems.append(
            uncertain(
                asset,
                UncertaintyCode.MEDIA_REFUSED,
                f"{path.name} changed after the case was loaded (SHA-256 {digest[:12]}… is not "
                f"{asset.sha256[:12]}…)",
            )
        )
        context.usable = False
    found = sniff(head)
    data = FileIntegrity(sha256=digest, size_bytes=size)
    if found is None:
        problems.append(
            uncertain(
                asset,
                UncertaintyCode.MEDIA_TYPE_MISMATCH,
                f"{path.name}: the content is no known image, video or audio format",
            )
        )
    else:
        name, kind = found
        data = data.model_copy(update={"format": name})
        declared = asset.kind
        other_kind = kind is not declared and not (
            kind is MediaKind.VIDEO and declared is MediaKind.AUDIO
        )
        expected = _EXPECTED.get(path.suffix.lower())
        if other_kind or (expected is not None and expected != name):
            detail = (
                f"{path.name} is named as {declared.value} ({path.suffix}) but its content "
                f"is {name} ({kind.value})"
            )
            if other_kind:
                detail += f"; analysed as {kind.value}"
                context.kind = kind
            problems.append(uncertain(asset, UncertaintyCode.MEDIA_TYPE_MISMATCH, detail))
    if context.usable and context.kind is MediaKind.IMAGE:
        problems.extend(_check_image(asset, path, context))
    if context.image_size is not None:
        width, height = context.image_size
        data = data.model_copy(update={"width": width, "height": height})
    summary = f"File {path.name}: {size:,} bytes, SHA-256 {digest}"
    if data.format is not None:
        summary += f", content {data.format}"
    if context.image_size is not None:
        summary += f", {context.image_size[0]}×{context.image_size[1]} pixels"
    evidence = Evidence(
        id=file_evidence_id(asset.id),
        source="semv integrity",
        source_type=SourceType.METADATA,
        modality=Modality.METADATA,
        content=summary + ".",
        observation=data,
        reliability=1.0,
        relevance=STRUCTURAL_RELEVANCE,
        location=context.location(asset),
        provenance=Provenance(
            producer=ProducerKind.TOOL,
            agent="semv integrity",
            tool_version=f"hashlib sha256; Pillow {PIL.__version__}",
            method="SHA-256 of the bytes; magic-byte sniffing; Pillow decode test",
            derived_from=(asset.id,),
        ),
    )
    return only(asset, evidence, uncertainty=problems)


def _hash(path: Path) -> tuple[str, bytes]:
    digest = hashlib.sha256()
    head = b""
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            if not head:
                head = chunk[:64]
            digest.update(chunk)
    return digest.hexdigest(), head


def _check_image(asset: Asset, path: Path, context: ExtractContext) -> list[UncertaintyItem]:
    limit = context.config.max_pixels
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as image:
                width, height = image.size
                if width * height > limit:
                    raise Image.DecompressionBombError(
                        f"{width}×{height} = {width * height:,} pixels, more than the "
                        f"{limit:,}-pixel limit"
                    )
                image.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        context.usable = False
        return [
            uncertain(
                asset,
                UncertaintyCode.MEDIA_REFUSED,
                f"{path.name}: {exc} (possible decompression bomb); not decoded",
            )
        ]
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        context.usable = False
        return [uncertain(asset, UncertaintyCode.MEDIA_UNREADABLE, f"{path.name}: {exc}")]
    context.image_size = (width, height)
    side = context.config.min_side_px
    if min(width, height) < side:
        context.usable = False
        return [
            uncertain(
                asset,
                UncertaintyCode.MEDIA_TOO_SMALL,
                f"{path.name} is {width}×{height} pixels: too small to analyse (< {side} px)",
            )
        ]
    return []
