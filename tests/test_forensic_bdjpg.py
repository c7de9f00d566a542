"""Block-grained double-JPEG likelihood maps (Bianchi & Piva 2012) on hand-made forgeries whose
answer is known by construction: a JPEG decoded, given a patch from another image and saved
again must score higher than the same JPEG saved again untouched, with the reported region on
the patch; the estimated primary steps must be the first save's IJG table."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image

from semv.config import ForensicsConfig
from semv.perception import _bdjpg
from semv.perception._jpeg import _LUMA, ijg_table
from semv.perception.manipulation import forensic_signals, jpeg_params

Float = npt.NDArray[np.float64]
SPLICE = (160, 96, 128, 128)
"""x, y, w, h of the pasted square in every synthetic image (512 × 384)."""
ZIGZAG_01 = 1
"""Natural-order index of the (0, 1) AC frequency, the first of the analysed ones."""
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def texture(seed: int, w: int = 512, h: int = 384) -> Float:
    """1/f noise (the amplitude spectrum of photographs) kept inside 0..255 (no clipping)."""
    rng = np.random.default_rng(seed)
    fy, fx = np.fft.fftfreq(h)[:, None], np.fft.fftfreq(w)[None, :]
    amp = 1.0 / np.maximum(np.hypot(fx, fy), 1.0 / max(w, h))
    chans = [np.real(np.fft.ifft2(amp * np.exp(2j * np.pi * rng.random((h, w))))) for _ in "rgb"]
    img = np.stack(chans, axis=2)
    return np.asarray(np.clip((img - img.mean()) / img.std() * 28 + 128, 8, 247))


def to_image(a: Float) -> Image.Image:
    return Image.fromarray(np.clip(np.rint(a), 0, 255).astype(np.uint8))


def save(img: Image.Image, quality: int, fmt: str = "JPEG") -> tuple[Image.Image, tuple[int, ...]]:
    """``img`` saved and decoded again, with the luma steps of the file (() for PNG)."""
    buf = io.BytesIO()
    img.save(buf, fmt, quality=quality)
    buf.seek(0)
    with Image.open(buf) as raw:
        _, q_luma = jpeg_params(raw)
        return raw.convert("RGB"), q_luma or ()


def paste(host: Image.Image, patch: Image.Image, at: tuple[int, int] = SPLICE[:2]) -> Image.Image:
    out = host.copy()
    out.paste(patch.crop((0, 0, SPLICE[2], SPLICE[3])), at)
    return out


def aligned(
    img: Image.Image, q_luma: tuple[int, ...] | None
) -> tuple[float, _bdjpg.DJPGMap, tuple[int, int, int, int] | None]:
    """The aligned map's region score, the map and the region (no non-aligned grid search)."""
    m = _bdjpg.aligned_map(img, q_luma)
    score, box = _bdjpg.region_score(m)
    return score, m, box


def overlaps(box: tuple[int, int, int, int] | None, other: tuple[int, int, int, int]) -> bool:
    if box is None:
        return False
    x, y, w, h = box
    ox, oy, ow, oh = other
    return x < ox + ow and ox < x + w and y < oy + oh and oy < y + h


@pytest.mark.parametrize(("q1", "q2"), [(60, 85), (75, 90), (50, 80)])
def test_a_pasted_patch_lacks_the_first_compression_on_the_aligned_map(q1: int, q2: int) -> None:
    """A-DJPG: host saved at q1, a never-compressed patch pasted, the whole saved at q2 > q1."""
    host, _ = save(to_image(texture(1)), q1)
    clean, q_clean = save(host, q2)
    forged, q_forged = save(paste(host, to_image(texture(50))), q2)
    before, before_map, _ = aligned(clean, q_clean)
    after, _, region = aligned(forged, q_forged)
    assert after > 3 * max(before, 1.0)
    assert overlaps(region, SPLICE)
    # the EM estimate of the primary step at (0, 1) is the first save's IJG step
    assert before_map.q1[0] == ijg_table(_LUMA, q1)[ZIGZAG_01]


def test_a_patch_from_another_jpeg_off_the_grid_is_found_too() -> None:
    """The donor was itself a JPEG (quality 70) and lands off the host's 8×8 grid."""
    host, _ = save(to_image(texture(2)), 60)
    donor, _ = save(to_image(texture(51)), 70)
    donor = donor.crop((3, 5, donor.width, donor.height))
    clean, q_clean = save(host, 85)
    forged, q_forged = save(paste(host, donor), 85)
    before, _, _ = aligned(clean, q_clean)
    after, _, region = aligned(forged, q_forged)
    assert after > 3 * max(before, 1.0)
    assert overlaps(region, SPLICE)


