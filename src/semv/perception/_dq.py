"""Double-JPEG quantization traces (pure numpy): aligned and non-aligned (grid-shifted).

A JPEG that was decoded and compressed again with another quantization step leaves a
*periodic* histogram of its DCT coefficients: with steps q₁ then q₂, the bins of
round(C / q₂) are filled unevenly with period ≈ q₁ / q₂ (empty bins or double peaks; Popescu &
Farid 2004, "Statistical tools for digital forensics", §2 Eq. 3-5). A region pasted into such an
image and saved once more lacks the period. Two measurements, both on the luminance channel:

* **aligned double quantization** (``aligned_dq``): 8×8 DCT on the JPEG grid, coefficients
  divided by the file's own quantization step (1 when the image is no JPEG); per low-frequency
  AC position, the periodicity of the normalised histogram (its strongest non-DC Fourier
  component over its total power, after dividing out the smooth envelope). Per block, the
  posterior that the block does *not* follow the period (Lin, He, Tang & Tang 2009, "Fast,
  automatic and fine-grained tampered JPEG image detection via DCT coefficient analysis",
  Pattern Recognition 42(11), Eq. 6-9: P(unchanged | k) = h(k) / Σ_{period} h, P(tampered) =
  1/p) gives a map whose most anomalous region is the candidate splice.
* **non-aligned double quantization** (``nonaligned_dq``): a first compression on a grid
  shifted by (dx, dy) — a crop or a pasted JPEG patch — leaves coefficients on that shifted
  grid clustered near integers (Bianchi & Piva 2012, "Detection of nonaligned double JPEG
  compression based on integer periodicity maps", IEEE TIFS 7(2)). For each of the 63
  non-zero shifts, the mean |cos(2π C)|-type integer periodicity of the low-frequency DCT
  coefficients; the feature is the best shift's value over the median of all shifts.

All functions are pure: an RGB ``PIL.Image`` (and optionally the 64 luma quantization steps in
natural order) in, numbers or float32 arrays out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt
from PIL import Image

__all__ = [
    "DQResult",
    "aligned_dq",
    "block_dct",
    "histogram_periodicity",
    "luma",
    "nonaligned_dq",
]

Array = npt.NDArray[np.float32]

#: low-frequency AC positions (u, v) in zigzag order 1..9: the ones with enough non-zero values
_AC: Final = ((0, 1), (1, 0), (2, 0), (1, 1), (0, 2), (0, 3), (1, 2), (2, 1), (3, 0))
_BINS: Final = 64
"""Histogram half-width (bins of round(C / q₂)), enough for q₁/q₂ periods up to ~10."""
_MIN_COUNT: Final = 200
"""A frequency whose histogram has fewer non-zero coefficients is skipped (too sparse)."""
_MAX_SIDE: Final = 1024
"""Larger images are analysed on their central 1024×1024 crop (grid-preserving)."""
_EPS: Final = 1e-9
_MAX_PERIOD: Final = 20
"""Longer "periods" are the envelope's residue, not double quantization (q₁/q₂ ≤ 20)."""
_NA_SIDE: Final = 512
"""The non-aligned search (63 grids) runs on the central 512×512 crop."""
_NA_STEPS: Final = np.arange(2, 17, dtype=np.float64)


def _dct_matrix() -> npt.NDArray[np.float64]:
    k = np.arange(8)
    d = np.cos((2 * k[None, :] + 1) * k[:, None] * np.pi / 16) * np.sqrt(2 / 8)
    d[0] /= np.sqrt(2)
    return np.asarray(d, dtype=np.float64)


_D: Final = _dct_matrix()


