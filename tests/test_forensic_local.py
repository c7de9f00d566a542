"""Local-inconsistency forensic signals (noise level, block artifact grid, CFA trace) on
hand-made images whose answer is known by construction: a region spliced in with another noise
level, another JPEG grid or without the demosaicing trace must score higher than the same image
untouched, and the reported region must overlap the splice."""

from __future__ import annotations

import io

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

from semv.config import ForensicsConfig
from semv.perception import _bag, _cfa, _noise_local
from semv.perception._inconsistency import region_contrast
from semv.perception.manipulation import forensic_signals

Float = npt.NDArray[np.float64]
SPLICE = (160, 96, 128, 128)
"""x, y, w, h of the spliced square in every test image (512 × 384)."""


def cartoon(seed: int, w: int = 512, h: int = 384) -> Float:
    """Piecewise-constant discs, slightly blurred: edges give the heavy-tailed band-pass
    statistics of photographs (what the kurtosis estimator relies on)."""
    rng = np.random.default_rng(seed)
    a = np.full((h, w), 128.0)
    for _ in range(150):
        x, y, r = int(rng.integers(0, w)), int(rng.integers(0, h)), int(rng.integers(8, 60))
        cv2.circle(a, (x, y), r, float(rng.uniform(30, 220)), -1)
    a = cv2.GaussianBlur(a, (0, 0), 1.0)
    return np.repeat(a[:, :, None], 3, axis=2)


def pink(seed: int, w: int = 512, h: int = 384) -> Float:
    """1/f ("pink") noise: the amplitude spectrum of natural photographs, textured everywhere
    (JPEG's block grid is visible in every block, as in a detailed photo)."""
    rng = np.random.default_rng(seed)
    fy, fx = np.fft.fftfreq(h)[:, None], np.fft.fftfreq(w)[None, :]
    amp = 1.0 / np.maximum(np.hypot(fx, fy), 1.0 / max(w, h))
    chans = [np.real(np.fft.ifft2(amp * np.exp(2j * np.pi * rng.random((h, w))))) for _ in "rgb"]
    img = np.stack(chans, axis=2)
    return np.asarray((img - img.mean()) / img.std() * 45 + 128 + rng.normal(0, 2, (h, w, 3)))


def to_image(a: Float) -> Image.Image:
    return Image.fromarray(np.clip(np.rint(a), 0, 255).astype(np.uint8))


def jpeg(img: Image.Image, quality: int) -> Image.Image:
    buf = io.BytesIO()
    img.convert("RGB").save(buf, "JPEG", quality=quality)
    buf.seek(0)
    with Image.open(buf) as out:
        return out.convert("RGB")


def overlaps(box: tuple[int, int, int, int] | None, other: tuple[int, int, int, int]) -> bool:
    if box is None:
        return False
    x, y, w, h = box
    ox, oy, ow, oh = other
    return x < ox + ow and ox < x + w and y < oy + oh and oy < y + h


def paste(host: Float, patch: Float) -> Float:
    x, y, w, h = SPLICE
    out = host.copy()
    out[y : y + h, x : x + w] = patch[:h, :w]
    return out


# ---- the shared statistic ----------------------------------------------------------------------


def test_region_contrast_finds_the_deviating_window_and_ignores_a_global_gain() -> None:
    rng = np.random.default_rng(0)
    cells = rng.normal(1.0, 0.1, size=(12, 16))
    cells[4:7, 8:11] += 1.0
    found = region_contrast(cells, side="high")
    assert found.cell == (4, 8) and found.size == 3
    assert found.score > 5.0
    scaled = region_contrast(3.0 * cells + 7.0, side="high")
    assert abs(scaled.score - found.score) < 1e-3 * found.score
    assert region_contrast(cells, side="low").score < found.score
    assert region_contrast(np.ones((2, 2))).score == 0.0


def test_a_flat_graphic_whose_cells_are_mostly_equal_gets_a_finite_contrast() -> None:
    # 60 % of the cells share one value (a flat background): the MAD is 0, and dividing by it
    # turned any other cell into a z of millions (a news graphic scored p = 1.0)
    rng = np.random.default_rng(1)
    cells = rng.normal(0.0, 5.0, size=(12, 16))
    flat = rng.random(cells.shape) < 0.6
    cells[flat] = -1.0
    found = region_contrast(cells, side="high")
    deviation = np.abs(cells - np.median(cells))
    assert np.median(deviation) == 0.0
    assert 0.0 < found.score < 10.0
    # a real region on the same background still stands out
    cells[4:7, 8:11] = 40.0
    assert region_contrast(cells, side="high").cell == (4, 8)
    assert region_contrast(cells, side="high").score > 2 * found.score
    # all cells equal: nothing departs
    assert region_contrast(np.full((6, 6), 3.0)).score == 0.0


# ---- noise level -------------------------------------------------------------------------------


def test_wavelet_median_recovers_the_noise_sigma_of_a_flat_image() -> None:
    """Donoho's estimator σ̂ = median|HH₁| / 0.6745 (Mahdian & Saic Eq. 4) on pure noise."""
    rng = np.random.default_rng(1)
    grey = 128.0 + rng.normal(0.0, 3.0, size=(256, 256))
    sigma = _noise_local.wavelet_sigma(grey)
    assert sigma.shape == (8, 8)
    assert abs(float(np.median(sigma)) - 3.0) < 0.3


