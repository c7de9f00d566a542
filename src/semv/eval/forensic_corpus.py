"""The declared public corpus for fitting and measuring the forensic manipulation model.

Both classes, from ``../shared/data`` (never the COSMOS sample, which is a final check only):

* **real tampered**: the CASIA v2 samples (``casia2-samples/Tp_*``: splicing and copy-move,
  Photoshop-made, with gold masks);
* **real authentic**: the camera and phone photos of ``exif-samples`` and
  ``metadata-extractor-images`` whose short side is at least 256 px (thumbnails carry no
  usable forensic signal);
* **derived** (declared, deterministic): from each authentic photo (central crop of at most
  768 px on the JPEG grid) three *authentic recirculations* — the crop re-saved, a resize by
  0.5-0.9 re-saved, a crop shifted off the 8×8 grid re-saved — and three *tamperings* —
  a splice of a patch from another photo of the same split, a copy-move inside the photo, and
  that splice recirculated (resized to 80 % and re-saved at quality 75). JPEG qualities and
  geometry are drawn from a generator seeded by the source's name.
* **web recirculation** (corpus v2, added for robustness to how news photos are published):
  the *whole* photo downscaled (Lanczos) to a long side of 640-1024 px and saved at quality
  65-90 (``web``); that image resized by 0.75-0.95 and saved again at 70-90 (``web-twice``,
  a second platform); and the splice put through the same two generations (``splice-web``,
  tampered). Drawn after the v1 draws from the same generator, so the v1 images are unchanged
  (``corpus(..., web=False)`` is the v1 corpus).
* **CMS recirculation** (corpus v3, added because a news photo is typically published by a
  platform at a coarse quality and then saved again, finer, at the same size by a CMS or an
  editor: an *aligned double compression, coarse then fine*, over the whole image, which none
  of the v1/v2 recirculations contain): the whole photo downscaled to a long side of
  640-1280 px and saved at quality 50-75, then saved again unchanged at quality 85-95 (``cms``,
  authentic); and the same platform copy with a patch from another photo of the split pasted
  (scaled by 0.7-1.3 half the time) and saved at that same fine quality (``paste-cms``,
  tampered: a real photo taken from the web, an object pasted, re-compressed). The two differ
  only by the paste. Drawn after the v2 draws, so the v1 and v2 images are unchanged
  (``corpus(..., cms=False)`` is the v2 corpus).

**Split**: by source group (a derived image goes with its photo; a splice takes its patch from
the same split only; photos that are near-duplicates under rotation or mirroring — pHash distance
≤ 10 for one of the eight views, e.g. the EXIF-orientation samples, one photo saved four ways — form
one group named after its first member): ``sha256(group name)`` mod 3 == 0 is the held-out
split, the rest trains. The split is fixed by the names, never chosen by looking at scores.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
from PIL import Image

from semv.perception.manipulation import jpeg_params

__all__ = ["CorpusImage", "corpus", "real_sources", "split_of"]

_MIN_SIDE: Final = 256
_CROP: Final = 768
_DUPLICATE: Final = 10
AUTHENTIC_DIRS: Final = ("exif-samples", "metadata-extractor-images")
TAMPERED_DIR: Final = "casia2-samples"


@dataclass(frozen=True)
class CorpusImage:
    """One image of the corpus with its label (1 = manipulated), origin and split."""

    name: str
    source: str
    label: int
    kind: str
    split: str
    image: Image.Image
    quality: int | None
    q_luma: tuple[int, ...] | None

    @property
    def real(self) -> bool:
        return self.kind in ("casia", "camera")


def split_of(source: str) -> str:
    """``test`` when sha256(source) mod 3 == 0, else ``train`` (fixed by the name alone)."""
    return "test" if int(hashlib.sha256(source.encode()).hexdigest(), 16) % 3 == 0 else "train"


def _decode(data: bytes) -> tuple[Image.Image, int | None, tuple[int, ...] | None]:
    with Image.open(io.BytesIO(data)) as raw:
        quality, q_luma = jpeg_params(raw)
        raw.load()
        rgb = raw.convert("RGB")
    return rgb, quality, q_luma


def _jpeg(img: Image.Image, quality: int) -> tuple[Image.Image, int | None, tuple[int, ...] | None]:
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    return _decode(buf.getvalue())


def _groups(paths: list[Path], data: Path) -> dict[Path, str]:
    """Each path's group: the name of the first earlier path it near-duplicates under one of
    the eight rotations and mirrorings (pHash distance ≤ 10), else its own name."""
    import imagehash

    hashes: list[tuple[Path, list[imagehash.ImageHash]]] = []
    group: dict[Path, str] = {}
    for path in paths:
        with Image.open(path) as raw:
            rgb = raw.convert("RGB")
        rotations = [
            imagehash.phash(view.rotate(a, expand=True))
            for view in (rgb, rgb.transpose(Image.Transpose.FLIP_LEFT_RIGHT))
            for a in (0, 90, 180, 270)
        ]
        name = str(path.relative_to(data))
        for other, other_hashes in hashes:
            if min(h - other_hashes[0] for h in rotations) <= _DUPLICATE:
                name = group[other]
                break
        group[path] = name
        hashes.append((path, rotations))
    return group


def real_sources(data: Path) -> tuple[list[Path], list[Path]]:
    """(tampered CASIA images, authentic camera photos with short side ≥ 256 px)."""
    tampered = sorted(
        p for p in (data / TAMPERED_DIR).glob("Tp_*") if not p.name.endswith("_gt.png")
    )
    authentic: list[Path] = []
    for folder in AUTHENTIC_DIRS:
        for path in sorted((data / folder).rglob("*")):
            if path.suffix.lower() not in (".jpg", ".jpeg") or not path.is_file():
                continue
            with Image.open(path) as raw:
                if min(raw.size) >= _MIN_SIDE:
                    authentic.append(path)
    return tampered, authentic


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(int(hashlib.sha256(name.encode()).hexdigest()[:12], 16))


def _base(img: Image.Image) -> Image.Image:
    """Central crop of at most 768 px per side on a multiple-of-8 offset (grid kept)."""
    left = max(0, (img.width - _CROP) // 2) // 8 * 8
    top = max(0, (img.height - _CROP) // 2) // 8 * 8
    return img.crop((left, top, min(img.width, left + _CROP), min(img.height, top + _CROP)))


def _paste(host: Image.Image, patch: Image.Image, rng: np.random.Generator) -> Image.Image:
    out = host.copy()
    x = int(rng.integers(0, max(1, host.width - patch.width)))
    y = int(rng.integers(0, max(1, host.height - patch.height)))
    out.paste(patch, (x, y))
    return out


def _patch_size(img: Image.Image, rng: np.random.Generator) -> tuple[int, int]:
    side = float(rng.uniform(0.18, 0.32))
    return max(24, int(img.width * side)), max(24, int(img.height * side))


def _cut(donor: Image.Image, pw: int, ph: int, rng: np.random.Generator) -> Image.Image:
    """A ``pw`` × ``ph`` patch of ``donor`` at a random place, scaled by 0.7-1.3 (bicubic)
    half the time."""
    px = int(rng.integers(0, max(1, donor.width - pw)))
    py = int(rng.integers(0, max(1, donor.height - ph)))
    patch = donor.crop((px, py, px + pw, py + ph))
    if rng.random() < 0.5:
        s = float(rng.uniform(0.7, 1.3))
        patch = patch.resize((max(16, int(pw * s)), max(16, int(ph * s))), Image.Resampling.BICUBIC)
    return patch


Decoded = tuple[Image.Image, int | None, tuple[int, ...] | None]


def _web(img: Image.Image, rng: np.random.Generator) -> tuple[Decoded, Decoded]:
    """Two publication generations of ``img``: downscaled (Lanczos) to a long side of
    640-1024 px and saved at quality 65-90; then resized by 0.75-0.95 and saved at 70-90."""
    f = min(1.0, float(rng.uniform(640, 1024)) / max(img.size))
    size = (max(64, round(img.width * f)), max(64, round(img.height * f)))
    first = _jpeg(img.resize(size, Image.Resampling.LANCZOS), int(rng.integers(65, 91)))
    g = float(rng.uniform(0.75, 0.95))
    size = (max(64, round(first[0].width * g)), max(64, round(first[0].height * g)))
    second = _jpeg(first[0].resize(size, Image.Resampling.LANCZOS), int(rng.integers(70, 91)))
    return first, second


def _cms(img: Image.Image, donor: Image.Image, rng: np.random.Generator) -> tuple[Decoded, Decoded]:
    """(authentic, tampered) CMS recirculations of ``img``: a platform copy (long side
    640-1280 px, quality 50-75) saved again at quality 85-95, as it is and with a patch of
    ``donor`` pasted (scaled by 0.7-1.3 half the time)."""
    f = min(1.0, float(rng.uniform(640, 1280)) / max(img.size))
    size = (max(64, round(img.width * f)), max(64, round(img.height * f)))
    coarse, _, _ = _jpeg(img.resize(size, Image.Resampling.LANCZOS), int(rng.integers(50, 76)))
    fine = int(rng.integers(85, 96))
    pw, ph = _patch_size(coarse, rng)
    patch = _cut(donor, min(pw, donor.width), min(ph, donor.height), rng)
    return _jpeg(coarse, fine), _jpeg(_paste(coarse, patch, rng), fine)


def _derived(
    name: str,
    base: Image.Image,
    donor: Image.Image,
    full: Image.Image,
    *,
    web: bool = True,
    cms: bool = True,
) -> Iterator[tuple[str, int, str, Image.Image, int | None, tuple[int, ...] | None]]:
    rng = _rng(name)
    q = [int(v) for v in rng.integers(70, 96, size=6)]
    yield "resaved", 0, "recirculated", *_jpeg(base, q[0])
    f = float(rng.uniform(0.5, 0.9))
    small = base.resize((max(64, int(base.width * f)), max(64, int(base.height * f))))
    yield "resized", 0, "recirculated", *_jpeg(small, q[1])
    dx, dy = (int(v) for v in rng.integers(1, 8, size=2))
    yield "shifted", 0, "recirculated", *_jpeg(base.crop((dx, dy, base.width, base.height)), q[2])
    spliced = _paste(base, _cut(donor, *_patch_size(base, rng), rng), rng)
    yield "splice", 1, "spliced", *_jpeg(spliced, q[3])
    cw, ch = _patch_size(base, rng)
    cx = int(rng.integers(0, max(1, base.width - cw)))
    cy = int(rng.integers(0, max(1, base.height - ch)))
    yield (
        "copymove",
        1,
        "copy-moved",
        *_jpeg(_paste(base, base.crop((cx, cy, cx + cw, cy + ch)), rng), q[4]),
    )
    spliced_img, _, _ = _jpeg(spliced, q[3])
    w, h = int(spliced_img.width * 0.8), int(spliced_img.height * 0.8)
    yield "splice-recirculated", 1, "spliced", *_jpeg(spliced_img.resize((w, h)), 75)
    if not web:
        return
    first, second = _web(full, rng)
    yield "web", 0, "recirculated", *first
    yield "web-twice", 0, "recirculated", *second
    yield "splice-web", 1, "spliced", *_web(spliced_img, rng)[1]
    if not cms:
        return
    authentic, tampered = _cms(full, donor, rng)
    yield "cms", 0, "recirculated", *authentic
    yield "paste-cms", 1, "spliced", *tampered


def corpus(
    data: Path, *, derived: bool = True, web: bool = True, cms: bool = True
) -> Iterator[CorpusImage]:
    """Every image of the declared corpus (see the module docstring), in a fixed order;
    ``cms=False`` leaves out the v3 CMS recirculations (the v2 corpus), ``web=False`` also
    the v2 web recirculations (the v1 corpus)."""
    tampered, authentic = real_sources(data)
    for path in tampered:
        img, quality, q_luma = _decode(path.read_bytes())
        yield CorpusImage(
            path.name, path.name, 1, "casia", split_of(path.name), img, quality, q_luma
        )
    groups = _groups(authentic, data)
    bases: dict[str, Image.Image] = {}
    fulls: dict[str, Image.Image] = {}
    for path in authentic:
        name = str(path.relative_to(data))
        img, quality, q_luma = _decode(path.read_bytes())
        group = groups[path]
        yield CorpusImage(name, group, 0, "camera", split_of(group), img, quality, q_luma)
        bases[name] = _base(img)
        fulls[name] = img
    if not derived:
        return
    names = list(bases)
    split = {n: split_of(groups[data / n]) for n in names}
    for i, name in enumerate(names):
        same = [n for n in names if split[n] == split[name] and n != name]
        donor = bases[same[i % len(same)]] if same else bases[name].rotate(180)
        for suffix, label, kind, img, quality, q_luma in _derived(
            name, bases[name], donor, fulls[name], web=web, cms=web and cms
        ):
            yield CorpusImage(
                f"{name}#{suffix}",
                groups[data / name],
                label,
                kind,
                split[name],
                img,
                quality,
                q_luma,
            )
