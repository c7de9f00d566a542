"""Block-grained double-JPEG likelihood maps (Bianchi & Piva 2012), aligned and non-aligned.

Bianchi & Piva, "Image forgery localization via block-grained analysis of JPEG artifacts",
IEEE TIFS 7(3), 2012. A photo that was JPEG-compressed (steps Q₁), decoded, edited and saved
again (steps Q₂) carries the first compression in every untouched 8×8 block; an object pasted
in from another image lacks it. Per DCT frequency the observed coefficients follow a mixture

    p(x) = α · p(x | H₀) + (1 − α) · p(x | H₁)                (the paper's mixture model)

of doubly compressed blocks (H₀, the background) and singly compressed ones (H₁, the pasted
object); the primary step Q₁ and α are estimated by expectation-maximisation, and each block
gets the likelihood ratio L = Π_f p(x_f | H₁) / p(x_f | H₀) over the frequencies with evidence
(the frequencies taken as independent, as in the paper's block likelihood map): L > 1 where a
block does not follow the background's first compression. The paper's equation numbers are
not quoted here (no copy of the paper in this repository); the formulas are written out below.

* **aligned** (A-DJPG): both compressions on the same 8×8 grid. x is the quantized
  index round(C / Q₂) of the file. p(x | H₁) comes from the distribution of the *unquantized*
  coefficients, estimated by calibration (Fridrich, Goljan & Hogea 2002: the DCT of the decoded
  image on the grid shifted by 4 pixels, which carries neither compression's lattice):
  p(x | H₁) = P(C ∈ [(x − ½) Q₂, (x + ½) Q₂)). Under H₀ the coefficient was first quantized
  to k Q₁ and decoded with a rounding error e ~ N(0, σ²), σ² = 1/12 (pixel rounding through an
  orthonormal DCT), so p(x | H₀) = Σ_k P(C ∈ [(k − ½) Q₁, (k + ½) Q₁)) ·
  P(round((k Q₁ + e) / Q₂) = x) (the paper's A-DJPG model with its rounding-error term). An image
  that is no JPEG (a PNG or TIFF save of an edited JPEG) is analysed with Q₂ = 1.
* **non-aligned** (NA-DJPG): the first compression sat on a grid shifted by (r, c) ≠ 0
  (a crop, or a JPEG object pasted off the host's grid). On that grid the coefficients y of the
  decoded image cluster near multiples of Q₁ up to the error e of the last compression,
  y = k Q₁ + e; with the paper's approximation p(y | H₀) = n(y) · p(y | H₁), the periodic
  factor is n(y) = Q₁ Σ_k N(y − k Q₁; σₑ²) (mean 1 over a period), so L = 1 / n(y). The grid
  shift is the one with the strongest integer periodicity (``_dq.nonaligned_dq``, Bianchi &
  Piva's integer periodicity map); σₑ² = 1/12 + the mean over the 64 frequencies of the last
  compression's error variance min(Q₂² / 12, E[C²]). Coefficients with |y| < Q₁ / 2 sit on
  every lattice and where the density is not smooth over a period; they carry L = 1.

Q₁ is chosen per frequency among 1..25 by the EM log-likelihood; a frequency enters the map only
when its best mixture beats the single-compression model by a likelihood-ratio test at
p < 0.001 with a Bonferroni correction over the candidates (2 ΔLL > 17.4), so an image with no
double compression leaves few or no frequencies in the map. Blocks with a clipped pixel (a
channel at 0 or 255) are left out of the estimate and the map: truncation after a decompression
moves coefficients off the lattice, an error the paper's model (rounding only) does not contain,
and would make every blown highlight look pasted. The image-level signal is the region score of the
map: per 32-px cell the mean block log L, and its most deviating 3×3-cell window *above* the
image's own cells in robust standard deviations (``_inconsistency.region_contrast``), so a whole
image that was compressed once more (a global re-save) does not score, a pasted region does.

All functions are pure: an RGB ``PIL.Image`` (and the file's 64 luma quantization steps in
natural order when it is a JPEG) in, arrays and numbers out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt
from PIL import Image

from semv.perception import _dq
from semv.perception._inconsistency import region_contrast

__all__ = ["BlockDJPG", "DJPGMap", "aligned_map", "block_djpg", "nonaligned_map", "region_score"]

Float = npt.NDArray[np.float64]

#: AC frequencies (u, v), zigzag order 1..9 (the low ones, with enough non-zero coefficients)
_FREQS: Final = _dq._AC
_Q1_MAX: Final = 25
_BINS: Final = 128
"""Quantized indices beyond ±128 are too rare to estimate; they carry L = 1."""
_ROUNDING_VAR: Final = 1.0 / 12.0
_LRT: Final = 17.4 / 2.0
"""ΔLL needed to use a frequency: χ²₁ at p = 0.001 / 25 candidates, halved."""
_MAX_LOG_LR: Final = float(np.log(50.0))
"""Per-coefficient |log L| cap: beyond it the models' tails, not the data, decide."""
_EM_ITER: Final = 60
_CELL: Final = 4
"""Blocks per cell side (32 px, as the other local-inconsistency signals)."""
_MIN_COEFFS: Final = 200
_PHASES: Final = 64
"""Phase bins of y / Q₁ mod 1 for the NA-DJPG EM (n(y) depends on the phase alone)."""