def luma(img: Image.Image, side: int = _MAX_SIDE) -> npt.NDArray[np.float64]:
    """JPEG's Y channel (ITU-R BT.601, level-shifted by −128), central crop ≤ ``side`` px on a
    multiple-of-8 offset so the JPEG grid is kept."""
    top = max(0, (img.height - side) // 2) // 8 * 8
    left = max(0, (img.width - side) // 2) // 8 * 8
    crop = img.crop((left, top, min(img.width, left + side), min(img.height, top + side)))
    y = np.asarray(crop.convert("RGB"), dtype=np.float64) @ np.array([0.299, 0.587, 0.114])
    return np.asarray(y - 128.0)


def block_dct(y: npt.NDArray[np.float64], dy: int = 0, dx: int = 0) -> npt.NDArray[np.float64]:
    """Orthonormal 8×8 DCT-II of every block of ``y`` on the grid shifted by (dy, dx):
    an array (rows, cols, 8, 8) of coefficients (ITU-T T.81 A.3.3)."""
    v = y[dy:, dx:]
    h, w = v.shape[0] // 8 * 8, v.shape[1] // 8 * 8
    blocks = v[:h, :w].reshape(h // 8, 8, w // 8, 8).transpose(0, 2, 1, 3)
    return np.asarray(_D @ blocks @ _D.T)  # D·B·Dᵀ per block (two batched matmuls)


def _smooth(h: npt.NDArray[np.float64], width: float = 4.0) -> npt.NDArray[np.float64]:
    x = np.arange(-12, 13)
    kernel = np.exp(-0.5 * (x / width) ** 2)
    kernel /= kernel.sum()
    return np.convolve(np.pad(h, 12, mode="edge"), kernel, mode="valid")


def histogram_periodicity(values: npt.NDArray[np.float64]) -> tuple[float, int]:
    """Periodicity of the histogram of integer ``values`` over [−64, 64] without bin 0: the
    share of the strongest non-DC Fourier component in the power of the histogram divided by
    its smooth envelope (Popescu & Farid 2004 §2: double quantization makes the histogram
    periodic). Returns (strength in [0, 1], period in bins; 0 when none)."""
    k = np.clip(values, -_BINS, _BINS).astype(np.int64) + _BINS
    hist = np.bincount(k.ravel(), minlength=2 * _BINS + 1).astype(np.float64)
    hist[_BINS] = 0.5 * (hist[_BINS - 1] + hist[_BINS + 1])  # bin 0 dominates; not periodic
    if hist.sum() - hist[_BINS] < _MIN_COUNT:
        return 0.0, 0
    envelope = _smooth(hist)
    keep = envelope > 2.0
    if keep.sum() < 8:
        return 0.0, 0
    ratio = np.where(keep, hist / np.maximum(envelope, _EPS) - 1.0, 0.0)
    power = np.abs(np.fft.rfft(ratio)) ** 2
    power[0] = 0.0
    total = float(power.sum())
    if total <= _EPS:
        return 0.0, 0
    f = int(np.argmax(power[1:])) + 1
    # a period of 1 bin is no period; the highest frequencies mirror noise in sparse tails
    period = round(len(ratio) / f)
    if f >= len(ratio) // 2 or period > _MAX_PERIOD:
        return 0.0, 0
    return float(power[f] / total), period


@dataclass(frozen=True)
class DQResult:
    """Aligned double-quantization: image-level periodicity, its period per frequency and the
    per-8×8-block posterior of *not* following it (float32, rows × cols of blocks)."""

    strength: float
    periods: tuple[int, ...]
    posterior: Array


def aligned_dq(img: Image.Image, q_luma: tuple[int, ...] | None = None) -> DQResult:
    """Aligned double-JPEG analysis (Popescu & Farid 2004; Lin et al. 2009 Eq. 6-9).

    ``q_luma`` are the file's 64 luminance quantization steps (natural order); without them the
    DCT coefficients are histogrammed at step 1. ``strength`` is the mean histogram periodicity
    over the low-frequency AC positions; ``posterior`` the per-block mean over those positions
    of P(tampered) = (1/p) / (1/p + h(k) / Σ_{|i|<p/2} h(k+i)), 0.5 where no period exists.
    """
    y = luma(img)
    coeffs = block_dct(y)
    rows, cols = coeffs.shape[:2]
    q = np.asarray(q_luma if q_luma else (1,) * 64, dtype=np.float64).reshape(8, 8)
    logit_sum = np.zeros((rows, cols), dtype=np.float64)
    strengths: list[float] = []
    periods: list[int] = []
    for u, v in _AC:
        k = np.rint(coeffs[:, :, u, v] / q[u, v])
        strength, period = histogram_periodicity(k)
        strengths.append(strength)
        periods.append(period)
        if period < 2:
            continue
        idx = np.clip(k, -_BINS, _BINS).astype(np.int64) + _BINS
        hist = np.bincount(idx.ravel(), minlength=2 * _BINS + 1).astype(np.float64)
        window = np.convolve(hist, np.ones(period), mode="same")
        p_unchanged = hist / np.maximum(window, _EPS)
        p_tampered = 1.0 / period
        post = p_tampered / (p_tampered + p_unchanged[idx])
        post = np.clip(post, 0.01, 0.99)
        logit_sum += strength * np.log(post / (1 - post))
    weight = max(sum(s for s, p in zip(strengths, periods, strict=True) if p >= 2), _EPS)
    posterior = 1.0 / (1.0 + np.exp(-logit_sum / weight))
    return DQResult(
        strength=float(np.mean(strengths)) if strengths else 0.0,
        periods=tuple(periods),
        posterior=np.asarray(posterior, dtype=np.float32),
    )


def _integer_periodicity(y: npt.NDArray[np.float64], dy: int, dx: int) -> float:
    """Mean over the first five low-frequency AC positions of |E[exp(2πi · C / s)]| maximised
    over steps s in 2..16, on the 8×8 grid shifted by (dy, dx): how tightly the coefficients
    cluster on a lattice of some quantization step (Bianchi & Piva 2012, the integer
    periodicity map collapsed to one number)."""
    v = y[dy:, dx:]
    h, w = v.shape[0] // 8 * 8, v.shape[1] // 8 * 8
    blocks = v[:h, :w].reshape(h // 8, 8, w // 8, 8)
    values = []
    for u, t in _AC[:5]:
        c = np.einsum("j,ajbk,k->ab", _D[u], blocks, _D[t]).ravel()
        c = c[np.abs(c) > 1.0]  # zeros sit on every lattice
        if c.size < _MIN_COUNT // 4:
            continue
        phase = 2 * np.pi * c[None, :] / _NA_STEPS[:, None]
        mag = np.hypot(np.cos(phase).mean(axis=1), np.sin(phase).mean(axis=1))
        values.append(float(mag.max()))
    return float(np.mean(values)) if values else 0.0


def nonaligned_dq(img: Image.Image) -> tuple[float, tuple[int, int]]:
    """Non-aligned double-JPEG evidence (Bianchi & Piva 2012): the lattice clustering of the
    DCT coefficients on the best of the 63 shifted 8×8 grids minus the median over the 63
    shifts, and that shift (dy, dx). Near 0 when no earlier compression sat on a shifted grid;
    a patch pasted from another JPEG off the host's grid, or a crop of a JPEG that was saved
    again, raise it."""
    y = luma(img, _NA_SIDE)
    scores: dict[tuple[int, int], float] = {}
    for dy in range(8):
        for dx in range(8):
            if dy == 0 and dx == 0:
                continue
            scores[(dy, dx)] = _integer_periodicity(y, dy, dx)
    if not scores:
        return 0.0, (0, 0)
    best = max(scores, key=lambda s: scores[s])
    return float(scores[best] - np.median(list(scores.values()))), best
