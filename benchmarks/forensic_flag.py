"""The forensic review flag: its threshold, its false alarms and its power. Prints tables.

    python benchmarks/forensic_flag.py            # make bench-forensic-flag

The flag is ``forensic-anomaly``: the calibrated manipulation probability of the shipped model
(``semv.perception.manipulation``) at or above ``forensics.review_threshold``.

- **Choosing split** (the threshold is chosen here): the authentic images of the held-out split
  of the declared forensic corpus (``semv.eval.forensic_corpus``, split ``test``, never used to
  fit the model): real camera and phone photos and their declared authentic recirculations
  (re-saved crop, resize, off-grid crop, web and CMS re-compressions). The threshold is the
  lowest probability (rounded up to 0.01) that at most 5 % of them reach.
- **Report split** (out of sample for the threshold and the model): the real news photos of
  ``cosmos-public`` and ``remmd-showcase`` as published (no known edit), the false-alarm rate
  on them; and, against them, the power on real tampered images: the 7 CASIA v2 samples
  (in-sample for the model where they fall in its train split: labelled), the corpus's held-out
  tamperings (splice, copy-move, paste after a platform re-compression; built from real photos),
  and pastes built here from the news photos (a patch of one pasted into another at a seeded
  place, saved at quality 75-95; the paste's mask is kept and its share of the image printed).
  AUROC, the true-positive rate at the shipped threshold and at 5 % false alarms on the
  report split.
- **Copy-move**: how many images of each set carry a *verified* cloned region.

Probabilities are cached per image (the model file's hash, the name and SHA-256 of the pixels)
in the temp folder.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageOps
from rich.console import Console
from rich.table import Table

from semv.config import ForensicsConfig
from semv.eval import auroc
from semv.eval.forensic_corpus import corpus, split_of
from semv.perception._signal_versions import model_fingerprint
from semv.perception.manipulation import forensic_signals, jpeg_params, load_model

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
CACHE = Path(tempfile.gettempdir()) / "semv-forensic-flag-cache.json"
_NEWS_DIRS = ("cosmos-public", "remmd-showcase")
_PASTES = 40
_MAX_FALSE_ALARMS = 0.05

console = Console()


@dataclass(frozen=True)
class Scored:
    name: str
    group: str
    label: int
    p: float
    cloned: bool
    source: str = ""
    """The photo an image derives from (splits keep a photo and its derivatives together)."""

    @property
    def split(self) -> str:
        """``choose`` or ``report``, by the parity of sha256(source)."""
        digest = hashlib.sha256((self.source or self.name).encode()).digest()
        return "choose" if digest[0] % 2 == 0 else "report"


class Scorer:
    """The shipped model's probability of an image, cached by name and pixels."""

    def __init__(self) -> None:
        model = load_model()
        if model is None:
            raise SystemExit("no shipped forensic model")
        self.model = model
        self.fingerprint = model_fingerprint()
        """The model's version and file hash: a refit (same version) never reuses a score."""
        self.cfg = ForensicsConfig()
        self.cache: dict[str, list[float]] = (
            json.loads(CACHE.read_text()) if CACHE.is_file() else {}
        )

    def __call__(
        self, name: str, img: Image.Image, quality: int | None, q_luma: tuple[int, ...] | None
    ) -> tuple[float, bool]:
        key = f"{self.fingerprint}:{name}:{hashlib.sha256(img.tobytes()).hexdigest()[:16]}"
        if key not in self.cache:
            features = tuple(sorted({*self.model.used, "copy_move"}))
            sig = forensic_signals(img, self.cfg, quality=quality, q_luma=q_luma, features=features)
            cloned = sig.copy_move_source is not None
            self.cache[key] = [self.model.probability(sig.values), float(cloned)]
            CACHE.write_text(json.dumps(self.cache))
        p, cloned_flag = self.cache[key]
        return p, bool(cloned_flag)


def _open(path: Path) -> tuple[Image.Image, int | None, tuple[int, ...] | None]:
    with Image.open(path) as raw:
        quality, q_luma = jpeg_params(raw)
        raw.load()
        img = raw.convert("RGB")
    return img, quality, q_luma


def news_paths() -> list[Path]:
    out = []
    for folder in _NEWS_DIRS:
        for path in sorted((DATA / folder).rglob("*")):
            if path.suffix.lower() in (".jpg", ".jpeg", ".png", ".webp"):
                out.append(path)
    return out


def _paste(
    host: Image.Image, donor: Image.Image, rng: np.random.Generator
) -> tuple[Image.Image, float]:
    """A patch of ``donor`` (a rectangle or an ellipse, 15-35 % of ``host``'s short side wide)
    pasted into ``host`` at a seeded place; the pasted image and the mask's share of it."""
    side = min(host.size)
    pw = int(side * rng.uniform(0.15, 0.35))
    ph = int(pw * rng.uniform(0.6, 1.4))
    dx = int(rng.integers(0, max(1, donor.width - pw)))
    dy = int(rng.integers(0, max(1, donor.height - ph)))
    patch = donor.crop((dx, dy, dx + pw, dy + ph))
    mask = Image.new("L", patch.size, 0)
    draw = ImageDraw.Draw(mask)
    if rng.random() < 0.5:
        draw.rectangle((0, 0, pw, ph), fill=255)
    else:
        draw.ellipse((0, 0, pw, ph), fill=255)
    x = int(rng.integers(0, max(1, host.width - pw)))
    y = int(rng.integers(0, max(1, host.height - ph)))
    out = host.copy()
    out.paste(patch, (x, y), mask)
    share = float(np.asarray(mask).astype(bool).sum()) / (host.width * host.height)
    return out, share


