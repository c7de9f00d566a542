"""Forensic maps, JPEG structure and border cues (semv.perception.forensics)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from semv.config import ForensicsConfig, OfflineAgentConfig
from semv.dimensions import ClaimView, rule_for
from semv.model import (
    Asset,
    BorderCues,
    Dimension,
    Evidence,
    EvidenceKind,
    ForensicMap,
    Modality,
    SourceType,
    Stance,
    Subclaim,
    UncertaintyCode,
)
from semv.perception import _forensic_maps as fm
from semv.perception._jpeg import _LUMA, ijg_table, read_structure
from semv.perception.forensics import analyze_image, compute_maps
from semv.perception.manipulation import load_model
from tests.conftest import shared_data

CASIA = "casia2-samples"


def _tampered() -> list[Path]:
    folder = shared_data(CASIA)
    return sorted(p for p in folder.glob("Tp_*") if not p.name.endswith("_gt.png"))


def _mask_blocks(image: Path, block: int) -> np.ndarray:
    gt = image.with_name(image.stem + "_gt.png")
    with Image.open(gt) as raw:
        mask = np.asarray(raw.convert("L"), dtype=np.float32) > 127
    return fm.block_mean(mask.astype(np.float32), block) > 0.5


def _asset(path: Path, kind: str = "image") -> Asset:
    return Asset(id="asset:0", path=str(path), kind=kind)


@pytest.mark.shared_data
def test_casia_combined_map_is_higher_inside_the_tampered_region() -> None:
    """For each tampered CASIA image, the mean combined score inside the gold mask exceeds the
    mean outside it (per-map ratios are printed for the closing note)."""
    cfg = ForensicsConfig()
    images = _tampered()
    assert len(images) >= 7
    failures = []
    for path in images:
        with Image.open(path) as raw:
            result = compute_maps(raw.convert("RGB"), cfg)
        inside = _mask_blocks(path, cfg.block)
        assert inside.shape == result.maps["combined"].scores.shape
        assert inside.any() and (~inside).any()
        ratios = {
            name: float(m.scores[inside].mean() / m.scores[~inside].mean())
            for name, m in result.maps.items()
        }
        print(path.name, {k: round(v, 2) for k, v in ratios.items()})
        if ratios["combined"] <= 1.0:
            failures.append((path.name, ratios["combined"]))
    assert failures == []


@pytest.mark.shared_data
def test_casia_evidence_carries_scores_thresholds_regions_and_maps(tmp_path: Path) -> None:
    path = _tampered()[0]
    cfg = ForensicsConfig(maps_dir=str(tmp_path / "maps"))
    out = analyze_image(_asset(path), cfg)
    by_id = {e.id: e for e in out.evidence}
    for name in ("ela", "noise", "ghost", "combined"):
        ev = by_id[f"ev:forensic:{name}:asset:0"]
        assert ev.source_type is SourceType.FORENSIC
        scored = ev.observed(ForensicMap)
        assert scored is not None and scored.combined == (name == "combined")
        assert scored.threshold == 0.50
        assert 0.0 <= scored.region_score <= 1.0
        assert scored.exceeds == (scored.region_score >= 0.50)
        assert ev.location is not None and ev.location.region is not None
        assert ev.provenance is not None and "Pillow" in (ev.provenance.tool_version or "")
        assert scored.map_png is not None
        png = tmp_path / "maps" / scored.map_png
        with Image.open(png) as heat:
            assert heat.format == "PNG"
            with Image.open(path) as original:
                assert heat.size == original.size
    assert "ev:forensic:border:asset:0" in by_id
    combined = by_id["ev:forensic:combined:asset:0"]
    scored = combined.observed(ForensicMap)
    assert scored is not None and scored.combined
    assert scored.manipulation_probability is not None
    assert 0.0 <= scored.manipulation_probability <= 1.0
    model = load_model()
    assert model is not None and scored.signals is not None
    # the pipeline computes exactly the signals the fitted model weighs
    names = [part.split("=")[0] for part in scored.signals.split("; ")]
    assert sorted(names) == sorted(model.used)
    flagged = scored.flagged_for_review or scored.copy_move is not None
    expected = [UncertaintyCode.FORENSIC_ANOMALY] if flagged else []
    assert [u.code for u in out.uncertainty] == expected


def _combined(
    score: float,
    traces: str,
    probability: float | None = None,
    threshold: float | None = None,
    gate: bool = True,
) -> Evidence:
    return Evidence(
        id="ev:forensic:combined:asset:0",
        source="semv forensics (Combined forensic)",
        source_type=SourceType.FORENSIC,
        modality=Modality.IMAGE,
        content=f"Combined forensic map: region score {score:.2f}.",
        observation=ForensicMap(
            kind=EvidenceKind.FORENSIC_COMBINED,
            map="combined",
            region_score=score,
            threshold=0.5,
            exceeds=score >= 0.5,
            region="0,0,48,48",
            editing_traces=traces,
            manipulation_probability=probability,
            manipulation_threshold=threshold,
            manipulation_model=None if probability is None else "1",
            manipulation_gate=gate,
        ),
        reliability=0.6,
    )


@pytest.mark.parametrize(
    ("score", "traces", "probability", "threshold", "gate", "stances"),
    [
        # a map anomaly with an editing trace but no calibrated probability: a review item only
        (0.72, "double-compression hint at quality 70", None, None, True, []),
        (0.72, "double-compression hint at quality 70", 0.41, 0.62, True, []),
        (0.31, "", 0.62, 0.62, True, [Stance.ATTACK]),
        (0.31, "Adobe Photoshop image resources in the JPEG", 0.90, 0.62, True, [Stance.ATTACK]),
        # forensics.manipulation_attacks off (the default): the probability is a review item
        (0.31, "", 0.90, 0.62, False, []),
    ],
)
def test_authenticity_is_attacked_only_through_the_calibrated_probability(
    score: float,
    traces: str,
    probability: float | None,
    threshold: float | None,
    gate: bool,
    stances: list[Stance],
) -> None:
    statement = "The photo is an unedited camera capture."
    view = ClaimView(
        subclaim=Subclaim(
            id="claim:authenticity",
            dimension=Dimension.AUTHENTICITY,
            statement=statement,
            claim_type="authenticity",
            asserted=True,
        ),
        claim_text=statement,
    )
    ev = _combined(score, traces, probability, threshold, gate)
    found = rule_for(Dimension.AUTHENTICITY)(view, ev, OfflineAgentConfig())
    assert [f.stance for f in found] == stances
    for dim in (Dimension.WHAT, Dimension.WHEN, Dimension.WHERE, Dimension.WHY):
        assert rule_for(dim)(view, ev, OfflineAgentConfig()) == []


@pytest.mark.shared_data
def test_casia_jpeg_structure_reads_photoshop_quantization() -> None:
    """The CASIA JPEGs were saved by Photoshop (EXIF Software, per SOURCE.txt): custom tables."""
    jpgs = [p for p in _tampered() if p.suffix == ".jpg"]
    assert jpgs
    for path in jpgs:
        with Image.open(path) as raw:
            structure = read_structure(raw)
        assert structure is not None
        assert set(structure.tables) >= {0, 1}
        assert not structure.standard_tables
        assert structure.quality is not None and 1 <= structure.quality <= 100


@pytest.mark.parametrize("quality", [35, 75, 92])
def test_quality_estimate_recovers_libjpeg_quality(quality: int) -> None:
    rng = np.random.default_rng(quality)
    img = Image.fromarray((rng.random((64, 64, 3)) * 255).astype(np.uint8))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=quality)
    buf.seek(0)
    with Image.open(buf) as raw:
        structure = read_structure(raw)
    assert structure is not None
    assert structure.quality == quality
    assert structure.standard_tables
    assert structure.tables[0] == ijg_table(_LUMA, quality)


def test_spliced_region_lights_up_on_a_synthetic_double_compression(tmp_path: Path) -> None:
    """A patch saved once at q=60 pasted into an image saved at q=95 (then saved at q=95)."""
    rng = np.random.default_rng(7)
    base = np.clip(rng.normal(128, 40, (256, 256, 3)), 0, 255).astype(np.uint8)
    base = np.asarray(Image.fromarray(base).resize((256, 256)), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(base).save(buf, "JPEG", quality=60)
    buf.seek(0)
    with Image.open(buf) as low:
        patch = np.asarray(low.convert("RGB"))[96:160, 96:160]
    spliced = base.copy()
    spliced[96:160, 96:160] = patch
    target = tmp_path / "spliced.jpg"
    Image.fromarray(spliced).save(target, quality=95)
    with Image.open(target) as raw:
        result = compute_maps(raw.convert("RGB"), ForensicsConfig())
    mask = np.zeros((256, 256), np.float32)
    mask[96:160, 96:160] = 1
    inside = fm.block_mean(mask, 16) > 0.5
    for name in ("ghost", "combined"):
        scores = result.maps[name].scores
        assert scores[inside].mean() > 2 * scores[~inside].mean(), name


def test_border_bands_are_found(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    inner = (rng.random((100, 160, 3)) * 255).astype(np.uint8)
    framed = np.zeros((140, 160, 3), np.uint8)
    framed[20:120] = inner
    path = tmp_path / "framed.png"
    Image.fromarray(framed).save(path)
    out = analyze_image(_asset(path), ForensicsConfig())
    border = next(e for e in out.evidence if e.id.startswith("ev:forensic:border"))
    bands = border.observed(BorderCues)
    assert bands is not None
    assert (bands.border_top, bands.border_bottom, bands.border_left) == (20, 20, 0)
    assert "ev:jpeg:asset:0" not in {e.id for e in out.evidence}  # PNG: no JPEG structure


@pytest.mark.parametrize(
    ("name", "content", "code"),
    [
        ("zero.jpg", b"", UncertaintyCode.MEDIA_UNREADABLE),
        ("text.jpg", b"this is not an image at all", UncertaintyCode.MEDIA_UNREADABLE),
    ],
)
def test_unreadable_images_become_uncertainty(
    tmp_path: Path, name: str, content: bytes, code: UncertaintyCode
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    out = analyze_image(_asset(path), ForensicsConfig())
    assert out.evidence == ()
    assert [u.code for u in out.uncertainty] == [code]
    assert name in out.uncertainty[0].detail


def test_truncated_tiny_and_oversized_images(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    whole = tmp_path / "whole.jpg"
    Image.fromarray((rng.random((200, 200, 3)) * 255).astype(np.uint8)).save(whole, quality=90)
    truncated = tmp_path / "truncated.jpg"
    truncated.write_bytes(whole.read_bytes()[:400])
    out = analyze_image(_asset(truncated), ForensicsConfig())
    assert out.evidence == () and out.uncertainty[0].code is UncertaintyCode.MEDIA_UNREADABLE

    tiny = tmp_path / "tiny.png"
    Image.new("RGB", (1, 1)).save(tiny)
    out = analyze_image(_asset(tiny), ForensicsConfig())
    assert out.evidence == () and out.uncertainty[0].code is UncertaintyCode.EMPTY_OUTPUT

    out = analyze_image(_asset(whole), ForensicsConfig(max_pixels=100))
    assert out.evidence == () and "max_pixels" in out.uncertainty[0].detail


def test_non_images_and_text_only_assets_are_skipped(tmp_path: Path) -> None:
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"\x00" * 64)
    assert analyze_image(_asset(clip, "video"), ForensicsConfig()).evidence == ()
    photo = tmp_path / "p.jpg"
    Image.new("RGB", (64, 64)).save(photo)
    asset = Asset(id="asset:0", path=str(photo), kind="image", loaded=False)
    out = analyze_image(asset, ForensicsConfig())
    assert out.evidence == () and out.uncertainty == ()


def test_decompression_bomb_is_refused_by_pillows_limit(tmp_path: Path) -> None:
    """Pillow's MAX_IMAGE_PIXELS stays in force: a 10000x10000 PNG (tiny on disk) is refused."""
    bomb = tmp_path / "bomb.png"
    Image.new("1", (10_000, 10_000)).save(bomb, optimize=True)
    assert bomb.stat().st_size < 200_000
    out = analyze_image(_asset(bomb), ForensicsConfig(max_pixels=10**9))
    assert out.evidence == ()
    assert [u.code for u in out.uncertainty] == [UncertaintyCode.MEDIA_UNREADABLE]
    assert "size limit" in out.uncertainty[0].detail
