"""Local noise-level inconsistency (pure numpy/OpenCV): a splice carries another noise level.

Two blind estimators of the noise standard deviation per cell of the grey image, each turned
into a local-inconsistency score by ``_inconsistency.region_contrast`` (the most deviating 3×3
window of cells, in robust standard deviations of the image's own cells):

* **wavelet noise floor** (Mahdian & Saic 2009, "Using noise inconsistencies for blind image
  forensics", Image Vis. Comput. 27(10), §3): the noise σ̂ of the diagonal detail coefficients
  HH₁ of the first wavelet level. Their per-block estimator is Donoho's median
  σ̂ = median(|HH₁|) / 0.6745 (Eq. 4, ``wavelet_sigma``); texture inflates it, which the
  paper handles by merging homogeneous blocks only. Here each 32-px cell takes the *floor*
  over its sixteen 8-px sub-blocks of the HH₁ root mean square (``wavelet_floor``): the
  flattest part of the cell, where HH₁ is mostly noise. The orthonormal Haar
  HH₁ = (a − b − c + d) / 2 of each 2×2 block is used (the paper uses Daubechies-8; Haar keeps
  the function dependency-free).
* **band-pass kurtosis** (Lyu, Pan & Zhang 2014, "Exposing region splicing forgeries with blind
  local noise estimation", IJCV 110(2), §3 Eq. 7-10): natural images have near-constant
  kurtosis κ across band-pass channels, white noise of variance σ² lowers it as
  √κ_k = √κ · (σ_k² − σ²) / σ_k² for a channel of variance σ_k². With x_k = 1/σ_k², √κ_k is
  linear in x_k (intercept √κ, slope −√κ σ²), so per cell σ² = −slope / intercept of the least
  squares line through the 15 AC channels of the 4×4 DCT (Eq. 10, clipped to [0, min σ_k²]).
  Texture raises σ_k² of every channel together and leaves the estimate nearly unbiased, which
  the wavelet median is not.

Both work on log σ̂, so a global gain (resizing smooths, re-saving quantizes) shifts every cell
alike and cancels in the robust z. Cells that are flat or clipped (the wavelet noise
floor below 0.25 grey levels: saturated sky, letterbox) carry no noise and are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

from semv.perception._inconsistency import region_contrast

__all__ = [
    "NoiseInconsistency",
    "haar_hh",
    "kurtosis_sigma",
    "noise_inconsistency",
    "wavelet_floor",
    "wavelet_sigma",
]

Float = npt.NDArray[np.float64]

CELL: Final = 32
"""Cell side in pixels (16 × 16 Haar coefficients, 64 × 15 band-pass samples per channel)."""
_MAX_SIDE: Final = 1024
_FLAT: Final = 0.25
_DONOHO: Final = 0.6745


def _grey(img: Image.Image) -> Float:
    """BT.601 luma of the central ≤ 1024 × 1024 crop, as float64."""
    y = np.asarray(img.convert("RGB"), dtype=np.float64) @ np.array([0.299, 0.587, 0.114])
    h, w = y.shape
    top, left = max(0, (h - _MAX_SIDE) // 2), max(0, (w - _MAX_SIDE) // 2)
    return np.asarray(y[top : top + _MAX_SIDE, left : left + _MAX_SIDE])


def _cells(values: npt.NDArray[Any], side: int) -> npt.NDArray[Any]:
    """``values`` cut into non-overlapping ``side × side`` tiles: (rows, cols, side·side)."""
    h, w = values.shape[0] // side * side, values.shape[1] // side * side
    v = values[:h, :w].reshape(h // side, side, w // side, side).transpose(0, 2, 1, 3)
    return np.asarray(v.reshape(h // side, w // side, side * side))


def haar_hh(grey: Float) -> Float:
    """The diagonal detail subband HH₁ of the orthonormal Haar transform: (a − b − c + d) / 2
    over every 2×2 block."""
    h, w = grey.shape[0] // 2 * 2, grey.shape[1] // 2 * 2
    g = grey[:h, :w]
    return np.asarray((g[0::2, 0::2] - g[0::2, 1::2] - g[1::2, 0::2] + g[1::2, 1::2]) / 2.0)


def wavelet_sigma(grey: Float, cell: int = CELL) -> Float:
    """Mahdian & Saic's per-cell noise σ̂ = median(|HH₁|) / 0.6745 (Eq. 4), cells of ``cell`` px."""
    hh = _cells(np.abs(haar_hh(grey)), cell // 2)
    return np.asarray(np.median(hh, axis=2) / _DONOHO)


def wavelet_floor(grey: Float, cell: int = CELL) -> Float:
    """Per-cell noise floor: the smallest HH₁ root mean square over the cell's 8-px sub-blocks
    (4 × 4 Haar coefficients each)."""
    hh = haar_hh(grey)
    sub = np.sqrt(_cells(hh**2, 4).mean(axis=2))
    return np.asarray(_cells(sub, cell // 8).min(axis=2))


def _dct4() -> list[Float]:
    k = np.arange(4)
    d = np.cos((2 * k[None, :] + 1) * k[:, None] * np.pi / 8) * np.sqrt(2 / 4)
    d[0] /= np.sqrt(2)
    return [np.outer(d[u], d[v]) for u in range(4) for v in range(4) if (u, v) != (0, 0)]


_BANDS: Final = _dct4()


def kurtosis_sigma(grey: Float, cell: int = CELL) -> Float:
    """Lyu et al.'s per-cell noise σ̂ from the kurtosis of the 15 AC 4×4-DCT channels
    (Eq. 7-10): the least squares line √κ_k = a − b/σ_k² over channels, σ² = b / a."""
    g = grey.astype(np.float32)
    sq, x = [], []
    for band in _BANDS:
        r = cv2.filter2D(g, cv2.CV_32F, band.astype(np.float32), borderType=cv2.BORDER_REFLECT)
        r2 = np.square(r)
        m2 = np.maximum(_cells(r2, cell).mean(axis=2, dtype=np.float64), 1e-9)
        m4 = _cells(np.square(r2), cell).mean(axis=2, dtype=np.float64)
        sq.append(np.sqrt(np.maximum(m4 / m2**2 - 3.0, 0.0)))
        x.append(1.0 / m2)
    kk, xx = np.stack(sq, axis=2), np.stack(x, axis=2)
    xm, km = xx.mean(axis=2, keepdims=True), kk.mean(axis=2, keepdims=True)
    slope = ((xx - xm) * (kk - km)).sum(axis=2) / np.maximum(((xx - xm) ** 2).sum(axis=2), 1e-18)
    intercept = km[..., 0] - slope * xm[..., 0]
    var = np.where(intercept > 1e-9, -slope / np.maximum(intercept, 1e-9), 0.0)
    var = np.clip(var, 0.0, 1.0 / xx.max(axis=2))
    return np.asarray(np.sqrt(var))


@dataclass(frozen=True)
class NoiseInconsistency:
    """Local-inconsistency scores (robust z of the most deviating 3×3-cell window of log σ̂)
    of both estimators, and the wavelet estimator's region (x, y, w, h in pixels of the
    analysed crop)."""

    wavelet: float
    kurtosis: float
    region: tuple[int, int, int, int] | None


def noise_inconsistency(img: Image.Image, *, kurtosis: bool = True) -> NoiseInconsistency:
    """Local noise-level inconsistency of an RGB image by both estimators (module docstring);
    ``kurtosis=False`` skips the band-pass estimator (15 filters; reported as 0)."""
    grey = _grey(img)
    wav = wavelet_floor(grey)
    if wav.size == 0:
        return NoiseInconsistency(0.0, 0.0, None)
    valid = wav >= _FLAT
    w_region = region_contrast(np.log(np.maximum(wav, 1e-3)), valid=valid)
    k_score = 0.0
    if kurtosis:
        kur = kurtosis_sigma(grey)
        k_valid = valid & (kur > 1e-3)
        k_score = region_contrast(np.log(np.maximum(kur, 1e-3)), valid=k_valid).score
    box = None
    if w_region.size:
        (r, c), k = w_region.cell, w_region.size
        box = (c * CELL, r * CELL, k * CELL, k * CELL)
    return NoiseInconsistency(w_region.score, k_score, box)
