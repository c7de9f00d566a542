"""Pixel-forensic score maps (pure numpy/OpenCV/Pillow, no I/O beyond in-memory JPEG encodes).

Three classical maps, each turned into a per-block score in [0, 1] the same way:

* **ELA** (error level analysis): |I − JPEG_q(I)| averaged per block. A region pasted from
  another source, or resaved a different number of times, recompresses differently.
* **Noise residual**: the local standard deviation of I − median₃(I) per block. A splice carries
  the sensor noise of another camera, so its noise level departs from the rest (two-sided).
* **JPEG ghost** (after Farid 2009): for each quality q, the block mean of |I − JPEG_q(I)|²
  as a robust z against the image's blocks; the block's value is the maximum |z| over q. A
  region previously compressed at a lower quality q₁ shows a *ghost* (an unusually small
  difference at q₁); a region that was never compressed like the rest lacks the ghost the rest
  shows; both are large |z| at some q.

Per-block values become scores by a robust z against the whole image (median and MAD over
blocks) through a logistic centred at ``robust_z``: score 0.5 means "``robust_z`` robust
standard deviations above this image's typical block". A map's *region score* is the maximum of
the score map averaged over a ``window × window``-block box: the most anomalous region.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

__all__ = [
    "ScoreMap",
    "block_mean",
    "block_std",
    "ela_values",
    "ghost_curve",
    "ghost_z",
    "logistic",
    "noise_values",
    "recompress",
    "region_of",
    "robust_scores",
    "robust_z",
]

Array = npt.NDArray[np.float32]

_MAD_TO_SIGMA: Final = 1.4826
"""MAD × 1.4826 estimates σ for normally distributed values."""
_MAD_FLOOR: Final = 1e-6


@dataclass(frozen=True)
class ScoreMap:
    """A per-block score map, its region score and the region (x, y, w, h in pixels)."""

    name: str
    scores: Array
    region_score: float
    region: tuple[int, int, int, int]


def recompress(img: Image.Image, quality: int) -> Array:
    """``img`` saved as JPEG at ``quality`` and decoded again, as float32 RGB."""
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    buf.seek(0)
    with Image.open(buf) as out:
        return np.asarray(out.convert("RGB"), dtype=np.float32)


def _crop(values: Array, block: int) -> Array:
    h, w = values.shape
    return values[: h // block * block, : w // block * block]


def block_mean(values: Array, block: int) -> Array:
    """Mean of ``values`` over non-overlapping ``block × block`` tiles (edges dropped)."""
    v = _crop(values, block)
    h, w = v.shape
    return np.asarray(v.reshape(h // block, block, w // block, block).mean(axis=(1, 3)), np.float32)


def block_std(values: Array, block: int) -> Array:
    """Standard deviation of ``values`` over non-overlapping ``block × block`` tiles."""
    v = _crop(values, block)
    h, w = v.shape
    return np.asarray(v.reshape(h // block, block, w // block, block).std(axis=(1, 3)), np.float32)


def ela_values(img: Image.Image, quality: int) -> Array:
    """Per-pixel error level: mean absolute RGB difference to the JPEG_quality resave."""
    original = np.asarray(img, dtype=np.float32)
    return np.asarray(np.abs(original - recompress(img, quality)).mean(axis=2), np.float32)


def noise_values(img: Image.Image) -> Array:
    """Per-pixel noise residual |I − median₃(I)| of the grey image."""
    grey = np.asarray(img.convert("L"), dtype=np.uint8)
    residual = grey.astype(np.float32) - cv2.medianBlur(grey, 3).astype(np.float32)
    return np.abs(residual).astype(np.float32)


def robust_z(values: Array) -> Array:
    """(v − median) / (1.4826 · MAD) over all blocks of the image."""
    median = float(np.median(values))
    mad = float(np.median(np.abs(values - median)))
    return np.asarray((values - median) / (_MAD_TO_SIGMA * max(mad, _MAD_FLOOR)), np.float32)


def ghost_z(img: Image.Image, qualities: tuple[int, ...], block: int) -> Array:
    """Per-block JPEG-ghost deviation: max over q of |robust z| of the block's mean squared
    difference to JPEG_q(img). A region compressed at another quality than the rest has a
    ghost (an unusually low difference) or lacks one (unusually high) at some q."""
    original = np.asarray(img, dtype=np.float32)
    best: Array | None = None
    for q in qualities:
        diff = np.asarray(((original - recompress(img, q)) ** 2).mean(axis=2), np.float32)
        z = np.abs(robust_z(block_mean(diff, block)))
        best = z if best is None else np.maximum(best, z)
    if best is None:
        raise ValueError("ghost_z needs at least one quality")
    return best


def ghost_curve(img: Image.Image, qualities: tuple[int, ...]) -> list[float]:
    """Global mean squared difference to JPEG_q(img) for each q (for double-compression dips)."""
    original = np.asarray(img, dtype=np.float32)
    return [float(((original - recompress(img, q)) ** 2).mean()) for q in qualities]


def logistic(z: Array, z_half: float) -> Array:
    """Scores in (0, 1): 0.5 at ``z_half``."""
    return np.asarray(1.0 / (1.0 + np.exp(-(z - z_half))), np.float32)


def robust_scores(values: Array, z_half: float, *, two_sided: bool = False) -> Array:
    """Logistic of the robust z of each block: 0.5 at ``z_half`` robust σ from the median."""
    z = robust_z(values)
    return logistic(np.abs(z) if two_sided else z, z_half)


def region_of(name: str, scores: Array, block: int, window: int) -> ScoreMap:
    """The most anomalous ``window × window``-block region of ``scores`` and its mean score."""
    k = max(1, min(window, scores.shape[0], scores.shape[1]))
    smooth = cv2.blur(scores.astype(np.float32), (k, k), borderType=cv2.BORDER_REPLICATE)
    row, col = np.unravel_index(int(np.argmax(smooth)), smooth.shape)
    top = max(0, int(row) - k // 2)
    left = max(0, int(col) - k // 2)
    region = (left * block, top * block, k * block, k * block)
    return ScoreMap(name, scores, float(smooth[row, col]), region)
