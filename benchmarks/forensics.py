"""Benchmarks of the forensic and reverse-search extractors. Prints tables.

    python benchmarks/forensics.py [--repeats N]

1. Time per image: pHash, ORB features, ELA map, all forensic maps (ELA + noise + ghost +
   combined), the signals (double JPEG, copy-move, resampling, noise inconsistency, block
   artifact grid, CFA, block-grained double-JPEG maps), what verify computes (the model's
   weighted signals), on the real images of ../shared/data (COSMOS news photos, CASIA samples).
2. Reverse-search index: build time for the collection and query time per image.
3. Image-level AUROC of every forensic signal and of the calibrated manipulation model on the
   *held-out* split of the declared corpus (``semv.eval.forensic_corpus``; the model was
   fitted on the other split by ``make fit-forensics``), overall and on real images only.
4. Final check on the COSMOS news photos (never used to fit or choose anything): the share
   whose manipulation probability reaches the fitted threshold, and the old rule's share.
5. Localisation on CASIA: mean score inside / outside the gold mask, per image and map.

    python benchmarks/forensics.py --auroc-only     # tables 3 and 4 (make bench-forensics)
    python benchmarks/forensics.py --compare-model OLD.json   # also time OLD's verify signals
"""

from __future__ import annotations

import argparse
import json
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
from semv.eval import auroc
from semv.eval.forensic_corpus import corpus
from semv.perception import _bag, _bdjpg, _cfa, _noise_local
from semv.perception import _forensic_maps as fm
from semv.perception._jpeg import read_structure
from semv.perception._rsindex import IndexStore
from semv.perception.forensics import compute_maps
from semv.perception.manipulation import (
    FEATURES,
    ManipulationModel,
    forensic_signals,
    jpeg_params,
    load_model,
)
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


def bench_extractors(images: list[Path], repeats: int, compare: Path | None = None) -> None:
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
        ("maps + every signal (semv forensics)", lambda im: forensic_signals(im, cfg)),
        ("  noise inconsistency (wavelet + kurtosis)", _noise_local.noise_inconsistency),
        ("  block artifact grid (BAG)", _bag.bag),
        ("  CFA trace", _cfa.cfa),
        ("  block-grained double JPEG (aligned + non-aligned maps)", _bdjpg.block_djpg),
    ]
    models = [("shipped", load_model())]
    if compare is not None:
        data = json.loads(compare.read_text(encoding="utf-8"))
        models.append((compare.name, ManipulationModel.from_dict(data)))
    for label, model in models:
        if model is None:
            continue
        used = (*model.used, "combined")
        rows.append(
            (
                f"maps + the {label} model v{model.version}'s {len(model.used)} weighted "
                "signals (verify)",
                lambda im, used=used: forensic_signals(im, cfg, features=used),
            )
        )
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


def _auc(scores: list[float], labels: list[int]) -> str:
    if len(set(labels)) < 2:
        return "n/a"
    return f"{auroc(scores, [bool(v) for v in labels]):.3f}"


def bench_auroc() -> None:
    """Held-out AUROC per signal and for the calibrated model (out-of-sample)."""
    cfg, model = ForensicsConfig(), load_model()
    items = [it for it in corpus(DATA) if it.split == "test"]
    rows = [
        forensic_signals(it.image, cfg, quality=it.quality, q_luma=it.q_luma).values for it in items
    ]
    probs = [model.probability(r) if model else 0.0 for r in rows]
    labels = [it.label for it in items]
    real = [i for i, it in enumerate(items) if it.real]
    n_pos, n_real_pos = sum(labels), sum(labels[i] for i in real)
    table = Table(
        title=f"Image-level AUROC, held-out split (out-of-sample): {len(items)} images "
        f"({n_pos} manipulated); real only: {len(real)} ({n_real_pos} CASIA tampered)"
    )
    for col in ("signal", "all held out", "real images only"):
        table.add_column(col, justify="left" if col == "signal" else "right")
    for j, name in enumerate((*FEATURES, "manipulation model")):
        scores = probs if j == len(FEATURES) else [r[name] for r in rows]
        table.add_row(
            name + (" (before: the old gate's map)" if name == "combined" else ""),
            _auc(scores, labels),
            _auc([scores[i] for i in real], [labels[i] for i in real]),
        )
    console.print(table)


def bench_container() -> None:
    """AUROC of the JPEG container's editor markers on the real corpus images (the derived ones
    carry none): a Photoshop APP13 block, and any editor marker (Photoshop, Adobe, XMP)."""
    rows = []
    for it in corpus(DATA, derived=False):
        path = CASIA / it.name if it.kind == "casia" else DATA / it.name
        with Image.open(path) as raw:
            markers = read_structure(raw)
        found = markers.editor_markers if markers is not None else ()
        rows.append((it.label, it.split, any("Photoshop" in m for m in found), bool(found)))
    table = Table(title="JPEG container markers, real images (AUROC of a 0/1 score)")
    for col in ("marker", "train (23)", "held out (8)"):
        table.add_column(col, justify="left" if col == "marker" else "right")
    for j, name in ((2, "Photoshop image resources (APP13)"), (3, "any editor marker")):
        cells = []
        for split in ("train", "test"):
            sel = [r for r in rows if r[1] == split]
            cells.append(_auc([float(r[j]) for r in sel], [r[0] for r in sel]))
        table.add_row(name, *cells)
    console.print(table)


def bench_final_check() -> None:
    """COSMOS news photos (final check only): the share flagged by the model and by the old
    rule (combined map ≥ 0.50 with a JPEG editing trace)."""
    cfg, model = ForensicsConfig(), load_model()
    paths = _cosmos()
    if not paths or model is None:
        return
    flagged = old = 0
    for path in paths:
        with Image.open(path) as raw:
            quality, q_luma = jpeg_params(raw)
            img = raw.convert("RGB")
        sig = forensic_signals(img, cfg, quality=quality, q_luma=q_luma)
        flagged += model.probability(sig.values) >= model.threshold
        old += sig.values["combined"] >= cfg.threshold
    table = Table(title=f"Final check: COSMOS news photos ({len(paths)}), never used for fitting")
    table.add_column("rule")
    table.add_column("share flagged", justify="right")
    table.add_row(
        f"manipulation probability ≥ {model.threshold:.2f} (fitted)", f"{flagged / len(paths):.2f}"
    )
    table.add_row(
        f"combined map region score ≥ {cfg.threshold:.2f} (old map gate)", f"{old / len(paths):.2f}"
    )
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
    parser.add_argument("--auroc-only", action="store_true", help="Only tables 3 and 4.")
    parser.add_argument(
        "--compare-model",
        type=Path,
        default=None,
        help="Also time the weighted signals of another model file (e.g. the previous version).",
    )
    args = parser.parse_args(argv)
    images = _cosmos() + _casia()
    if not images:
        console.print(f"[yellow]skipped:[/] no images under {DATA} (../shared/data is absent)")
        return 0
    if not args.auroc_only:
        bench_extractors(images, args.repeats, args.compare_model)
        bench_index(_cosmos() or images, args.repeats)
    if _casia():
        bench_auroc()
        bench_container()
    bench_final_check()
    if _casia() and not args.auroc_only:
        bench_localisation()
    return 0


if __name__ == "__main__":
    sys.exit(main())
