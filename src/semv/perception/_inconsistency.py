"""Local inconsistency of a per-cell statistic: the region that departs most from the image.

A splice is a *region* whose statistic (noise level, grid strength, CFA trace) differs from the
rest of the image; a global operation (re-saving, resizing the whole photo) changes every cell
alike. So the signals of ``_noise_local``, ``_bag`` and ``_cfa`` are not the statistic itself but
its most deviating ``k × k``-cell window measured in robust standard deviations of the image's
own cells (median and 1.4826 · MAD; Rousseeuw & Croux 1993), which is invariant to any global
affine change of the statistic. When half the cells or more share one value (a flat graphic: its
cells are identical), the MAD is 0 and would make every other cell a near-infinite z; the spread
is then 1.2533 · the mean absolute deviation from the median, as the modified z-score does
(Iglewicz & Hoaglin 1993). Pure numpy/OpenCV.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

import cv2
import numpy as np
import numpy.typing as npt

__all__ = ["Region", "region_contrast"]

_MAD_TO_SIGMA: Final = 1.4826
_MEANAD_TO_SIGMA: Final = 1.2533
"""σ / mean absolute deviation of a normal sample (√(π/2)): the spread when the MAD is 0."""
_MIN_CELLS: Final = 9


@dataclass(frozen=True)
class Region:
    """The most deviating window: its mean robust z (signed as asked), its top-left cell
    (row, col) and size in cells."""

    score: float
    cell: tuple[int, int]
    size: int


def region_contrast(
    values: npt.NDArray[np.float64],
    *,
    window: int = 3,
    valid: npt.NDArray[np.bool_] | None = None,
    side: Literal["high", "low", "both"] = "both",
) -> Region:
    """The ``window × window`` mean of z = (v − median) / spread over the cells of ``values``
    (only ``valid`` cells enter the median, the spread and the window mean), maximised over
    windows: of z (``high``), of −z (``low``) or of |window mean| (``both``). The spread is
    1.4826 · MAD, or 1.2533 · the mean absolute deviation when the MAD is 0 (module docstring).
    A score of 0 when fewer than 9 cells are valid."""
    v = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(v) if valid is None else (np.asarray(valid, dtype=bool) & np.isfinite(v))
    if int(ok.sum()) < _MIN_CELLS:
        return Region(0.0, (0, 0), 0)
    med = float(np.median(v[ok]))
    deviation = np.abs(v[ok] - med)
    mad = float(np.median(deviation)) * _MAD_TO_SIGMA
    if mad == 0.0:
        mad = float(np.mean(deviation)) * _MEANAD_TO_SIGMA
    spread = max(mad, 1e-6 * max(abs(med), 1.0), 1e-12)
    z = np.where(ok, (v - med) / spread, 0.0).astype(np.float32)
    k = max(1, min(window, v.shape[0], v.shape[1]))
    total = cv2.boxFilter(z, -1, (k, k), normalize=False, borderType=cv2.BORDER_CONSTANT)
    count = cv2.boxFilter(
        ok.astype(np.float32), -1, (k, k), normalize=False, borderType=cv2.BORDER_CONSTANT
    )
    mean = np.where(count >= max(1.0, k * k / 2.0), total / np.maximum(count, 1.0), 0.0)
    scored = {"high": mean, "low": -mean, "both": np.abs(mean)}[side]
    row, col = np.unravel_index(int(np.argmax(scored)), scored.shape)
    top, left = max(0, int(row) - k // 2), max(0, int(col) - k // 2)
    return Region(float(max(scored[row, col], 0.0)), (top, left), k)
