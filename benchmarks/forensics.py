"""Benchmarks of the forensic and reverse-search extractors. Prints tables.

    python benchmarks/forensics.py [--repeats N]

1. Time per image: pHash, ORB features, ELA map, all forensic maps (ELA + noise + ghost +
   combined), on the real images of ../shared/data (COSMOS news photos, CASIA samples).
2. Reverse-search index: build time for the collection and query time per image.
3. Calibration of the forensic threshold (Table S4: 0.50): the fraction of images whose
   region score reaches it, per map, on CASIA tampered images and on COSMOS news photos.
4. Localisation on CASIA: mean score inside / outside the gold mask, per image and map.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image
from rich.console import Console
from rich.table import Table

from semv.config import ForensicsConfig, ReverseSearchConfig
from semv.perception import _forensic_maps as fm
from semv.perception._rsindex import IndexStore
from semv.perception.forensics import compute_maps
from semv.perception.reverse_search import build_index, find_matches, orb_features, phash_hex

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
COSMOS = DATA / "cosmos-public"
CASIA = DATA / "casia2-samples"
MAPS = ("ela", "noise", "ghost", "combined")

console = Console()


def _rgb(path: Path) -> Image.Image:
    with Image.open(path) as raw:
        return raw.convert("RGB")


def _median_ms(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _casia() -> list[Path]:
    return sorted(p for p in CASIA.glob("Tp_*") if not p.name.endswith("_gt.png"))


def _cosmos() -> list[Path]:
    return sorted(COSMOS.rglob("*.jpg"))


def bench_extractors(images: list[Path], repeats: int) -> None:
    cfg, rs = ForensicsConfig(), ReverseSearchConfig()
    loaded = [_rgb(p) for p in images]
    pixels = statistics.median(im.width * im.height for im in loaded) / 1e6
    table = Table(title=f"Per-image extractor time ({len(loaded)} images, median {pixels:.2f} MP)")
    for col in ("extractor", "median ms/image", "images/s"):
        table.add_column(col, justify="left" if col == "extractor" else "right")
    rows: list[tuple[str, Callable[[Image.Image], object]]] = [
        ("pHash (ImageHash)", phash_hex),
        ("ORB features", lambda im: orb_features(im, rs.orb_features)),
        ("ELA map", lambda im: fm.ela_values(im, cfg.ela_quality)),
        ("all forensic maps", lambda im: compute_maps(im, cfg)),
    ]
    for name, fn in rows:
        per = [_median_ms(lambda im=im, fn=fn: fn(im), repeats) for im in loaded]
        ms = statistics.median(per)
        table.add_row(name, f"{ms:.1f}", f"{1000 / ms:.1f}")
    console.print(table)


def bench_index(images: list[Path], repeats: int) -> None:
    cfg = ReverseSearchConfig()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "collection"
        folder.mkdir()
        for p in images:
            (folder / p.name).write_bytes(p.read_bytes())
        start = time.perf_counter()
        build_index(folder, Path(tmp) / "index", cfg)
        build_s = time.perf_counter() - start
        store = IndexStore(Path(tmp) / "index")
        queries = [_rgb(p) for p in images[:10]]
        crops = [
            im.crop((im.width // 6, im.height // 6, im.width * 5 // 6, im.height * 5 // 6))
            for im in queries
        ]
        q_ms = statistics.median(
            _median_ms(lambda im=im: find_matches(im, store, cfg), repeats) for im in queries
        )
        c_ms = statistics.median(
            _median_ms(lambda im=im: find_matches(im, store, cfg), repeats) for im in crops
        )
        store.close()
    table = Table(title=f"Local reverse-image index ({len(images)} images)")
    for col in ("operation", "time"):
        table.add_column(col, justify="left" if col == "operation" else "right")
    table.add_row("index build (pHash + ORB + FAISS files)", f"{build_s:.2f} s")
    table.add_row("  per image", f"{1000 * build_s / len(images):.1f} ms")
    table.add_row("query, exact copy (pHash hit, ORB skips it)", f"{q_ms:.1f} ms")
    table.add_row("query, 67% crop (ORB + RANSAC)", f"{c_ms:.1f} ms")
    console.print(table)


def bench_calibration() -> None:
    cfg = ForensicsConfig()
    table = Table(
        title=f"Share of images with region score ≥ {cfg.threshold:.2f} (robust z {cfg.robust_z:g})"
    )
    table.add_column("set")
    table.add_column("n", justify="right")
    for name in MAPS:
        table.add_column(name, justify="right")
    for label, paths in (("CASIA tampered", _casia()), ("COSMOS news photos", _cosmos())):
        if not paths:
            continue
        hits = np.array(
            [
                [compute_maps(_rgb(p), cfg).maps[m].region_score >= cfg.threshold for m in MAPS]
                for p in paths
            ]
        )
        table.add_row(label, str(len(paths)), *(f"{v:.2f}" for v in hits.mean(axis=0)))
    console.print(table)


def bench_localisation() -> None:
    cfg = ForensicsConfig()
    table = Table(title="CASIA: mean score inside / outside the gold mask")
    table.add_column("image")
    for name in MAPS:
        table.add_column(name, justify="right")
    for path in _casia():
        with Image.open(path.with_name(path.stem + "_gt.png")) as gt:
            mask = np.asarray(gt.convert("L"), dtype=np.float32) > 127
        inside = fm.block_mean(mask.astype(np.float32), cfg.block) > 0.5
        maps = compute_maps(_rgb(path), cfg).maps
        table.add_row(
            path.stem,
            *(
                f"{maps[m].scores[inside].mean() / maps[m].scores[~inside].mean():.2f}"
                for m in MAPS
            ),
        )
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    images = _cosmos() + _casia()
    if not images:
        console.print(f"[yellow]skipped:[/] no images under {DATA} (../shared/data is absent)")
        return 0
    bench_extractors(images, args.repeats)
    bench_index(_cosmos() or images, args.repeats)
    bench_calibration()
    if _casia():
        bench_localisation()
    return 0


if __name__ == "__main__":
    sys.exit(main())
