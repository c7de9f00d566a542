"""Copy-move detection by keypoint matching inside one image (OpenCV SIFT, pure function).

Amerini, Ballan, Caldelli, Del Bimbo & Serra 2011, "A SIFT-based forensic method for copy–move
attack detection and transformation recovery", IEEE TIFS 6(3): SIFT keypoints of the image are
matched against the image's own keypoints; a keypoint's matches are kept by the generalised
2-nearest-neighbour test (g2NN, §III-A: keep the i-th neighbour while d_i / d_{i+1} < T, T = 0.5)
and pairs closer than a few pixels are dropped (the same structure, not a copy). A cloned
region is a set of pairs related by one geometric transform: RANSAC (OpenCV
``estimateAffinePartial2D``, rotation + uniform scale + translation) keeps the pairs that agree
with one transform; their number is the evidence, their two bounding boxes the source and the
copy, which must not overlap (a repetitive texture matched one period away overlaps itself).
Repetitive textures (windows of a façade, tiles) still match at larger distances; that is why
the count enters a fitted, calibrated model and is never a verdict on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

__all__ = ["CopyMove", "copy_move"]

_RATIO: Final = 0.5
"""g2NN ratio T (Amerini et al. 2011 §III-A)."""
_NEIGHBOURS: Final = 8
_MIN_SHIFT: Final = 16.0
"""Matched keypoints closer than this (px) are the same structure, not a copy."""
_RANSAC_PX: Final = 4.0
_MAX_SIDE: Final = 1024
_MAX_KEYPOINTS: Final = 4000
_SEED: Final = 20110601


_MIN_VERIFIED_INLIERS: Final = 8
"""Fewest RANSAC inliers of a verified clone."""
_MIN_BOX_SIDE: Final = 16
"""Smallest side (px, analysed image) of a verified clone's boxes."""
_MIN_NCC: Final = 0.90
"""Normalised cross-correlation of the copy with its source, moved by the transform, at which
the clone is verified."""
_MIN_STD: Final = 8.0
"""Grey-level standard deviation of the copy below which it is flat (nothing to verify)."""


@dataclass(frozen=True)
class CopyMove:
    """Matched pairs after g2NN, the RANSAC inliers of one transform, the shift between the
    two copies (px) and their boxes (x, y, w, h) in the analysed image's pixels; ``verified``
    when the detector's own check holds (``_verify``): enough inliers, boxes of a usable size,
    and the source region, moved by the fitted transform, reproduces the copy pixel by pixel
    (normalised cross-correlation ≥ ``_MIN_NCC`` over a textured copy)."""

    pairs: int
    inliers: int
    shift: float
    source: tuple[int, int, int, int] | None
    target: tuple[int, int, int, int] | None
    verified: bool = False
    ncc: float = 0.0


def _box(points: npt.NDArray[np.float32]) -> tuple[int, int, int, int]:
    x0, y0 = points.min(axis=0)
    x1, y1 = points.max(axis=0)
    return int(x0), int(y0), int(np.ceil(x1 - x0)) + 1, int(np.ceil(y1 - y0)) + 1


def copy_move(img: Image.Image) -> CopyMove:
    """SIFT self-matching with g2NN and RANSAC (Amerini et al. 2011). Boxes are in the input
    image's pixels (images larger than 1024 px are analysed downscaled and mapped back)."""
    full = np.asarray(img.convert("L"), dtype=np.uint8)
    scale = min(1.0, _MAX_SIDE / max(full.shape))
    grey = (
        cv2.resize(full, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if scale < 1.0
        else full
    )
    sift = cv2.SIFT_create(nfeatures=_MAX_KEYPOINTS)  # type: ignore[attr-defined]
    keypoints, desc = sift.detectAndCompute(grey, None)
    empty = CopyMove(0, 0, 0.0, None, None)
    if desc is None or len(keypoints) < 3:
        return empty
    pts = np.array([k.pt for k in keypoints], dtype=np.float32)
    k = min(_NEIGHBOURS + 1, len(keypoints))
    matches = cv2.BFMatcher(cv2.NORM_L2).knnMatch(desc, desc, k=k)
    src, dst = [], []
    for row in matches:
        neigh = [m for m in row if m.trainIdx != m.queryIdx]
        for i in range(len(neigh) - 1):
            if neigh[i].distance >= _RATIO * max(neigh[i + 1].distance, 1e-6):
                break
            a, b = pts[neigh[i].queryIdx], pts[neigh[i].trainIdx]
            if float(np.hypot(*(a - b))) >= _MIN_SHIFT and neigh[i].queryIdx < neigh[i].trainIdx:
                src.append(a)
                dst.append(b)
    if len(src) < 3:
        return CopyMove(len(src), 0, 0.0, None, None)
    s, d = np.array(src, np.float32), np.array(dst, np.float32)
    cv2.setRNGSeed(_SEED)  # RANSAC samples from OpenCV's global generator: same input, same answer
    fitted = cv2.estimateAffinePartial2D(
        s, d, method=cv2.RANSAC, ransacReprojThreshold=_RANSAC_PX, maxIters=2000
    )
    matrix, mask = fitted
    if mask is None or matrix is None:
        return CopyMove(len(src), 0, 0.0, None, None)
    keep = mask.ravel().astype(bool)
    n = int(keep.sum())
    if n < 3:
        return CopyMove(len(src), n, 0.0, None, None)
    s_in, d_in = s[keep] / scale, d[keep] / scale
    shift = float(np.median(np.hypot(*(d_in - s_in).T)))
    source, target = _box(s_in), _box(d_in)
    if _overlap(source, target):
        # a repetitive texture (façade, tiles) shifted by one period overlaps itself; a clone
        # is a second, distinct region (Amerini et al. 2011 §III-B: two separate clusters)
        return CopyMove(len(src), 0, shift, None, None)
    ncc = _moved_ncc(np.asarray(grey, np.uint8), np.asarray(matrix, np.float64), _box(d[keep]))
    verified = (
        n >= _MIN_VERIFIED_INLIERS
        and min(source[2], source[3], target[2], target[3]) * scale >= _MIN_BOX_SIDE
        and ncc >= _MIN_NCC
    )
    return CopyMove(len(src), n, shift, source, target, verified, round(ncc, 4))


def _moved_ncc(
    grey: npt.NDArray[np.uint8], matrix: npt.NDArray[np.float64], box: tuple[int, int, int, int]
) -> float:
    """Normalised cross-correlation, over the copy's box, of the image with the image moved by
    the source→copy transform (0 when the copy is flat or the box is empty)."""
    h, w = grey.shape
    moved = cv2.warpAffine(grey, matrix, (w, h), flags=cv2.INTER_LINEAR)
    x, y, bw, bh = box
    x0, y0, x1, y1 = max(0, x), max(0, y), min(w, x + bw), min(h, y + bh)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return 0.0
    a = grey[y0:y1, x0:x1].astype(np.float64)
    b = moved[y0:y1, x0:x1].astype(np.float64)
    if a.std() < _MIN_STD or b.std() < _MIN_STD:
        return 0.0
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return not (ax + aw <= bx or bx + bw <= ax or ay + ah <= by or by + bh <= ay)
