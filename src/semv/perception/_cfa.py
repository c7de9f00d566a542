"""Colour-filter-array (demosaicing) trace inconsistency (pure numpy/OpenCV).

A camera measures one colour per pixel through a Bayer filter and interpolates the rest: half of
the green samples are *acquired*, the other half (a quincunx lattice) are interpolated from their
neighbours, so a linear predictor fits the interpolated lattice far better than the acquired one
(Popescu & Farid 2005, "Exposing digital forgeries in color filter array interpolated images",
IEEE TSP 53(10), §2). A pasted region from another camera, resized or synthesised, lacks the trace
or carries it on the other lattice.

Following Ferrara, Bianchi, De Rosa & Piva 2012 ("Image forgery localization via fine-grained
analysis of CFA artifacts", IEEE TIFS 7(5), §III Eq. 4-8) on the green channel G:

1. prediction error e = G − K ∗ G with the bilinear kernel K = [[0,1,0],[1,0,1],[0,1,0]] / 4;
2. per 8×8 block, the local feature L = log(GM σ²_A / GM σ²_B): the geometric mean over the
   block of the error energy on lattice A ((i + j) even) over that on lattice B (odd), σ² being
   the mean of e² over each pixel's same-lattice neighbours in a 7×7 window (Eq. 6; GM of Eq. 8);
3. the image's CFA lattice is the sign of the median L (the interpolated lattice has the smaller
   error); s·L is then large where the trace is present.

``strength`` = median s·L (0 for an image without CFA traces: strongly re-compressed or resized).
The local signal is the 3×3-block window whose s·L falls furthest *below* the image's, in robust
standard deviations (``_inconsistency``), multiplied by min(1, strength / 0.1): without a
global trace there is nothing for a region to lack. JPEG re-saving below quality ≈ 90 and any
resizing erase the trace, so on recirculated images this signal is mostly silent by design
(Ferrara et al. §V: JPEG quality ≥ 90).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

from semv.perception._inconsistency import region_contrast

__all__ = ["CfaResult", "cfa", "cfa_feature_map"]

Float = npt.NDArray[np.float64]

_K: Final = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]) / 4.0
_WINDOW: Final = 7
_BLOCK: Final = 8
_MAX_SIDE: Final = 1024
_EPS: Final = 1e-3
_FULL_STRENGTH: Final = 0.1


def _green(img: Image.Image) -> Float:
    """Green channel of the central ≤ 1024-px crop on an even offset (the lattice is kept)."""
    g = np.asarray(img.convert("RGB"), dtype=np.float64)[:, :, 1]
    h, w = g.shape
    top, left = max(0, (h - _MAX_SIDE) // 2) // 2 * 2, max(0, (w - _MAX_SIDE) // 2) // 2 * 2
    return np.asarray(g[top : top + _MAX_SIDE, left : left + _MAX_SIDE])


def cfa_feature_map(img: Image.Image) -> Float:
    """Ferrara et al.'s per-8×8-block L = log(GM σ²_A / GM σ²_B) of the green channel."""
    g = _green(img)
    e2 = (g - cv2.filter2D(g, cv2.CV_64F, _K, borderType=cv2.BORDER_REFLECT)) ** 2
    ii, jj = np.indices(g.shape)
    lattice_a = ((ii + jj) % 2 == 0).astype(np.float64)
    box = (_WINDOW, _WINDOW)
    num_a = cv2.boxFilter(e2 * lattice_a, -1, box, normalize=False, borderType=cv2.BORDER_REFLECT)
    cnt_a = cv2.boxFilter(lattice_a, -1, box, normalize=False, borderType=cv2.BORDER_REFLECT)
    num_b = cv2.boxFilter(
        e2 * (1 - lattice_a), -1, box, normalize=False, borderType=cv2.BORDER_REFLECT
    )
    var_same = np.where(
        lattice_a > 0, num_a / cnt_a, num_b / np.maximum(box[0] * box[1] - cnt_a, 1)
    )
    log_var = np.log(var_same + _EPS)
    h, w = g.shape[0] // _BLOCK * _BLOCK, g.shape[1] // _BLOCK * _BLOCK

    def block_mean(values: Float) -> Float:
        v = values[:h, :w].reshape(h // _BLOCK, _BLOCK, w // _BLOCK, _BLOCK)
        return np.asarray(v.mean(axis=(1, 3)))

    gm_a = block_mean(log_var * lattice_a) * 2.0
    gm_b = block_mean(log_var * (1 - lattice_a)) * 2.0
    return np.asarray(gm_a - gm_b)


@dataclass(frozen=True)
class CfaResult:
    """Local CFA-trace inconsistency, global trace strength and the region (x, y, w, h px)."""

    inconsistency: float
    strength: float
    region: tuple[int, int, int, int] | None


def cfa(img: Image.Image) -> CfaResult:
    """The CFA-trace signals of an RGB image (module docstring)."""
    feature = cfa_feature_map(img)
    if feature.size < 9:
        return CfaResult(0.0, 0.0, None)
    sign = 1.0 if float(np.median(feature)) >= 0 else -1.0
    signed = sign * feature
    strength = float(np.median(signed))
    region = region_contrast(signed, side="low")
    (r, c), k = region.cell, region.size
    scaled = region.score * min(1.0, strength / _FULL_STRENGTH)
    return CfaResult(scaled, strength, (c * _BLOCK, r * _BLOCK, k * _BLOCK, k * _BLOCK))
