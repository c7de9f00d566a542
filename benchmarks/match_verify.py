"""False-match and true-match rates of reverse-search match verification. Prints tables.

    python benchmarks/match_verify.py            # make bench-match
    python benchmarks/match_verify.py --end-to-end-only   # index + query, report split

Pictures:

- *real*: the camera, phone and news photos of ../shared/data (exif-samples,
  metadata-extractor-images, cosmos-public, remmd-showcase, the CASIA tampered samples) and
  matplotlib's sample photo. Declared exclusions, because they are the same picture as another
  file: the orientation set of exif-samples keeps ``landscape_1.jpg`` only (the others are the
  same photo rotated), ``Canon_40D_photoshop_import.jpg`` is the same photo as
  ``Canon_40D.jpg``, and COSMOS ``public_test_mmsys/20.jpg`` is the same picture as
  ``images_task_2/20.jpg`` (found by this benchmark: agreement 1.00; checked by eye).
- *same-style* sets drawn with Pillow, deterministically from a seed: street scenes of one
  drawing style, screenshots of one chat app (same chrome, different messages), and memes of
  one drawn template (same picture, different captions).

Pairs:

- *different*: every unordered pair of two pictures of one group (real, drawn, screenshot,
  meme) inside one split;
- *same*: an edit of a picture against the picture: resize (×0.5, ×0.3, ×1.5), JPEG recompress
  (quality 50, 70, 95), crop (keep 90 % and 80 % of each side at a seeded offset), overlaid
  text (``text band``: a red caption band across the picture, about 11 % of its height;
  ``text words``: three words, white with a black outline, on the picture), mirror.

Split: a picture is in ``fit`` or ``report`` by the parity of the SHA-256 of its name. The
agreement threshold is chosen on ``fit`` (the lowest value no different-picture pair of fit
reaches, rounded up to 0.01) and every rate is reported on ``report`` (out of sample).
Prepared pictures are cached in memory (each picture's grey image and ORB features are computed
once).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import itertools
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont, ImageOps
from rich.console import Console
from rich.table import Table

from semv.config import ReverseSearchConfig
from semv.perception._match_verify import PairCheck, Prepared, compare, prepare

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
_REAL_DIRS = (
    "exif-samples",
    "metadata-extractor-images",
    "cosmos-public",
    "remmd-showcase",
    "casia2-samples",
)
_SUFFIXES = (".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp")
_EXCLUDED = (
    "portrait_8.jpg",
    "portrait_3.jpg",
    "landscape_6.jpg",
    "Canon_40D_photoshop_import",
    "public_test_mmsys/20.jpg",
)
_PER_STYLE = 60
"""Pictures drawn per same-style set (about half in each split)."""

console = Console()


@dataclass(frozen=True)
class Picture:
    name: str
    group: str
    image: Image.Image

    @property
    def split(self) -> str:
        return "fit" if hashlib.sha256(self.name.encode()).digest()[0] % 2 == 0 else "report"


# ---- pictures ------------------------------------------------------------------------------


def real_pictures() -> list[Picture]:
    paths: list[Path] = []
    for folder in _REAL_DIRS:
        for path in sorted((DATA / folder).rglob("*")):
            if path.suffix.lower() not in _SUFFIXES or path.stem.endswith("_gt"):
                continue
            if any(x in path.as_posix() for x in _EXCLUDED):
                continue
            paths.append(path)
    import matplotlib

    sample = Path(matplotlib.get_data_path()) / "sample_data" / "grace_hopper.jpg"
    if sample.is_file():
        paths.append(sample)
    out = []
    for path in paths:
        with Image.open(path) as raw:
            img = ImageOps.exif_transpose(raw).convert("RGB")
        img.thumbnail((1600, 1600))
        out.append(Picture(str(path.relative_to(path.parents[2])), "real", img))
    return out


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


_WORDS = [
    "river",
    "city",
    "flood",
    "bridge",
    "market",
    "train",
    "night",
    "storm",
    "police",
    "crowd",
    "road",
    "school",
    "park",
    "harbour",
    "festival",
    "fire",
    "smoke",
    "rain",
    "wind",
    "square",
    "station",
    "tower",
    "church",
    "museum",
    "protest",
    "vote",
    "council",
    "meeting",
    "hospital",
    "beach",
    "ferry",
    "border",
    "airport",
    "mountain",
    "village",
    "farm",
    "election",
    "minister",
]


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def drawn_scene(seed: int) -> Image.Image:
    """A street scene in one flat drawing style: sky, buildings with windows, road, sun, cars."""
    rng = random.Random(seed)
    w, h = 640, 480
    img = Image.new("RGB", (w, h), (rng.randint(120, 180), rng.randint(170, 210), 235))
    d = ImageDraw.Draw(img)
    sun = rng.randint(40, w - 40)
    d.ellipse((sun - 25, 30, sun + 25, 80), fill=(250, 220, 90))
    x = 0
    while x < w:
        bw, bh = rng.randint(60, 130), rng.randint(120, 300)
        shade = rng.randint(90, 200)
        d.rectangle((x, 360 - bh, x + bw, 360), fill=(shade, shade - 20, shade - 40))
        for wy in range(360 - bh + 12, 350, 28):
            for wx in range(x + 8, x + bw - 14, 22):
                lit = (240, 230, 150) if rng.random() < 0.4 else (60, 70, 90)
                d.rectangle((wx, wy, wx + 10, wy + 14), fill=lit)
        x += bw + rng.randint(0, 20)
    d.rectangle((0, 360, w, h), fill=(70, 70, 75))
    for lx in range(0, w, 60):
        d.rectangle((lx + rng.randint(0, 10), 415, lx + 35, 422), fill=(230, 230, 230))
    for _ in range(rng.randint(1, 4)):
        cx = rng.randint(0, w - 100)
        cy = rng.choice((370, 430))
        color = (rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255))
        d.rounded_rectangle((cx, cy, cx + 90, cy + 35), 8, fill=color)
        d.ellipse((cx + 10, cy + 25, cx + 28, cy + 43), fill=(20, 20, 20))
        d.ellipse((cx + 62, cy + 25, cx + 80, cy + 43), fill=(20, 20, 20))
    return img


def screenshot(seed: int) -> Image.Image:
    """A screenshot of one chat app: the same chrome, different people and messages."""
    rng = random.Random(seed)
    w, h = 420, 760
    img = Image.new("RGB", (w, h), (245, 245, 247))
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, w, 70), fill=(32, 120, 200))
    d.text((70, 22), "Chats", fill="white", font=_font(26))
    d.ellipse((14, 16, 52, 54), fill=(255, 255, 255))
    d.rectangle((0, h - 60, w, h), fill=(255, 255, 255))
    for i, label in enumerate(("Home", "Search", "Inbox", "Me")):
        d.text((20 + i * 105, h - 40), label, fill=(90, 90, 90), font=_font(16))
    y = 85
    while y < h - 140:
        mine = rng.random() < 0.5
        lines = [_sentence(rng, rng.randint(2, 5)) for _ in range(rng.randint(1, 3))]
        bh = 18 + 22 * len(lines)
        x0, x1 = (120, w - 15) if mine else (60, w - 80)
        if not mine:
            tone = rng.randint(80, 200)
            d.ellipse((12, y, 48, y + 36), fill=(tone, 120, 255 - tone))
        d.rounded_rectangle((x0, y, x1, y + bh), 12, fill=(210, 235, 255) if mine else "white")
        for n, line in enumerate(lines):
            d.text((x0 + 12, y + 9 + 22 * n), line, fill=(20, 20, 20), font=_font(17))
        y += bh + rng.randint(10, 24)
    return img


def _template() -> Image.Image:
    """The one drawn picture every meme of the set is made from."""
    img = Image.new("RGB", (600, 600), (250, 200, 120))
    d = ImageDraw.Draw(img)
    d.ellipse((150, 120, 450, 470), fill=(240, 190, 150), outline=(60, 40, 20), width=6)
    d.ellipse((220, 230, 270, 280), fill="white", outline="black", width=4)
    d.ellipse((330, 230, 380, 280), fill="white", outline="black", width=4)
    d.ellipse((238, 248, 256, 266), fill="black")
    d.ellipse((348, 248, 366, 266), fill="black")
    d.arc((230, 320, 370, 410), 200, 340, fill=(120, 30, 30), width=8)
    d.rectangle((0, 520, 600, 600), fill=(90, 140, 60))
    return img


def meme(seed: int) -> Image.Image:
    """The template with a different top and bottom caption (white, black outline)."""
    rng = random.Random(seed)
    img = _template()
    d = ImageDraw.Draw(img)
    font = _font(44)
    for y in (20, 520):
        text = _sentence(rng, rng.randint(2, 4)).upper()
        d.text(
            (300, y),
            text,
            fill="white",
            font=font,
            anchor="ma",
            stroke_width=3,
            stroke_fill="black",
        )
    return img


def drawn_pictures() -> list[Picture]:
    out = []
    for style, make in (("drawn", drawn_scene), ("screenshot", screenshot), ("meme", meme)):
        for n in range(_PER_STYLE):
            out.append(Picture(f"{style}-{n:03d}", style, make(1000 * n + len(style))))
    return out


# ---- edits ---------------------------------------------------------------------------------


def _jpeg(img: Image.Image, quality: int) -> Image.Image:
    buffer = io.BytesIO()
    img.save(buffer, "JPEG", quality=quality)
    buffer.seek(0)
    return Image.open(buffer).convert("RGB")


def _resize(img: Image.Image, factor: float) -> Image.Image:
    size = (max(8, round(img.width * factor)), max(8, round(img.height * factor)))
    return img.resize(size, Image.Resampling.LANCZOS)


def _crop(img: Image.Image, keep: float, rng: random.Random) -> Image.Image:
    w, h = round(img.width * keep), round(img.height * keep)
    x, y = rng.randint(0, img.width - w), rng.randint(0, img.height - h)
    return img.crop((x, y, x + w, y + h))


def _caption(img: Image.Image, rng: random.Random) -> Image.Image:
    out = img.copy()
    d = ImageDraw.Draw(out)
    band = max(24, img.height // 9)
    top = img.height - band - img.height // 20
    d.rectangle((0, top, img.width, top + band), fill=(200, 20, 30))
    size = max(12, band * 2 // 3)
    d.text(
        (img.width // 30, top + band // 6),
        _sentence(rng, 4).upper(),
        fill="white",
        font=_font(size),
    )
    return out


def _words(img: Image.Image, rng: random.Random) -> Image.Image:
    """A few words in white with a black outline, straight on the picture (no band)."""
    out = img.copy()
    d = ImageDraw.Draw(out)
    size = max(12, img.height // 14)
    x, y = img.width // 20, img.height // 12
    d.text(
        (x, y),
        _sentence(rng, 3).upper(),
        fill="white",
        font=_font(size),
        stroke_width=max(1, size // 12),
        stroke_fill="black",
    )
    return out


def edits(picture: Picture) -> Iterator[tuple[str, Image.Image]]:
    rng = random.Random(picture.name)
    img = picture.image
    yield "resize x0.5", _resize(img, 0.5)
    yield "resize x0.3", _resize(img, 0.3)
    yield "resize x1.5", _resize(img, 1.5)
    for quality in (50, 70, 95):
        yield f"jpeg q{quality}", _jpeg(img, quality)
    yield "crop 10%", _crop(img, 0.9, rng)
    yield "crop 20%", _crop(img, 0.8, rng)
    yield "text band", _caption(img, rng)
    yield "text words", _words(img, rng)
    yield "mirror", ImageOps.mirror(img)


# ---- measuring -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Scored:
    split: str
    group: str
    kind: str
    """``different`` or the edit's name."""
    check: PairCheck
    names: tuple[str, str]