@dataclass(frozen=True)
class DJPGMap:
    """One hypothesis's block map: per 8×8 block Σ_f log L_f (positive = not following the
    first compression), the per-frequency Q₁ estimate (0 = no evidence), the mean α over the
    frequencies with evidence, the grid offset (row, col) of block (0, 0) in the image, and
    which blocks are usable (no clipped pixel)."""

    log_lr: Float
    q1: tuple[int, ...]
    alpha: float
    origin: tuple[int, int]
    valid: npt.NDArray[np.bool_] | None = None

    @property
    def informative(self) -> int:
        """How many frequencies carry evidence of a double compression."""
        return sum(1 for q in self.q1 if q > 0)


@dataclass(frozen=True)
class BlockDJPG:
    """Aligned and non-aligned maps with their region scores and regions (x, y, w, h)."""

    aligned: DJPGMap
    nonaligned: DJPGMap
    aligned_score: float
    nonaligned_score: float
    aligned_region: tuple[int, int, int, int] | None
    nonaligned_region: tuple[int, int, int, int] | None


def _crop_origin(img: Image.Image, side: int = 1024) -> tuple[int, int]:
    """The (top, left) offset ``_dq.luma`` crops at (a multiple of 8)."""
    return (
        max(0, (img.height - side) // 2) // 8 * 8,
        max(0, (img.width - side) // 2) // 8 * 8,
    )


def _unclipped(img: Image.Image, dy: int = 0, dx: int = 0) -> npt.NDArray[np.bool_]:
    """Per 8×8 block of the ``_dq.luma`` crop on the grid shifted by (dy, dx): True when no
    pixel has a channel at 0 or 255. Truncation to 0..255 after a decompression moves
    coefficients off the first compression's lattice, an error the model (rounding only) does
    not contain, so clipped blocks (blown highlights, black shadows) carry no evidence."""
    top, left = _crop_origin(img)
    side = 1024
    crop = img.crop((left, top, min(img.width, left + side), min(img.height, top + side)))
    a = np.asarray(crop.convert("RGB"))[dy:, dx:]
    h, w = a.shape[0] // 8 * 8, a.shape[1] // 8 * 8
    bad = (a[:h, :w].min(axis=2) == 0) | (a[:h, :w].max(axis=2) == 255)
    return np.asarray(~bad.reshape(h // 8, 8, w // 8, 8).any(axis=(1, 3)))


def _em_alphas(h: Float, p0s: Float, p1: Float) -> tuple[Float, Float]:
    """EM for the mixing weight α of p = α p0 + (1 − α) p1 given bin counts ``h`` (the
    paper's EM estimate with Q₁ fixed), for each row of ``p0s`` (one per candidate Q₁) at
    once; returns (α, log-likelihood gain over α = 0) per row."""
    ok = (h > 0) & (p1 > 0)
    h, p0s, p1 = h[ok], p0s[:, ok], p1[ok]
    total = max(float(h.sum()), 1.0)
    alpha = np.full((len(p0s), 1), 0.5)
    for _ in range(_EM_ITER):
        mix = alpha * p0s + (1 - alpha) * p1
        resp = alpha * p0s / np.maximum(mix, 1e-300)
        alpha = np.sum(h * resp, axis=1, keepdims=True) / total
    mix = alpha * p0s + (1 - alpha) * p1
    gain = np.sum(h * (np.log(np.maximum(mix, 1e-300)) - np.log(p1)), axis=1)
    return alpha[:, 0], gain


def _em_alpha(h: Float, p0: Float, p1: Float) -> tuple[float, float]:
    """``_em_alphas`` for one ``p0``."""
    alpha, gain = _em_alphas(h, p0[None, :], p1)
    return float(alpha[0]), float(gain[0])


def _normal_cdf(z: Float) -> Float:
    """Φ(z) via erf (Abramowitz & Stegun 1964, Eq. 7.1.26; |error| < 1.5e-7)."""
    x = np.abs(z) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = 1.0 - poly * np.exp(-x * x)
    return np.asarray(0.5 * (1.0 + np.sign(z) * erf), dtype=np.float64)


def _interval_mass(sorted_c: Float, lo: Float, hi: Float) -> Float:
    """Empirical P(C ∈ [lo, hi)) of the calibrated coefficients, add-half smoothed."""
    n = len(sorted_c)
    count = np.searchsorted(sorted_c, hi) - np.searchsorted(sorted_c, lo)
    return np.asarray((count + 0.5) / (n + 0.5 * len(lo)), dtype=np.float64)


def _h1_model(calib: Float, q2: float) -> Float:
    """p(x | H₁) over the index bins −128..128: the calibrated coefficients quantized by Q₂."""
    x = np.arange(-_BINS, _BINS + 1, dtype=np.float64)
    p1 = _interval_mass(calib, (x - 0.5) * q2, (x + 0.5) * q2)
    return np.asarray(p1 / p1.sum(), dtype=np.float64)


def _h0_model(calib: Float, q2: float, q1: int) -> Float:
    """p(x | H₀; Q₁) over the index bins −128..128 (module docstring)."""
    x = np.arange(-_BINS, _BINS + 1, dtype=np.float64)
    kmax = int(np.ceil((_BINS + 1) * q2 / q1)) + 1
    k = np.arange(-kmax, kmax + 1, dtype=np.float64)
    mass = _interval_mass(calib, (k - 0.5) * q1, (k + 0.5) * q1)
    centre = np.rint(k * q1 / q2)
    sigma = np.sqrt(_ROUNDING_VAR)
    p0 = np.zeros_like(x)
    for d in (-1.0, 0.0, 1.0):
        target = centre + d
        share = _normal_cdf(((target + 0.5) * q2 - k * q1) / sigma) - _normal_cdf(
            ((target - 0.5) * q2 - k * q1) / sigma
        )
        inside = np.abs(target) <= _BINS
        np.add.at(p0, (target[inside] + _BINS).astype(np.int64), (mass * share)[inside])
    p0 = np.maximum(p0, 1e-6 * float(p0.max(initial=1e-12)))
    return np.asarray(p0 / p0.sum(), dtype=np.float64)


def aligned_map(img: Image.Image, q_luma: tuple[int, ...] | None = None) -> DJPGMap:
    """A-DJPG block likelihood map (Bianchi & Piva 2012): see the module docstring.
    ``q_luma`` are the file's luma steps (natural order); None means Q₂ = 1."""
    y = _dq.luma(img)
    coeffs = _dq.block_dct(y)
    calib_all = _dq.block_dct(y, 4, 4)
    rows, cols = coeffs.shape[:2]
    valid = _unclipped(img)[:rows, :cols]
    q = np.asarray(q_luma if q_luma else (1,) * 64, dtype=np.float64).reshape(8, 8)
    log_lr = np.zeros((rows, cols), dtype=np.float64)
    q1s: list[int] = []
    alphas: list[float] = []
    for u, v in _FREQS:
        q2 = float(q[u, v])
        idx = np.rint(coeffs[:, :, u, v] / q2)
        inside = np.abs(idx) <= _BINS
        calib = np.sort(calib_all[:, :, u, v].ravel())
        if int(np.count_nonzero(idx[valid])) < _MIN_COEFFS or calib.size == 0:
            q1s.append(0)
            continue
        h = np.bincount((idx[inside & valid] + _BINS).astype(np.int64), minlength=2 * _BINS + 1)
        candidates = [q1 for q1 in range(1, _Q1_MAX + 1) if q1 != round(q2)]
        p1 = _h1_model(calib, q2)
        p0s = np.stack([_h0_model(calib, q2, q1) for q1 in candidates])
        alphas_q1, gains = _em_alphas(h.astype(np.float64), p0s, p1)
        best = int(np.argmax(gains))  # the first of equal gains, as the smaller Q₁
        if gains[best] < _LRT:
            q1s.append(0)
            continue
        q1, alpha, p0 = candidates[best], float(alphas_q1[best]), p0s[best]
        table = np.clip(np.log(p1) - np.log(p0), -_MAX_LOG_LR, _MAX_LOG_LR)
        pos = (np.clip(idx, -_BINS, _BINS) + _BINS).astype(np.int64)
        log_lr += np.where(inside, table[pos], 0.0)
        q1s.append(q1)
        alphas.append(alpha)
    return DJPGMap(
        log_lr=log_lr,
        q1=tuple(q1s),
        alpha=float(np.mean(alphas)) if alphas else 0.0,
        origin=_crop_origin(img),
        valid=valid,
    )


def _periodic_factor(y: Float, q1: int, sigma: float) -> Float:
    """n(y) = Q₁ Σ_k N(y − k Q₁; σ²), the three nearest lattice points (mean 1 per period)."""
    r = y - q1 * np.rint(y / q1)
    total = np.zeros_like(y)
    for k in (-1.0, 0.0, 1.0):
        d = r - k * q1
        total += np.exp(-0.5 * (d / sigma) ** 2)
    return np.asarray(total * q1 / (sigma * np.sqrt(2 * np.pi)), dtype=np.float64)


def _error_sigma(y: Float, q_luma: tuple[int, ...] | None) -> float:
    """σₑ of the last compression's error seen on a shifted grid (module docstring)."""
    if not q_luma:
        return float(np.sqrt(2 * _ROUNDING_VAR))
    q = np.asarray(q_luma, dtype=np.float64).reshape(8, 8)
    energy = np.mean(_dq.block_dct(y) ** 2, axis=(0, 1))
    return float(np.sqrt(_ROUNDING_VAR + np.mean(np.minimum(q**2 / 12.0, energy))))


def nonaligned_map(
    img: Image.Image,
    q_luma: tuple[int, ...] | None = None,
    shift: tuple[int, int] | None = None,
) -> DJPGMap:
    """NA-DJPG block likelihood map (Bianchi & Piva 2012) on the first compression's grid
    ``shift`` = (dy, dx) (estimated by ``_dq.nonaligned_dq`` when None)."""
    y = _dq.luma(img)
    if shift is None:
        shift = _dq.nonaligned_dq(img)[1]
    dy, dx = shift
    top, left = _crop_origin(img)
    origin = (top + dy, left + dx)
    if (dy, dx) == (0, 0):
        return DJPGMap(np.zeros((0, 0)), (0,) * len(_FREQS), 0.0, origin)
    sigma = _error_sigma(y, q_luma)
    coeffs = _dq.block_dct(y, dy, dx)
    valid = _unclipped(img, dy, dx)[: coeffs.shape[0], : coeffs.shape[1]]
    log_lr = np.zeros(coeffs.shape[:2], dtype=np.float64)
    q1s: list[int] = []
    alphas: list[float] = []
    for u, v in _FREQS:
        c = coeffs[:, :, u, v]
        best: tuple[float, int, float] | None = None
        for q1 in range(2, _Q1_MAX + 1):
            use = (np.abs(c) >= q1 / 2) & valid
            if int(use.sum()) < _MIN_COEFFS:
                continue
            phase = np.mod(c[use] / q1, 1.0)
            h = np.bincount((phase * _PHASES).astype(np.int64) % _PHASES, minlength=_PHASES)
            n = _periodic_factor((np.arange(_PHASES) + 0.5) / _PHASES * q1, q1, sigma)
            alpha, gain = _em_alpha(h.astype(np.float64), n, np.ones_like(n))
            if best is None or gain > best[0]:
                best = (gain, q1, alpha)
        if best is None or best[0] < _LRT:
            q1s.append(0)
            continue
        _, q1, alpha = best
        use = np.abs(c) >= q1 / 2
        n = _periodic_factor(c, q1, sigma)
        log_n = np.clip(-np.log(np.maximum(n, 1e-300)), -_MAX_LOG_LR, _MAX_LOG_LR)
        log_lr += np.where(use, log_n, 0.0)
        q1s.append(q1)
        alphas.append(alpha)
    alpha_mean = float(np.mean(alphas)) if alphas else 0.0
    return DJPGMap(log_lr, tuple(q1s), alpha_mean, origin, valid)


def _cells(
    log_lr: Float, valid: npt.NDArray[np.bool_] | None = None
) -> tuple[Float, npt.NDArray[np.bool_]]:
    """Per 4×4-block (32-px) cell the mean block log L over its usable blocks, and whether
    at least half of the cell's blocks are usable."""
    rows, cols = log_lr.shape[0] // _CELL, log_lr.shape[1] // _CELL
    if rows == 0 or cols == 0:
        return np.zeros((0, 0)), np.zeros((0, 0), dtype=bool)
    ok = np.ones_like(log_lr, dtype=bool) if valid is None else valid
    shape = (rows, _CELL, cols, _CELL)
    total = np.where(ok, log_lr, 0.0)[: rows * _CELL, : cols * _CELL].reshape(shape).sum((1, 3))
    count = ok[: rows * _CELL, : cols * _CELL].reshape(shape).sum(axis=(1, 3))
    cells = np.asarray(total / np.maximum(count, 1), dtype=np.float64)
    return cells, np.asarray(count >= _CELL * _CELL / 2)


def region_score(m: DJPGMap) -> tuple[float, tuple[int, int, int, int] | None]:
    """Region score (``region_contrast``, high side) of the map's cells and its pixel box."""
    if m.informative == 0 or m.log_lr.size == 0:
        return 0.0, None
    cells, usable = _cells(m.log_lr, m.valid)
    if cells.size == 0:
        return 0.0, None
    found = region_contrast(cells, valid=usable, side="high")
    if found.size == 0:
        return 0.0, None
    side = 8 * _CELL
    row, col = found.cell
    box = (m.origin[1] + col * side, m.origin[0] + row * side, found.size * side, found.size * side)
    return found.score, box


def block_djpg(img: Image.Image, q_luma: tuple[int, ...] | None = None) -> BlockDJPG:
    """Both likelihood maps of an RGB image and their region scores (module docstring)."""
    a = aligned_map(img, q_luma)
    na = nonaligned_map(img, q_luma)
    a_score, a_box = region_score(a)
    na_score, na_box = region_score(na)
    return BlockDJPG(a, na, a_score, na_score, a_box, na_box)
