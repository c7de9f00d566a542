"""Reverse-search matches are verified and name what they matched: the indexed file, its
geometry, its provenance or "no provenance", and thumbnails of both images side by side."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import yaml
from PIL import Image, ImageDraw, ImageFont, ImageOps
from typer.testing import CliRunner

from semv.cli import app
from semv.config import ReverseSearchConfig, Settings
from semv.model import Asset, ReverseSearchMatch, UncertaintyCode
from semv.perception._match_verify import check_pair
from semv.perception._rsindex import IndexStore
from semv.perception.reverse_search import build_index, find_matches, match_asset
from tests.conftest import ROOT

runner = CliRunner()
EXAMPLE_PHOTO = ROOT / "examples" / "lyon-flood" / "photo.jpg"


def _photo() -> Image.Image:
    with Image.open(EXAMPLE_PHOTO) as raw:
        return raw.convert("RGB")


def _chat(seed: int) -> Image.Image:
    """A screenshot of one chat app: identical chrome, different message bubbles."""
    rng = np.random.default_rng(seed)
    img = Image.new("RGB", (420, 700), (245, 245, 247))
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, 420, 70), fill=(32, 120, 200))
    d.text((70, 22), "Chats", fill="white")
    d.ellipse((14, 16, 52, 54), fill="white")
    d.rectangle((0, 640, 420, 700), fill="white")
    for i, label in enumerate(("Home", "Search", "Inbox", "Me")):
        d.text((20 + i * 105, 660), label, fill=(90, 90, 90))
    y = 90
    while y < 600:
        lines = int(rng.integers(1, 4))
        x0 = int(rng.integers(20, 140))
        d.rounded_rectangle((x0, y, x0 + 260, y + 18 + 22 * lines), 12, fill="white")
        for n in range(lines):
            words = " ".join(f"w{int(v)}" for v in rng.integers(0, 999, size=5))
            d.text((x0 + 12, y + 9 + 22 * n), words, fill=(20, 20, 20))
        y += 30 + 22 * lines
    return img


def test_pair_check_separates_edits_from_pictures_of_one_style() -> None:
    photo = _photo()
    w, h = photo.size
    for edited in (
        photo.resize((w // 3, h // 3)),
        photo.crop((int(w * 0.1), int(h * 0.1), int(w * 0.9), int(h * 0.9))),
        ImageOps.mirror(photo),
    ):
        check = check_pair(edited, photo)
        assert check.holds(0.8, 0.5), check
    mirrored = check_pair(ImageOps.mirror(photo), photo)
    assert mirrored.mirrored
    crop = check_pair(photo.crop((80, 60, 720, 540)), photo)
    x, y, cw, ch = crop.region
    assert abs(x - 80) <= 8 and abs(y - 60) <= 8 and abs(cw - 640) <= 12 and abs(ch - 480) <= 12
    other = check_pair(_chat(1), _chat(2))
    assert not other.holds(0.8, 0.5), other


def _index(tmp_path: Path, images: dict[str, Image.Image], meta: dict[str, object]) -> Path:
    folder = tmp_path / "archive"
    folder.mkdir()
    for name, img in images.items():
        img.save(folder / name)
    meta_file = tmp_path / "meta.json"
    meta_file.write_text(json.dumps(meta), encoding="utf-8")
    index = tmp_path / "index"
    from semv.perception.reverse_search import read_meta

    build_index(folder, index, ReverseSearchConfig(), meta=read_meta(meta_file))
    return index


def test_candidates_of_one_style_are_not_reported(tmp_path: Path) -> None:
    """Screenshots of one app share their chrome: ORB proposes them, verification drops them;
    a mirrored copy (which neither pHash nor ORB finds as it is) is found and verified."""
    index = _index(tmp_path, {"chat.png": _chat(1), "photo.png": _photo()}, {})
    store = IndexStore(index)
    try:
        cfg = ReverseSearchConfig()
        assert find_matches(_chat(2), store, cfg) == []
        (mirrored,) = find_matches(ImageOps.mirror(_photo()), store, cfg)
        assert Path(mirrored.image.path).name == "photo.png"
        assert mirrored.check is not None and mirrored.check.mirrored
    finally:
        store.close()


def test_a_match_names_its_file_geometry_and_lack_of_provenance(tmp_path: Path) -> None:
    index = _index(tmp_path, {"archive-shot.png": _photo()}, {})
    maps = tmp_path / "maps"
    maps.mkdir()
    query = tmp_path / "query.jpg"
    _photo().crop((80, 60, 720, 540)).save(query, quality=80)
    settings = Settings.model_validate(
        {"reverse_search": {"index_dir": str(index)}, "forensics": {"maps_dir": str(maps)}}
    )
    out = match_asset(Asset(id="asset:0", path=str(query), kind="image"), settings)
    (ev,) = out.evidence
    match = ev.observed(ReverseSearchMatch)
    assert match is not None and not match.has_provenance
    assert "archive-shot.png (800×600" in ev.content
    assert "No provenance" in ev.content and ev.published is None
    assert match.indexed_size == (800, 600)
    assert match.matched_region is not None and abs(match.matched_region[0] - 80) <= 8
    assert match.verify_agreement is not None
    assert match.verify_agreement >= ReverseSearchConfig().verify_min_agreement
    for thumb in (match.query_thumb, match.indexed_thumb):
        assert thumb is not None
        with Image.open(maps / thumb) as png:
            assert max(png.size) == 320


def _case(tmp_path: Path, photo: Path) -> Path:
    case = tmp_path / "case"
    case.mkdir()
    _photo().resize((600, 450)).save(case / "photo.jpg", quality=85)
    spec = {
        "id": "drawn",
        "claim": "Flooding in Paris on 14 March 2024.",
        "media": [{"path": "photo.jpg"}],
        "context": {"date": "2024-03-14", "location": "Paris, France", "language": "en"},
    }
    (case / "case.yaml").write_text(yaml.safe_dump(spec), encoding="utf-8")
    return case


def _verify(tmp_path: Path, meta: dict[str, object]) -> tuple[dict[str, object], str]:
    folder = tmp_path / "archive"
    folder.mkdir()
    _photo().save(folder / "archive-shot.png")
    meta_file = tmp_path / "meta.json"
    meta_file.write_text(json.dumps(meta), encoding="utf-8")
    data = tmp_path / "store"
    indexed = runner.invoke(
        app,
        ["index", "images", str(folder), "--meta", str(meta_file), "--data-dir", str(data)],
    )
    assert indexed.exit_code == 0, indexed.output
    case = _case(tmp_path, folder / "archive-shot.png")
    result = runner.invoke(app, ["verify", str(case), "--json", "--data-dir", str(data)])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)
    html = Path(verdict["report_paths"]["html"]).read_text(encoding="utf-8")
    return verdict, html


def test_a_match_without_provenance_attacks_nothing_and_shows_both_images(
    tmp_path: Path,
) -> None:
    verdict, html = _verify(tmp_path, {})
    assert any(e["id"].startswith("ev:rsearch:") for e in verdict["evidence"])  # it was found
    codes = {u["code"] for u in verdict["uncertainty"]}
    assert UncertaintyCode.EARLIER_CONTEXT_MATCH.value not in codes
    by_dim = {s["dimension"]: s for s in verdict["subclaims"]}
    assert not any(
        a["stance"] == "att" and any("rsearch" in e for e in a["evidence"])
        for a in by_dim["when"]["arguments"]
    )
    assert 'class="match-pair"' in html and "matched: archive-shot.png (no provenance)" in html


def test_a_dated_match_still_attacks_when(tmp_path: Path) -> None:
    verdict, html = _verify(
        tmp_path,
        {"archive-shot.png": {"first_seen": "2019-06-02", "source_url": "https://x.org/a"}},
    )
    codes = {u["code"] for u in verdict["uncertainty"]}
    assert UncertaintyCode.EARLIER_CONTEXT_MATCH.value in codes
    by_dim = {s["dimension"]: s for s in verdict["subclaims"]}
    assert any(
        a["stance"] == "att" and any("rsearch" in e for e in a["evidence"])
        for a in by_dim["when"]["arguments"]
    )
    assert "matched: archive-shot.png<" in html or "matched: archive-shot.png</" in html


def _face() -> Image.Image:
    """A flat drawing: little texture of its own, so text laid over it weighs a lot."""
    img = Image.new("RGB", (600, 600), (250, 200, 120))
    d = ImageDraw.Draw(img)
    d.ellipse((150, 120, 450, 470), fill=(240, 190, 150), outline=(60, 40, 20), width=6)
    for x in (220, 330):
        d.ellipse((x, 230, x + 50, 280), fill="white", outline="black", width=4)
    d.arc((230, 320, 370, 410), 200, 340, fill=(120, 30, 30), width=8)
    return img


def _captioned(img: Image.Image, top: str, bottom: str) -> Image.Image:
    out = img.copy()
    d = ImageDraw.Draw(out)
    font = ImageFont.load_default(size=44)
    for y, text in ((20, top), (520, bottom)):
        d.text((300, y), text, "white", font, anchor="ma", stroke_width=3, stroke_fill="black")
    return out


def test_text_laid_over_a_picture_leaves_it_the_same_picture_but_two_captions_do_not() -> None:
    cfg = ReverseSearchConfig()
    limits = (cfg.verify_min_agreement, cfg.verify_min_overlap)
    face = _face()
    captioned = _captioned(face, "THEY SAID IT WOULD RAIN", "AND THEN IT SNOWED")
    assert check_pair(captioned, face).holds(*limits)
    assert check_pair(face, captioned).holds(*limits)
    other = _captioned(face, "NOBODY EXPECTS MONDAY", "TO COME EVERY WEEK")
    assert not check_pair(captioned, other).holds(*limits)


def test_a_crop_of_a_thumbnail_is_found(tmp_path: Path) -> None:
    """ORB finds no keypoint in a 100×75 thumbnail or a crop of it at its own size; both are
    enlarged before ORB, so the crop (which pHash does not find) is proposed and verified."""
    thumb = _photo().resize((100, 75), Image.Resampling.LANCZOS)
    index = _index(tmp_path, {"thumb.png": thumb, "chat.png": _chat(3)}, {})
    store = IndexStore(index)
    try:
        (match,) = find_matches(thumb.crop((8, 6, 88, 66)), store, ReverseSearchConfig())
    finally:
        store.close()
    assert Path(match.image.path).name == "thumb.png"
    assert match.method == "orb" and match.check is not None