def score_all(pictures: list[Picture], progress: Callable[[str], None]) -> list[Scored]:
    prepared: dict[str, Prepared] = {p.name: prepare(p.image) for p in pictures}
    progress(f"prepared {len(prepared)} pictures")
    out: list[Scored] = []
    for split in ("fit", "report"):
        for group in ("real", "drawn", "screenshot", "meme"):
            members = [p for p in pictures if p.split == split and p.group == group]
            for a, b in itertools.combinations(members, 2):
                check = compare(prepared[a.name], prepared[b.name])
                out.append(Scored(split, group, "different", check, (a.name, b.name)))
            for p in members:
                for kind, edited in edits(p):
                    check = compare(prepare(edited), prepared[p.name])
                    out.append(Scored(split, group, kind, check, (p.name, p.name)))
        progress(f"scored split {split}")
    return out


def choose_threshold(rows: list[Scored], min_overlap: float) -> float:
    """The lowest agreement (rounded up to 0.01) no different-picture pair of ``rows`` reaches."""
    worst = max(
        (
            r.check.agreement
            for r in rows
            if r.kind == "different" and r.check.overlap >= min_overlap
        ),
        default=0.0,
    )
    return min(1.0, (int(worst * 100) + 1) / 100)


def _rate(rows: list[Scored], threshold: float, min_overlap: float) -> tuple[int, int]:
    hits = sum(r.check.holds(threshold, min_overlap) for r in rows)
    return hits, len(rows)


