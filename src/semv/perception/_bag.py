"""Block artifact grid (BAG) inconsistency (pure numpy/OpenCV): a pasted region breaks the grid.

Li, Yuan & Yu 2009, "Passive detection of doctored JPEG image via block artifact grid
extraction", Signal Processing 89(9), §2-3. A JPEG's 8×8 block boundaries leave weak lines of
discontinuity on one grid. Extraction (horizontal direction; the vertical one is the transpose):

1. second-order difference d_h(x, y) = |2 f(x, y) − f(x, y−1) − f(x, y+1)| (Eq. 1), truncated at
   ``_CLIP`` grey levels so that image edges do not dominate;
2. accumulated along the line: e_h(x, y) = Σ_{|i|≤16} d_h(x+i, y) (Eq. 2);
3. the line minus its local background, g_h = e_h − median{e_h(x, y−4..y+4)} (Eq. 3), then kept
   only where it repeats with period 8: g'_h = median{g_h(x, y−8), g_h(x, y), g_h(x, y+8)} (Eq. 4);
4. BAG = g'_h + g'_v.

The image's grid phase (the column and row offset with the largest mean BAG line) is estimated
from the whole image. Per 8×8 block on that grid the abnormality is the strongest *inner* line
minus the weaker of its two *boundary* lines (Eq. 5: a block of the host has its grid on the
boundary; a pasted block from another JPEG, shifted, resized or never compressed, has it inside
or nowhere). Blocks are averaged into 32-px cells; the signal is the cells' most abnormal 3×3
window in robust standard deviations of the image's cells (``_inconsistency``), so a whole
image resized or re-saved (every block alike) does not raise it. ``grid`` reports how periodic
the BAG is at all (best phase over the mean of the 8 phases, minus 1): 0 without a JPEG grid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

from semv.perception._inconsistency import region_contrast

__all__ = ["BagResult", "bag", "bag_map"]

Float = npt.NDArray[np.float64]

_CLIP: Final = 20.0
_HALF: Final = 16
_MAX_SIDE: Final = 1024
_CELL_BLOCKS: Final = 4


def _grey(img: Image.Image) -> Float:
    """Grey levels of the central ≤ 1024-px crop on a multiple-of-8 offset (grid kept)."""
    y = np.asarray(img.convert("L"), dtype=np.float32)
    h, w = y.shape
    top = max(0, (h - _MAX_SIDE) // 2) // 8 * 8
    left = max(0, (w - _MAX_SIDE) // 2) // 8 * 8
    return np.asarray(y[top : top + _MAX_SIDE, left : left + _MAX_SIDE])


_MED9: Final = (
    (1, 2), (4, 5), (7, 8), (0, 1), (3, 4), (6, 7), (1, 2), (4, 5), (7, 8), (0, 3),
    (5, 8), (4, 7), (3, 6), (1, 4), (2, 5), (4, 7), (4, 2), (6, 4), (4, 2),
)  # fmt: skip
"""Paeth's 19-exchange median-of-9 network (Graphics Gems, as in Devillard's opt_med9)."""


def _median9(p: list[Float]) -> Float:
    """Element-wise median of nine equally shaped arrays (the network's slot 4)."""
    p = list(p)
    for a, b in _MED9:
        p[a], p[b] = np.minimum(p[a], p[b]), np.maximum(p[a], p[b])
    return p[4]


def _lines(f: Float) -> Float:
    """g'_h of Eq. 1-4: vertical grid lines (strong at the block-boundary columns)."""
    f = f.astype(np.float32)
    d = np.zeros_like(f)
    d[:, 1:-1] = np.abs(2 * f[:, 1:-1] - f[:, :-2] - f[:, 2:])
    d = np.minimum(d, _CLIP)
    e = cv2.boxFilter(d, -1, (1, 2 * _HALF + 1), normalize=False, borderType=cv2.BORDER_REFLECT)
    g = e - _median9([np.roll(e, k, axis=1) for k in range(-4, 5)])
    a, b = np.roll(g, 8, axis=1), np.roll(g, -8, axis=1)
    return np.asarray(np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), g)))


def bag_map(img: Image.Image) -> Float:
    """The block artifact grid BAG = g'_h + g'_v of the grey image (Eq. 4)."""
    f = _grey(img)
    return np.asarray(_lines(f) + _lines(f.T).T)


@dataclass(frozen=True)
class BagResult:
    """Local grid inconsistency (robust z of the most abnormal 3×3 window of 32-px cells),
    global grid periodicity, the phase (dy, dx) and the region (x, y, w, h px of the crop)."""

    inconsistency: float
    grid: float
    phase: tuple[int, int]
    region: tuple[int, int, int, int] | None


def _phase(profile: Float) -> tuple[int, float]:
    folded = np.array([profile[p::8].mean() for p in range(8)])
    best = int(np.argmax(folded))
    spread = float(np.abs(folded).mean())
    return best, float(folded[best] / spread - 1.0) if spread > 1e-9 else 0.0


def bag(img: Image.Image) -> BagResult:
    """Li, Yuan & Yu's BAG abnormality, aggregated to a local-inconsistency score."""
    f = _grey(img)
    gh, gv = _lines(f), _lines(f.T).T
    px, sx = _phase(np.clip(gh, 0, None).mean(axis=0))
    py, sy = _phase(np.clip(gv, 0, None).mean(axis=1))
    grid = 0.5 * (sx + sy)
    # block k spans columns px+1+8k .. px+8+8k; its boundary lines are px+8k and px+8(k+1)
    col = gh[:, px + 1 :]
    row = gv[py + 1 :, :]
    h = min(col.shape[0], row.shape[0] - 1) // 8 * 8
    w = min(col.shape[1] - 1, row.shape[1]) // 8 * 8
    nb_r, nb_c = h // 8, w // 8
    if nb_r < 3 or nb_c < 3:
        return BagResult(0.0, grid, (py, px), None)
    # column-line means per block: (nb_r, nb_c, 9) for offsets 0..8 (0 and 8 are its boundaries)
    gcol = gh[py + 1 : py + 1 + h, px : px + w + 1]
    crows = gcol.reshape(nb_r, 8, w + 1).mean(axis=1)
    cols = np.stack([crows[:, o : o + 8 * nb_c : 8] for o in range(9)], axis=2)
    grow = gv[py : py + h + 1, px + 1 : px + 1 + w]
    rcols = grow.reshape(h + 1, nb_c, 8).mean(axis=2)
    rows = np.stack([rcols[o : o + 8 * nb_r : 8, :] for o in range(9)], axis=2)
    inner = 0.5 * (cols[:, :, 1:8].mean(axis=2) + rows[:, :, 1:8].mean(axis=2))
    boundary = 0.25 * (cols[:, :, 0] + cols[:, :, 8] + rows[:, :, 0] + rows[:, :, 8])
    abnormal = inner - boundary
    cr, cc = nb_r // _CELL_BLOCKS, nb_c // _CELL_BLOCKS
    if cr < 3 or cc < 3:
        return BagResult(0.0, grid, (py, px), None)
    cells = (
        abnormal[: cr * _CELL_BLOCKS, : cc * _CELL_BLOCKS]
        .reshape(cr, _CELL_BLOCKS, cc, _CELL_BLOCKS)
        .mean(axis=(1, 3))
    )
    region = region_contrast(cells, side="high")
    (r, c), k = region.cell, region.size
    side = 8 * _CELL_BLOCKS
    box = (px + 1 + c * side, py + 1 + r * side, k * side, k * side)
    return BagResult(region.score, grid, (py, px), box)