def test_kurtosis_estimator_sees_the_added_noise_through_texture() -> None:
    """Lyu et al. Eq. 10 on a textured scene plus σ = 4 noise: the estimate is near 4 where the
    wavelet median of the same cells is inflated by the edges."""
    rng = np.random.default_rng(2)
    grey = cartoon(2)[:, :, 0] + rng.normal(0.0, 4.0, size=(384, 512))
    kurt = _noise_local.kurtosis_sigma(grey)
    wav = _noise_local.wavelet_sigma(grey)
    valid = kurt > 0
    assert valid.mean() > 0.5
    assert abs(float(np.median(kurt[valid])) - 4.0) < abs(float(np.median(wav)) - 4.0) + 0.5


def test_a_region_with_another_noise_level_raises_both_noise_signals() -> None:
    for seed in (3, 4):
        rng = np.random.default_rng(seed)
        host = cartoon(seed) + rng.normal(0.0, 2.0, size=(384, 512, 3))
        donor = cartoon(seed + 100) + rng.normal(0.0, 6.0, size=(384, 512, 3))
        clean = _noise_local.noise_inconsistency(to_image(host))
        spliced = _noise_local.noise_inconsistency(to_image(paste(host, donor)))
        assert spliced.wavelet > clean.wavelet + 2.0
        assert spliced.kurtosis > clean.kurtosis + 2.0
        assert overlaps(spliced.region, SPLICE)


# ---- block artifact grid -----------------------------------------------------------------------


def test_a_jpeg_has_a_block_grid_and_an_uncompressed_image_does_not() -> None:
    img = to_image(cartoon(5) + np.random.default_rng(5).normal(0, 2, size=(384, 512, 3)))
    assert _bag.bag(jpeg(img, 70)).grid > _bag.bag(img).grid + 0.3
    assert _bag.bag_map(img).shape == (384, 512)


def test_a_patch_off_the_host_grid_or_never_compressed_raises_the_bag_inconsistency() -> None:
    """Host compressed at quality 70; pasted: a patch cut from another JPEG 3 columns and 5 rows
    off its grid, or a patch never compressed; all saved at 90 (Li et al.: the patch's grid
    lines fall inside the host's blocks, or are missing)."""
    for seed in (6, 7):
        host = np.asarray(jpeg(to_image(pink(seed)), 70), np.float64)
        other = np.asarray(jpeg(to_image(pink(seed + 100)), 60), np.float64)
        clean = _bag.bag(jpeg(to_image(host), 90))
        for patch in (other[5:, 3:], pink(seed + 100)):
            spliced = _bag.bag(jpeg(to_image(paste(host, patch)), 90))
            assert spliced.inconsistency > clean.inconsistency + 1.0
            assert overlaps(spliced.region, SPLICE)


# ---- CFA trace ---------------------------------------------------------------------------------


def demosaic(a: Float) -> Float:
    """RGGB Bayer sampling followed by bilinear interpolation (Popescu & Farid §2)."""
    mask = np.zeros_like(a)
    mask[0::2, 0::2, 0] = 1
    mask[0::2, 1::2, 1] = 1
    mask[1::2, 0::2, 1] = 1
    mask[1::2, 1::2, 2] = 1
    green = np.array([[0, 1, 0], [1, 4, 1], [0, 1, 0]]) / 4.0
    red_blue = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]]) / 4.0
    out = np.empty_like(a)
    for c, kernel in ((0, red_blue), (1, green), (2, red_blue)):
        out[:, :, c] = cv2.filter2D(a[:, :, c] * mask[:, :, c], -1, kernel)
    return out


def test_a_region_without_the_demosaicing_trace_raises_the_cfa_signal() -> None:
    for seed in (8, 9):
        rng = np.random.default_rng(seed)
        host = demosaic(cartoon(seed) + rng.normal(0, 3, size=(384, 512, 3)))
        donor = cartoon(seed + 100) + rng.normal(0, 3, size=(384, 512, 3))
        clean = _cfa.cfa(to_image(host))
        spliced = _cfa.cfa(to_image(paste(host, donor)))
        assert clean.strength > 0.1
        assert spliced.inconsistency > clean.inconsistency + 2.0
        assert overlaps(spliced.region, SPLICE)


def test_without_any_cfa_trace_there_is_nothing_for_a_region_to_lack() -> None:
    rng = np.random.default_rng(10)
    plain = _cfa.cfa(to_image(cartoon(10) + rng.normal(0, 3, size=(384, 512, 3))))
    demosaiced = _cfa.cfa(to_image(demosaic(cartoon(10) + rng.normal(0, 3, size=(384, 512, 3)))))
    assert abs(plain.strength) < 0.1 * demosaiced.strength
    assert plain.inconsistency < 1.0


# ---- wiring ------------------------------------------------------------------------------------


def test_forensic_signals_measures_only_the_requested_local_signals() -> None:
    img = to_image(cartoon(11) + np.random.default_rng(11).normal(0, 2, size=(384, 512, 3)))
    sig = forensic_signals(img, ForensicsConfig(), features=("noise_wavelet", "bag", "cfa"))
    assert set(sig.values) == {"noise_wavelet", "bag", "cfa"}
    assert all(v >= 0.0 for v in sig.values.values())
    assert sig.noise_region is not None