def report(rows: list[Scored], cfg: ReverseSearchConfig, chosen: float) -> None:
    threshold, overlap = cfg.verify_min_agreement, cfg.verify_min_overlap
    console.print(
        f"chosen on fit: agreement ≥ {chosen:.2f}; shipped "
        f"(reverse_search.verify_min_agreement) {threshold:.2f}, overlap ≥ {overlap:.2f}"
    )
    for split in ("fit", "report"):
        label = "in-sample" if split == "fit" else "out-of-sample"
        table = Table(title=f"split {split} ({label}): match verification at {threshold:.2f}")
        for column in ("group", "pairs", "kind", "matched", "rate"):
            table.add_column(column)
        part = [r for r in rows if r.split == split]
        for group in ("real", "drawn", "screenshot", "meme", "all"):
            mine = [r for r in part if group in ("all", r.group)]
            diff = [r for r in mine if r.kind == "different"]
            same = [r for r in mine if r.kind != "different"]
            hits, n = _rate(diff, threshold, overlap)
            table.add_row(group, str(n), "different: FMR", str(hits), f"{hits / max(1, n):.4%}")
            hits, n = _rate(same, threshold, overlap)
            table.add_row(group, str(n), "edits: TMR", str(hits), f"{hits / max(1, n):.2%}")
        console.print(table)
        edits_table = Table(title=f"split {split} ({label}): true-match rate per edit")
        for column in ("edit", "pairs", "matched", "TMR", "median agreement"):
            edits_table.add_column(column)
        kinds = sorted({r.kind for r in part if r.kind != "different"})
        for kind in kinds:
            mine = sorted((r for r in part if r.kind == kind), key=lambda r: r.check.agreement)
            hits, n = _rate(mine, threshold, overlap)
            median = mine[len(mine) // 2].check.agreement
            edits_table.add_row(kind, str(n), str(hits), f"{hits / n:.2%}", f"{median:.3f}")
        console.print(edits_table)
    for split in ("fit", "report"):
        worst = sorted(
            (r for r in rows if r.kind == "different" and r.split == split),
            key=lambda r: -r.check.agreement,
        )[:5]
        console.print(f"highest-agreeing different pairs ({split} split):")
        for r in worst:
            console.print(f"  {r.check.agreement:.3f} overlap {r.check.overlap:.2f}  {r.names}")
    missed = sorted(
        (r for r in rows if r.kind != "different" and r.split == "report"),
        key=lambda r: r.check.agreement,
    )[:5]
    console.print("lowest-agreeing edits (report split):")
    for r in missed:
        console.print(
            f"  {r.check.agreement:.3f} overlap {r.check.overlap:.2f}  {r.kind} {r.names[0]}"
        )


def end_to_end(pictures: list[Picture], cfg: ReverseSearchConfig, folder: Path) -> None:
    """The whole path (``build_index`` + ``find_matches``: candidates, then verification).
    False matches: the report split's pictures queried against an index of the fit split's
    (every query/indexed pair is a pair of different pictures). True matches: the report
    split's edits queried against an index of the report split's originals; a hit is the
    original among the matches."""
    from semv.perception._rsindex import IndexStore
    from semv.perception.reverse_search import build_index, find_matches

    def index(split: str) -> Path:
        source = folder / split
        source.mkdir(parents=True)
        for n, p in enumerate(x for x in pictures if x.split == split):
            p.image.save(source / f"{n:04d}.png")
        build_index(source, folder / f"index-{split}", cfg)
        return folder / f"index-{split}"

    report_pictures = [p for p in pictures if p.split == "report"]
    fit_count = sum(p.split == "fit" for p in pictures)
    store = IndexStore(index("fit"))
    try:
        false = sum(len(find_matches(p.image, store, cfg)) for p in report_pictures)
    finally:
        store.close()
    pairs = len(report_pictures) * fit_count
    store = IndexStore(index("report"))
    hits: dict[str, list[int]] = {}
    try:
        for n, p in enumerate(report_pictures):
            for kind, edited in edits(p):
                found = {Path(m.image.path).stem for m in find_matches(edited, store, cfg)}
                hits.setdefault(kind, []).append(int(f"{n:04d}" in found))
    finally:
        store.close()
    table = Table(title="End to end (index + query), report split (out-of-sample)")
    for column in ("measure", "pairs or queries", "matched", "rate"):
        table.add_column(column)
    table.add_row(
        "false matches (report queries × fit index)", str(pairs), str(false), f"{false / pairs:.4%}"
    )
    total = [v for values in hits.values() for v in values]
    table.add_row(
        "true matches, all edits",
        str(len(total)),
        str(sum(total)),
        f"{sum(total) / len(total):.2%}",
    )
    for kind, values in sorted(hits.items()):
        table.add_row(
            f"  {kind}", str(len(values)), str(sum(values)), f"{sum(values) / len(values):.2%}"
        )
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--end-to-end",
        action="store_true",
        help="Also run the whole path (index + query) on the report split (slower).",
    )
    parser.add_argument("--end-to-end-only", action="store_true", help="Only the end-to-end table.")
    args = parser.parse_args(argv)
    if not DATA.is_dir():
        console.print(f"[yellow]skipped:[/] {DATA} is absent (no real pictures)")
        return 0
    pictures = real_pictures() + drawn_pictures()
    console.print(f"{len(pictures)} pictures")
    cfg = ReverseSearchConfig()
    if not args.end_to_end_only:
        rows = score_all(pictures, lambda m: console.print(m))
        chosen = choose_threshold([r for r in rows if r.split == "fit"], cfg.verify_min_overlap)
        report(rows, cfg, chosen)
    if args.end_to_end or args.end_to_end_only:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="semv-match-") as tmp:
            end_to_end(pictures, cfg, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