def test_a_png_save_of_an_edited_jpeg_is_analysed_with_unit_steps() -> None:
    """No JPEG container (Q₂ = 1): the host's single JPEG lattice is the background's trace."""
    host, _ = save(to_image(texture(3)), 70)
    clean, _ = save(host, 0, "PNG")
    forged, _ = save(paste(host, to_image(texture(52))), 0, "PNG")
    before, before_map, _ = aligned(clean, None)
    after, _, region = aligned(forged, None)
    assert before_map.informative > 0
    assert after > 3 * max(before, 1.0)
    assert overlaps(region, SPLICE)


def test_a_pasted_patch_on_a_cropped_jpeg_shows_on_the_nonaligned_map() -> None:
    """NA-DJPG: the host was cropped by (3, 5) px after its first save, so its first grid is
    shifted by (5, 3) (mod 8) against the last one; the patch has no first grid at all."""
    big, _ = save(to_image(texture(4, 560, 420)), 60)
    host = big.crop((5, 3, 5 + 512, 3 + 384))
    clean, q_clean = save(host, 85)
    forged, q_forged = save(paste(host, to_image(texture(53))), 85)
    before = _bdjpg.block_djpg(clean, q_clean)
    after = _bdjpg.block_djpg(forged, q_forged)
    assert before.nonaligned.origin == (5, 3)
    assert after.nonaligned_score > 2 * max(before.nonaligned_score, 0.5)
    assert overlaps(after.nonaligned_region, SPLICE)


def test_a_single_compression_has_no_region_to_report() -> None:
    """One save, nothing pasted: the maps have no structure, the scores stay far below a
    forgery's (the forgery of the first test, same texture and qualities)."""
    single, q_single = save(to_image(texture(1)), 85)
    host, _ = save(to_image(texture(1)), 60)
    forged, q_forged = save(paste(host, to_image(texture(50))), 85)
    once = _bdjpg.block_djpg(single, q_single)
    assert once.nonaligned_score < 1.0
    assert once.aligned_score < aligned(forged, q_forged)[0] / 3


def test_clipped_blocks_carry_no_evidence() -> None:
    """A blown-out square (all 255) on a double-compressed image is not a pasted region."""
    base = texture(5)
    base[96:224, 160:288] = 255.0
    host, _ = save(to_image(base), 60)
    clean, q_clean = save(host, 85)
    result = _bdjpg.aligned_map(clean, q_clean)
    assert result.valid is not None
    assert not result.valid[12:28, 20:36].any()
    assert result.valid.mean() > 0.7


def test_forensic_signals_expose_the_two_scores_and_the_region() -> None:
    host, _ = save(to_image(texture(6)), 60)
    forged = paste(host, to_image(texture(54)))
    buf = io.BytesIO()
    forged.save(buf, "JPEG", quality=85)
    buf.seek(0)
    with Image.open(buf) as raw:
        quality, q_luma = jpeg_params(raw)
        rgb = raw.convert("RGB")
    sig = forensic_signals(
        rgb,
        ForensicsConfig(),
        quality=quality,
        q_luma=q_luma,
        features=("bdjpg_aligned", "bdjpg_nonaligned"),
    )
    assert set(sig.values) == {"bdjpg_aligned", "bdjpg_nonaligned"}
    assert sig.values["bdjpg_aligned"] > sig.values["bdjpg_nonaligned"]
    assert overlaps(sig.bdjpg_region, SPLICE)


@pytest.mark.skipif(not (DATA / "exif-samples").is_dir(), reason="shared data absent")
def test_a_real_photo_with_a_pasted_object_scores_above_the_same_photo_resaved() -> None:
    """A camera JPEG (training split of the forensic corpus) re-saved at quality 90, and the
    same photo with a 160-px object from another camera photo pasted off-grid, saved at 90."""
    folder = DATA / "exif-samples" / "jpg" / "gps"
    with Image.open(folder / "DSCN0010.jpg") as raw:
        photo = raw.convert("RGB")
    with Image.open(folder / "DSCN0025.jpg") as raw:
        donor = raw.convert("RGB").crop((203, 101, 363, 261))
    clean, q_clean = save(photo, 90)
    forged_img = photo.copy()
    forged_img.paste(donor, (221, 147))
    forged, q_forged = save(forged_img, 90)
    before, _, _ = aligned(clean, q_clean)
    after, _, region = aligned(forged, q_forged)
    assert after > 2 * before
    assert overlaps(region, (221, 147, 160, 160))