def _jpeg(img: Image.Image, quality: int) -> tuple[Image.Image, int | None, tuple[int, ...] | None]:
    buffer = io.BytesIO()
    img.save(buffer, "JPEG", quality=quality)
    buffer.seek(0)
    return _open_bytes(buffer)


def _open_bytes(buffer: io.BytesIO) -> tuple[Image.Image, int | None, tuple[int, ...] | None]:
    with Image.open(buffer) as raw:
        quality, q_luma = jpeg_params(raw)
        raw.load()
        return raw.convert("RGB"), quality, q_luma


def score_all(score: Scorer) -> list[Scored]:
    rows: list[Scored] = []
    for it in corpus(DATA):
        if it.split != "test" and it.kind != "casia":
            continue
        group = "camera" if it.label == 0 else "corpus-tampered"
        if it.kind == "casia":
            group = f"casia ({'model in-sample' if split_of(it.source) == 'train' else 'held out'})"
        p, cloned = score(it.name, it.image, it.quality, it.q_luma)
        rows.append(Scored(it.name, group, it.label, p, cloned, it.source))
    console.print(f"scored the corpus: {len(rows)} images")
    paths = news_paths()
    news = [(p, *_open(p)) for p in paths]
    for path, img, quality, q_luma in news:
        p, cloned = score(str(path.relative_to(DATA)), img, quality, q_luma)
        name = str(path.relative_to(DATA))
        rows.append(Scored(name, "news", 0, p, cloned, name))
    shares = []
    for n in range(_PASTES):
        rng = np.random.default_rng(n)
        host_i, donor_i = (int(v) for v in rng.choice(len(news), size=2, replace=False))
        host = ImageOps.exif_transpose(news[host_i][1])
        pasted, share = _paste(host, news[donor_i][1], rng)
        shares.append(share)
        img, quality, q_luma = _jpeg(pasted, int(rng.integers(75, 96)))
        name = f"paste-{n:02d}"
        p, cloned = score(name, img, quality, q_luma)
        rows.append(Scored(name, "news-paste", 1, p, cloned, name))
    console.print(
        f"pastes: pasted share of the image median {np.median(shares):.3f} "
        f"(min {min(shares):.3f}, max {max(shares):.3f})"
    )
    return rows


def choose_threshold(probabilities: list[float]) -> float:
    """The lowest value, rounded up to 0.01, that at most 5 % of ``probabilities`` reach."""
    ordered = sorted(probabilities, reverse=True)
    allowed = int(_MAX_FALSE_ALARMS * len(ordered))
    boundary = ordered[allowed] if allowed < len(ordered) else 0.0
    return min(1.0, (int(boundary * 100) + 1) / 100)


def report(rows: list[Scored], shipped: float) -> None:
    authentic = [r for r in rows if r.label == 0]
    choose = [r.p for r in authentic if r.split == "choose"]
    held = [r for r in authentic if r.split == "report"]
    chosen = choose_threshold(choose)
    console.print(
        f"threshold chosen on the choosing split ({len(choose)} authentic images): {chosen:.2f}; "
        f"shipped forensics.review_threshold {shipped:.2f}"
    )
    table = Table(title=f"False alarms at the shipped review threshold {shipped:.2f}")
    for column in ("split", "set", "images", "flagged", "rate", "sample"):
        table.add_column(column)
    for split, sample in (("choose", "in-sample"), ("report", "out-of-sample")):
        for group in ("camera", "news", "all"):
            sel = [r.p for r in authentic if r.split == split and group in ("all", r.group)]
            flagged = sum(p >= shipped for p in sel)
            rate = f"{flagged / len(sel):.1%}" if sel else "n/a"
            table.add_row(split, group, str(len(sel)), str(flagged), rate, sample)
    console.print(table)
    negatives = [r.p for r in held]
    at_5 = choose_threshold(negatives)
    power = Table(
        title="Power against the report split's authentic images (out-of-sample unless "
        f"labelled): AUROC, TPR at the shipped threshold, TPR at 5 % false alarms on them "
        f"(threshold {at_5:.2f}, in-sample for that column)"
    )
    for column in (
        "tampered set",
        "images",
        "AUROC",
        f"TPR @ {shipped:.2f}",
        "TPR @ 5 % FA",
        "verified clone",
    ):
        power.add_column(column)
    groups = sorted({r.group for r in rows if r.label == 1})
    for group in groups:
        pos = [r for r in rows if r.group == group]
        scores = [r.p for r in pos] + negatives
        labels = [True] * len(pos) + [False] * len(negatives)
        power.add_row(
            group,
            str(len(pos)),
            f"{auroc(scores, labels):.3f}",
            f"{sum(r.p >= shipped for r in pos) / len(pos):.1%}",
            f"{sum(r.p >= at_5 for r in pos) / len(pos):.1%}",
            str(sum(r.cloned for r in pos)),
        )
    console.print(power)
    clones = Table(title="Verified cloned regions on authentic images")
    clones.add_column("set")
    clones.add_column("images")
    clones.add_column("with a verified clone")
    for group in ("camera", "news"):
        sel = [r for r in authentic if r.group == group]
        clones.add_row(group, str(len(sel)), str(sum(r.cloned for r in sel)))
    console.print(clones)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.parse_args(argv)
    if not (DATA / "casia2-samples").is_dir():
        console.print(f"[yellow]skipped:[/] {DATA} is absent")
        return 0
    rows = score_all(Scorer())
    report(rows, ForensicsConfig().review_threshold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
