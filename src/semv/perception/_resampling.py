"""Resampling traces (pure numpy/OpenCV): periodic linear-predictor residue.

Kirchner 2008, "Fast and reliable resampling detection by spectral analysis of fixed linear
predictor residue" (ACM MM&Sec): a resized or rotated region is an interpolation of its
neighbours, so the residue e = I − α * I of a *fixed* linear predictor α (Eq. 13: the 3×3
filter with −0.25 corners and 0.5 edges) is periodically small. Its p-map p = exp(−|e|² / σ)
(Eq. 21, λ = 1, τ = 2) has sharp peaks in its spectrum |DFT(p)| away from the origin. JPEG's own
8×8 grid puts peaks at multiples of N/8; those frequencies are masked.

Per window of 128 × 128 px (stride 64), the score is the largest masked spectral peak over the
median spectrum magnitude (contrast); the image-level values are the maximum over windows and
that maximum over the windows' median — a region resized on its own (a pasted, scaled object)
stands out against the rest of the image, a whole image resized after capture does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

__all__ = ["Resampling", "pmap", "resampling"]

_ALPHA: Final = np.array([[-0.25, 0.5, -0.25], [0.5, 0.0, 0.5], [-0.25, 0.5, -0.25]])
_SIGMA: Final = 1.0
_WINDOW: Final = 128
_STRIDE: Final = 64
_MAX_WINDOWS: Final = 400
_FLAT: Final = 1.0
"""Windows whose median |residue| is below this are flat or saturated and skipped."""


def pmap(grey: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Kirchner's p-map exp(−e²/σ) of the fixed predictor residue e (Eq. 13, 21)."""
    e = grey - cv2.filter2D(grey, cv2.CV_64F, _ALPHA, borderType=cv2.BORDER_REFLECT)
    return np.asarray(np.exp(-(e**2) / _SIGMA))


def _mask(n: int) -> npt.NDArray[np.bool_]:
    """Frequencies of an n×n spectrum that are not the origin, its axes' low band or a
    multiple of n/8 (JPEG blocking)."""
    f = np.fft.fftfreq(n) * n
    keep = np.ones((n, n), dtype=bool)
    jpeg = np.isclose(np.mod(f, n / 8), 0) | np.isclose(np.mod(f, n / 8), n / 8)
    keep[jpeg, :] &= False
    keep[:, jpeg] &= False
    low = np.abs(f) <= 3
    keep[np.ix_(low, low)] = False
    return keep


_KEEP: Final = _mask(_WINDOW)
_HANN: Final = np.outer(np.hanning(_WINDOW), np.hanning(_WINDOW))


def _peak(p: npt.NDArray[np.float64]) -> float:
    spec = np.abs(np.fft.fft2((p - p.mean()) * _HANN))
    vals = spec[_KEEP]
    return float(vals.max() / max(float(np.median(vals)), 1e-9))


@dataclass(frozen=True)
class Resampling:
    """Per-window spectral peak contrasts, the image's maximum, the maximum over the median
    window, and the window (x, y, w, h) of the maximum."""

    peak: float
    contrast: float
    region: tuple[int, int, int, int] | None


def resampling(img: Image.Image) -> Resampling:
    """Kirchner 2008 resampling detection per 128-px window (see the module docstring)."""
    grey = np.asarray(img.convert("L"), dtype=np.float64)
    h, w = grey.shape
    if h < _WINDOW or w < _WINDOW:
        return Resampling(0.0, 0.0, None)
    p = pmap(grey)
    ys = range(0, h - _WINDOW + 1, _STRIDE)
    xs = range(0, w - _WINDOW + 1, _STRIDE)
    step = max(1, int(np.ceil(np.sqrt(len(ys) * len(xs) / _MAX_WINDOWS))))
    flat = np.abs(grey - cv2.filter2D(grey, cv2.CV_64F, _ALPHA, borderType=cv2.BORDER_REFLECT))
    scores: list[tuple[float, int, int]] = []
    for y in list(ys)[::step]:
        for x in list(xs)[::step]:
            if np.median(flat[y : y + _WINDOW, x : x + _WINDOW]) < _FLAT:
                continue  # saturated or flat: the p-map is constant there, its spectrum noise
            scores.append((_peak(p[y : y + _WINDOW, x : x + _WINDOW]), x, y))
    if not scores:
        return Resampling(0.0, 0.0, None)
    values = np.array([s for s, _, _ in scores])
    best = max(scores)
    return Resampling(
        peak=float(best[0]),
        contrast=float(best[0] / max(float(np.median(values)), 1e-9)),
        region=(best[1], best[2], _WINDOW, _WINDOW),
    )
