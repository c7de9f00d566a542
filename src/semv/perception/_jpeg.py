"""JPEG structure: quantization tables, estimated quality, encoder and editing-software traces.

The quality estimate compares the file's quantization tables with the IJG (libjpeg) standard
tables scaled to every quality 1-100 (Annex K of ITU-T T.81 and libjpeg's ``jpeg_quality_scaling``):
an exact match means a libjpeg-compatible encoder at that quality; otherwise the tables are
*custom* (Photoshop, cameras, some phones) and the nearest quality is reported with its mean
deviation. Pillow parses the segments; this module only reads what Pillow exposes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from PIL import Image, JpegImagePlugin

__all__ = ["JpegStructure", "ijg_table", "read_structure"]

_LUMA: Final = (
    16, 11, 10, 16, 24, 40, 51, 61,
    12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77,
    24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101,
    72, 92, 95, 98, 112, 100, 103, 99,
)  # fmt: skip
_CHROMA: Final = (
    17, 18, 24, 47, 99, 99, 99, 99,
    18, 21, 26, 66, 99, 99, 99, 99,
    24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99,
)  # fmt: skip
_SUBSAMPLING: Final = {0: "4:4:4", 1: "4:2:2", 2: "4:2:0"}
_EDITOR_MARKERS: Final = (
    (b"Photoshop 3.0", "Adobe Photoshop (APP13 image resources)"),
    (b"Adobe", "Adobe (APP14)"),
    (b"http://ns.adobe.com/xap/1.0/", "XMP packet (APP1)"),
)


def ijg_table(base: tuple[int, ...], quality: int) -> tuple[int, ...]:
    """libjpeg's scaled table for ``quality`` (1-100), values clipped to 1..255."""
    q = min(max(quality, 1), 100)
    scale = 5000 // q if q < 50 else 200 - 2 * q
    return tuple(min(max((v * scale + 50) // 100, 1), 255) for v in base)


@dataclass(frozen=True)
class JpegStructure:
    """What the JPEG container says about how the file was encoded and by what."""

    tables: dict[int, tuple[int, ...]]
    quality: int | None
    standard_tables: bool
    table_deviation: float
    subsampling: str | None
    progressive: bool
    markers: tuple[str, ...]
    editor_markers: tuple[str, ...]
    comment: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def data(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "jpeg_quality": self.quality,
            "standard_tables": self.standard_tables,
            "table_deviation": round(self.table_deviation, 3),
            "progressive": self.progressive,
            "quantization_tables": len(self.tables),
            "luma_table": ",".join(str(v) for v in self.tables.get(0, ())),
        }
        if self.subsampling is not None:
            out["subsampling"] = self.subsampling
        if self.editor_markers:
            out["editor_markers"] = "; ".join(self.editor_markers)
        if self.comment:
            out["jpeg_comment"] = self.comment
        return out


def _estimate(tables: dict[int, tuple[int, ...]]) -> tuple[int | None, bool, float]:
    if 0 not in tables:
        return None, False, 0.0
    best_q, best_dev = 0, float("inf")
    for q in range(1, 101):
        dev = sum(abs(a - b) for a, b in zip(tables[0], ijg_table(_LUMA, q), strict=True))
        if 1 in tables:
            dev += sum(abs(a - b) for a, b in zip(tables[1], ijg_table(_CHROMA, q), strict=True))
        if dev < best_dev:
            best_q, best_dev = q, dev
    count = 64 * min(len(tables), 2)
    return best_q, best_dev == 0, best_dev / count


def read_structure(img: Image.Image) -> JpegStructure | None:
    """The structure of an opened JPEG image, or None when it is not a JPEG."""
    if not isinstance(img, JpegImagePlugin.JpegImageFile):
        return None
    raw_tables = getattr(img, "quantization", None) or {}
    tables = {int(k): tuple(int(v) for v in t) for k, t in raw_tables.items()}
    quality, standard, deviation = _estimate(tables)
    markers: list[str] = []
    editors: list[str] = []
    for name, payload in img.applist:
        markers.append(name)
        for needle, label in _EDITOR_MARKERS:
            if payload.startswith(needle) and label not in editors:
                editors.append(label)
    try:
        sampling = _SUBSAMPLING.get(JpegImagePlugin.get_sampling(img))
    except Exception:  # pragma: no cover - Pillow internals differ between versions
        sampling = None
    comment = img.info.get("comment")
    text = comment.decode("utf-8", "replace") if isinstance(comment, bytes) else comment
    return JpegStructure(
        tables=tables,
        quality=quality,
        standard_tables=standard,
        table_deviation=deviation,
        subsampling=sampling,
        progressive=bool(img.info.get("progressive") or img.info.get("progression")),
        markers=tuple(markers),
        editor_markers=tuple(editors),
        comment=text.strip()[:200] if isinstance(text, str) and text.strip() else None,
    )
