"""Local reverse-image search: index, near-duplicates, crops, unrelated images, and an earlier
copy with another caption turning into attack arguments in a full `semv verify` run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image
from typer.testing import CliRunner

from semv.cli import app
from semv.config import ReverseSearchConfig, Settings
from semv.errors import InputError
from semv.model import Asset, ReverseSearchMatch, SourceType, UncertaintyCode
from semv.perception._rsindex import IndexStore, read_generation
from semv.perception.reverse_search import (
    build_index,
    find_matches,
    index_fingerprint,
    match_asset,
    match_image,
    read_meta,
)
from semv.store import Store
from tests.conftest import ROOT, shared_data

runner = CliRunner()
EXAMPLE_PHOTO = ROOT / "examples" / "lyon-flood" / "photo.jpg"


def _collection(tmp_path: Path, n: int = 8) -> tuple[Path, list[Path]]:
    """Real news photos from the public COSMOS sample; the last two stay out of the index."""
    source = shared_data("cosmos-public", "public_test_mmsys")
    photos = sorted(source.glob("*.jpg"))[:n]
    folder = tmp_path / "collection"
    folder.mkdir()
    for p in photos[:-2]:
        (folder / p.name).write_bytes(p.read_bytes())
    return folder, photos


def _rgb(path: Path) -> Image.Image:
    with Image.open(path) as raw:
        return raw.convert("RGB")


@pytest.mark.shared_data
def test_copies_are_found_and_unrelated_images_are_not(tmp_path: Path) -> None:
    folder, photos = _collection(tmp_path)
    cfg = ReverseSearchConfig()
    report = build_index(folder, tmp_path / "index", cfg)
    assert report.indexed == report.total == len(photos) - 2 and report.skipped == ()
    store = IndexStore(tmp_path / "index")
    try:
        for photo in photos[:3]:
            img = _rgb(photo)
            w, h = img.size
            recompressed = tmp_path / "recompressed.jpg"
            img.save(recompressed, quality=45)
            copies = {
                "recompressed": _rgb(recompressed),
                "resized": img.resize((w // 2, h // 2)),
                "cropped": img.crop((int(w * 0.15), int(h * 0.15), int(w * 0.85), int(h * 0.85))),
            }
            for how, copy in copies.items():
                matches = find_matches(copy, store, cfg)
                assert matches, f"{photo.name} {how}: not found"
                best = matches[0]
                assert Path(best.image.path).name == photo.name, how
                if how == "cropped":
                    assert best.method in ("phash", "orb")
                    if best.method == "orb":
                        assert best.inlier_ratio is not None
                        assert best.inlier_ratio >= cfg.orb_min_inlier_ratio
                else:
                    assert best.method == "phash"
                    assert best.distance is not None and best.distance <= 10
        for unrelated in photos[-2:]:
            assert find_matches(_rgb(unrelated), store, cfg) == [], unrelated.name
        noise = Image.fromarray(
            (np.random.default_rng(5).random((240, 320, 3)) * 255).astype(np.uint8)
        )
        assert find_matches(noise, store, cfg) == []
    finally:
        store.close()


def test_meta_files_are_validated(tmp_path: Path) -> None:
    good = tmp_path / "meta.json"
    good.write_text(
        json.dumps({"a.jpg": {"first_seen": "2019-06-02", "caption": "Lyon", "x": 1}}),
        encoding="utf-8",
    )
    assert read_meta(good) == {"a.jpg": {"first_seen": "2019-06-02", "caption": "Lyon"}}
    csv_file = tmp_path / "meta.csv"
    csv_file.write_text("file,source_url,first_seen,caption\nb.png,https://x.org/b,,B\n")
    assert read_meta(csv_file) == {"b.png": {"source_url": "https://x.org/b", "caption": "B"}}
    bad_date = tmp_path / "bad.json"
    bad_date.write_text(json.dumps([{"file": "a.jpg", "first_seen": "last summer"}]))
    with pytest.raises(InputError, match=r"bad\.json: a\.jpg: first_seen"):
        read_meta(bad_date)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(InputError, match=r"broken\.json: malformed"):
        read_meta(broken)
    no_file = tmp_path / "nofile.jsonl"
    no_file.write_text('{"caption": "x"}\n')
    with pytest.raises(InputError, match="record 1 has no 'file'"):
        read_meta(no_file)


def test_index_skips_unreadable_images_and_rejects_unknown_meta(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    Image.new("RGB", (64, 48), "blue").save(folder / "ok.png")
    (folder / "broken.jpg").write_bytes(b"\xff\xd8\xff garbage")
    with pytest.raises(InputError, match=r"broken\.jpg: cannot read image"):
        build_index(folder, tmp_path / "idx", ReverseSearchConfig())
    assert not (tmp_path / "idx").exists()  # a refusal writes nothing
    report = build_index(folder, tmp_path / "idx", ReverseSearchConfig(), skip_unreadable=True)
    assert report.indexed == 1 and len(report.skipped) == 1
    assert report.skipped[0].startswith("broken.jpg")
    with pytest.raises(InputError, match=r"missing\.jpg"):
        build_index(
            folder,
            tmp_path / "idx2",
            ReverseSearchConfig(),
            meta={"missing.jpg": {"caption": "x"}},
        )
    assert not (tmp_path / "idx2").exists()


def test_reindexing_changes_the_generation_and_the_media_fingerprint(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    Image.new("RGB", (64, 48), "blue").save(folder / "a.png")
    settings = Settings(reverse_search=ReverseSearchConfig(index_dir=str(tmp_path / "idx")))
    assert index_fingerprint(settings) == "reverse-index none"
    build_index(folder, tmp_path / "idx", settings.reverse_search)
    first = index_fingerprint(settings)
    assert first.startswith("reverse-index ") and first != "reverse-index none"
    build_index(
        folder, tmp_path / "idx", settings.reverse_search, meta={"a.png": {"caption": "new"}}
    )
    assert index_fingerprint(settings) != first
    assert read_generation(tmp_path / "idx") is not None


def test_missing_clip_model_is_uncertainty_not_a_crash(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    photo = folder / "a.png"
    Image.fromarray((np.random.default_rng(2).random((80, 96, 3)) * 255).astype(np.uint8)).save(
        photo
    )
    build_index(folder, tmp_path / "idx", ReverseSearchConfig())
    settings = Settings(
        reverse_search=ReverseSearchConfig(
            index_dir=str(tmp_path / "idx"), clip_model_path=str(tmp_path / "no-model")
        )
    )
    out = match_asset(Asset(id="asset:0", path=str(photo), kind="image"), settings)
    matches = [e.observed(ReverseSearchMatch) for e in out.evidence]
    assert [m.match_method if m else None for m in matches] == ["phash"]
    assert [u.code for u in out.uncertainty] == [UncertaintyCode.TOOL_MISSING]
    assert "CLIP" in out.uncertainty[0].detail


# ---- end to end ------------------------------------------------------------------------------


def _case(tmp_path: Path) -> Path:
    """A case whose photo carries no EXIF (only the index can date it)."""
    case = tmp_path / "case"
    case.mkdir()
    _rgb(EXAMPLE_PHOTO).save(case / "photo.jpg", quality=90)  # re-encoded without EXIF
    (case / "case.yaml").write_text(
        yaml.safe_dump(
            {
                "id": "paris-flood-reused",
                "claim": "Flooding in Paris on 14 March 2024: the Seine has burst its banks "
                "and the quays near the Île de la Cité are under water.",
                "media": [{"path": "photo.jpg"}],
                "context": {"date": "2024-03-14", "location": "Paris, France", "language": "en"},
            },
            allow_unicode=True,
        ),
        encoding="utf-8",
    )
    return case


def _collection_with_earlier_copy(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "archive"
    folder.mkdir()
    img = _rgb(EXAMPLE_PHOTO)
    img.resize((img.width * 3 // 4, img.height * 3 // 4)).save(folder / "saone.jpg", quality=70)
    rng = np.random.default_rng(9)
    Image.fromarray((rng.random((120, 160, 3)) * 255).astype(np.uint8)).save(folder / "other.png")
    meta = tmp_path / "meta.json"
    meta.write_text(
        json.dumps(
            {
                "saone.jpg": {
                    "source_url": "https://photos.example.org/lyon/saone-2019",
                    "first_seen": "2019-06-02",
                    "caption": "The Saône below Fourvière hill in Lyon on a sunny afternoon.",
                },
                "other.png": {"caption": "Unrelated test pattern", "first_seen": "2020-01-01"},
            }
        ),
        encoding="utf-8",
    )
    return folder, meta


def test_verify_cites_an_earlier_copy_with_another_caption(tmp_path: Path) -> None:
    data_dir = tmp_path / "store"
    folder, meta = _collection_with_earlier_copy(tmp_path)
    result = runner.invoke(
        app,
        [
            "index",
            "images",
            str(folder),
            "--meta",
            str(meta),
            "--data-dir",
            str(data_dir),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["indexed"] == 2 and summary["total"] == 2

    result = runner.invoke(
        app, ["verify", str(_case(tmp_path)), "--json", "--data-dir", str(data_dir)]
    )
    assert result.exit_code == 0, result.stderr
    verdict = json.loads(result.stdout)
    evidence = {e["id"]: e for e in verdict["evidence"]}
    match_ids = [i for i in evidence if i.startswith("ev:rsearch:")]
    assert len(match_ids) == 1
    match = evidence[match_ids[0]]
    assert match["source_type"] == SourceType.PRIOR_CAPTION.value
    assert match["url"] == "https://photos.example.org/lyon/saone-2019"

    by_dim = {s["dimension"]: s for s in verdict["subclaims"]}
    for dim in ("when", "where"):
        attacks = [
            a
            for a in by_dim[dim]["arguments"]
            if a["stance"] == "att" and match_ids[0] in a["evidence"]
        ]
        assert attacks, f"no {dim} attack cites the reverse-search match"
        assert all(a["verified"] for a in attacks)
    when_text = " ".join(a["text"] for a in by_dim["when"]["arguments"])
    assert "2019-06-02" in when_text and "Earlier-context reverse-search match" in when_text
    assert by_dim["when"]["decision"] in ("refuted", "weakly-refuted")
    codes = {u["code"] for u in verdict["uncertainty"]}
    assert UncertaintyCode.EARLIER_CONTEXT_MATCH.value in codes

    report_dir = Path(verdict["report_paths"]["markdown"]).parent
    markdown = (report_dir / "report.md").read_text(encoding="utf-8")
    assert "photos.example.org" in markdown
    maps = sorted((report_dir / "maps").glob("*.png"))
    assert len(maps) >= 4  # ELA, noise, ghost and combined maps of the photo
    html = (report_dir / "report.html").read_text(encoding="utf-8")
    for png in maps:
        assert png.name in markdown
        assert f'src="maps/{png.name}"' in html


def test_index_command_reports_bad_input(tmp_path: Path) -> None:
    result = runner.invoke(app, ["index", "images", str(tmp_path / "nowhere")])
    assert result.exit_code == 2
    assert "not a directory" in result.stderr
    meta = tmp_path / "m.json"
    meta.write_text("[1, 2]")
    (tmp_path / "imgs").mkdir()
    result = runner.invoke(app, ["index", "images", str(tmp_path / "imgs"), "--meta", str(meta)])
    assert result.exit_code == 2
    assert "m.json" in result.stderr


def test_keyframes_of_a_video_asset_are_matched_with_their_time(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    rng = np.random.default_rng(4)
    frame = Image.fromarray((rng.random((90, 120, 3)) * 255).astype(np.uint8))
    frame.save(folder / "still.png")
    build_index(
        folder,
        tmp_path / "idx",
        ReverseSearchConfig(),
        meta={"still.png": {"first_seen": "2020-05-01", "caption": "A still"}},
    )
    keyframe = tmp_path / "kf.jpg"
    frame.save(keyframe, quality=80)
    video = Asset(id="asset:2", path=str(tmp_path / "clip.mp4"), kind="video")
    settings = Settings(reverse_search=ReverseSearchConfig(index_dir=str(tmp_path / "idx")))
    assert match_asset(video, settings).evidence == ()  # the video file itself is not an image
    out = match_image(video, keyframe, settings, time_s=3.5)
    (ev,) = out.evidence
    assert ev.id.startswith("ev:rsearch:asset:2:t3_500:")
    assert ev.location is not None and ev.location.start_s == 3.5
    assert ev.published == "2020-05-01" and ev.content.startswith("Keyframe at 3.50 s")


def test_bombs_and_broken_files_never_crash_matching(tmp_path: Path) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    Image.new("RGB", (64, 48), "green").save(folder / "ok.png")
    Image.new("1", (10_000, 10_000)).save(folder / "bomb.png", optimize=True)
    report = build_index(folder, tmp_path / "idx", ReverseSearchConfig(), skip_unreadable=True)
    assert report.indexed == 1 and report.skipped[0].startswith("bomb.png")
    settings = Settings(reverse_search=ReverseSearchConfig(index_dir=str(tmp_path / "idx")))
    for name, payload in (("zero.jpg", b""), ("trunc.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF")):
        path = tmp_path / name
        path.write_bytes(payload)
        out = match_asset(Asset(id="asset:0", path=str(path), kind="image"), settings)
        assert out.evidence == ()
        assert [u.code for u in out.uncertainty] == [UncertaintyCode.MEDIA_UNREADABLE]
    bomb = Asset(id="asset:0", path=str(folder / "bomb.png"), kind="image")
    assert [u.code for u in match_asset(bomb, settings).uncertainty] == [
        UncertaintyCode.MEDIA_UNREADABLE
    ]


def test_reindexing_recomputes_media_nodes_and_nothing_else_changes(tmp_path: Path) -> None:
    """The index generation is in the media stage's fingerprint: an unchanged index reuses
    every node, a re-indexed one recomputes the media node (and what its output feeds)."""
    data_dir = tmp_path / "store"
    folder, meta = _collection_with_earlier_copy(tmp_path)
    case = _case(tmp_path)

    def index() -> None:
        result = runner.invoke(
            app, ["index", "images", str(folder), "--meta", str(meta), "--data-dir", str(data_dir)]
        )
        assert result.exit_code == 0, result.stderr

    def verify() -> tuple[int, int]:
        result = runner.invoke(app, ["verify", str(case), "--data-dir", str(data_dir)])
        assert result.exit_code == 0, result.stderr
        line = next(x for x in result.stdout.splitlines() if "stages run" in x)
        words = line.split()
        return int(words[2]), int(words[5])  # "run <id>: N stages run, M reused"

    index()
    first_run, _ = verify()
    assert first_run > 0
    assert verify() == (0, first_run)
    entries = json.loads(meta.read_text(encoding="utf-8"))
    entries["saone.jpg"]["caption"] = "Flooded quays of the Seine in Paris."
    meta.write_text(json.dumps(entries), encoding="utf-8")
    index()
    executed, reused = verify()
    assert executed >= 1 and reused >= 1
    store = Store(data_dir)
    try:
        latest = store.list_runs(1)[0]
        nodes = {n.key: n.reused for n in store.run_nodes(latest.run_id)}
    finally:
        store.close()
    assert nodes["bundle"] is True
    assert [k for k, reused in nodes.items() if k.startswith("media:") and not reused]
