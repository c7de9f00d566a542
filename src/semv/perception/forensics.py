"""Forensic evidence of one image asset (``media:<asset>`` extractor, §4.2, Table S3/S4).

``analyze_image`` returns a partial ``MediaEvidence``:

* ``ev:forensic:{ela,noise,ghost}:<asset>``: one score map each (``semv.perception._forensic_maps``)
  with its region score, the region (λ_e) and the threshold it was judged against (Table S4
  "forensic 0.50");
* ``ev:forensic:combined:<asset>``: the mean of the three score maps (no single map lights up
  inside every tampered region of the CASIA samples, their mean does), carrying the calibrated
  manipulation probability of ``semv.perception.manipulation`` (double-JPEG quantization,
  copy-move, resampling and the maps, combined by a model fitted on a declared public split);
  the authenticity rule argues from that probability only (``docs/architecture.md``);
* ``ev:jpeg:<asset>``: quantization tables, estimated quality, editing-software markers and a
  double-compression hint (a dip of the global JPEG-ghost curve below the estimated quality);
* ``ev:forensic:border:<asset>``: uniform border bands (letterboxing, screenshots, recaptures).

Each map is saved as a PNG heat map, content-addressed, in ``forensics.maps_dir``; the pipeline
copies the maps a report cites next to it. Unreadable, oversized or tiny images become
uncertainty items, never evidence of manipulation.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
from PIL import Image

from semv.atomic import write_bytes_atomic
from semv.config import ForensicsConfig
from semv.model import (
    Asset,
    BorderCues,
    Evidence,
    EvidenceKind,
    ForensicMap,
    MediaEvidence,
    MediaKind,
    MediaLocation,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    Stage,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.model import JpegStructure as JpegObservation
from semv.perception import _forensic_maps as fm
from semv.perception._jpeg import JpegStructure, read_structure
from semv.perception._signal_versions import forensic_tool_version
from semv.perception.manipulation import (
    FEATURES,
    ManipulationModel,
    Signals,
    forensic_signals,
    load_model,
)

__all__ = [
    "FORENSIC_RELIABILITY",
    "MAP_NAMES",
    "ForensicResult",
    "analyze_image",
    "compute_maps",
    "forensic_tool_version",
]

FORENSIC_RELIABILITY: Final = 0.6
"""r_e of a forensic map: classical maps flag textures and resaves as well as splices."""
STRUCTURE_RELIABILITY: Final = 0.8
"""r_e of JPEG structure: what the container says is exact, its interpretation is not."""
MAP_NAMES: Final = ("ela", "noise", "ghost")
_MIN_BLOCKS: Final = 2
_STAGES: Final = (Stage.RETRIEVE,)
_METHODS: Final = {
    "ela": "error level analysis: |I - JPEG_q(I)| per block",
    "noise": "noise residual: std of I - median3(I) per block, two-sided",
    "ghost": "JPEG ghost: max over q of |robust z| of |I - JPEG_q(I)|^2 per block",
    "combined": "mean of the ELA, noise-residual and JPEG-ghost score maps; calibrated "
    "manipulation probability (logistic model over the maps, double-JPEG quantization, SIFT "
    "copy-move and resampling traces)",
}
_LABELS: Final = {
    "ela": "ELA",
    "noise": "Noise-residual",
    "ghost": "JPEG-ghost",
    "combined": "Combined forensic",
}


@dataclass(frozen=True)
class ForensicResult:
    """The score maps of one image (block grid) and its size."""

    maps: dict[str, fm.ScoreMap]
    width: int
    height: int


def compute_maps(img: Image.Image, cfg: ForensicsConfig) -> ForensicResult:
    """ELA, noise-residual, JPEG-ghost and combined score maps of an RGB image."""
    b = cfg.block
    ela = fm.robust_scores(fm.block_mean(fm.ela_values(img, cfg.ela_quality), b), cfg.robust_z)
    noise = fm.robust_scores(fm.block_std(fm.noise_values(img), b), cfg.robust_z, two_sided=True)
    ghost = fm.logistic(fm.ghost_z(img, cfg.ghost_qualities, b), cfg.robust_z)
    combined = ((ela + noise + ghost) / 3.0).astype(np.float32)
    maps = {
        name: fm.region_of(name, scores, b, cfg.window_blocks)
        for name, scores in (
            ("ela", ela),
            ("noise", noise),
            ("ghost", ghost),
            ("combined", combined),
        )
    }
    return ForensicResult(maps=maps, width=img.width, height=img.height)


def analyze_image(
    asset: Asset, cfg: ForensicsConfig, *, all_signals: bool = False
) -> MediaEvidence:
    """Forensic maps, JPEG structure, border cues and the calibrated manipulation probability
    of an image asset. The signals computed are those the fitted model weighs, or every one
    with ``all_signals`` (``semv forensics``)."""
    if not asset.loaded or asset.kind is not MediaKind.IMAGE:
        return MediaEvidence(asset_id=asset.id, evidence=())
    opened = _open(asset, cfg)
    if isinstance(opened, UncertaintyItem):
        return MediaEvidence(asset_id=asset.id, evidence=(), uncertainty=(opened,))
    img, structure = opened
    if img.width < cfg.block * _MIN_BLOCKS or img.height < cfg.block * _MIN_BLOCKS:
        detail = (
            f"forensics: {img.width}x{img.height} image is smaller than "
            f"{_MIN_BLOCKS}x{_MIN_BLOCKS} blocks of {cfg.block} px; no maps computed"
        )
        return MediaEvidence(
            asset_id=asset.id, evidence=(), uncertainty=(_item(asset, detail, empty=True),)
        )
    result = compute_maps(img, cfg)
    version = forensic_tool_version()
    jpeg = _jpeg_evidence(asset, img, structure, cfg, version) if structure is not None else None
    traces = _editing_traces(jpeg)
    evidence = [_map_evidence(asset, result, name, cfg, version, traces) for name in MAP_NAMES]
    scored_model = _manipulation(img, structure, result, cfg, all_signals=all_signals)
    combined = _map_evidence(asset, result, "combined", cfg, version, traces, scored_model)
    evidence.append(combined)
    if jpeg is not None:
        evidence.append(jpeg)
    evidence.append(_border_evidence(asset, img, cfg, version))
    scored = combined.observed(ForensicMap)
    review = _review_item(asset, scored, traces, cfg)
    uncertainty = (review,) if review is not None else ()
    return MediaEvidence(asset_id=asset.id, evidence=tuple(evidence), uncertainty=uncertainty)


def _manipulation(
    img: Image.Image,
    structure: JpegStructure | None,
    result: ForensicResult,
    cfg: ForensicsConfig,
    *,
    all_signals: bool = False,
) -> tuple[ManipulationModel, Signals, float] | None:
    """The fitted model, the image's signals and its calibrated probability (None when the
    model is switched off or not shipped)."""
    model = load_model() if cfg.manipulation else None
    if model is None:
        return None
    signals = forensic_signals(
        img,
        cfg,
        quality=structure.quality if structure is not None else None,
        q_luma=structure.tables.get(0) if structure is not None else None,
        region_scores={name: m.region_score for name, m in result.maps.items()},
        features=FEATURES if all_signals else model.used,
    )
    return model, signals, model.probability(signals.values)


def _review_item(
    asset: Asset, scored: ForensicMap | None, traces: tuple[str, ...], cfg: ForensicsConfig
) -> UncertaintyItem | None:
    """A review item when the calibrated probability reaches the review threshold (chosen for
    at most 5 % false alarms on real unedited photos) or a cloned region is verified: what a
    reviewer should look at, not a verdict. The classical maps alone never raise it (they
    flag most textured or resized authentic photos)."""
    if scored is None:
        return None
    flagged = scored.flagged_for_review
    if not flagged and not scored.copy_move:
        return None
    parts = []
    if flagged:
        parts.append(
            f"calibrated manipulation probability {scored.manipulation_probability:.2f} at or "
            f"above the review threshold {scored.review_threshold:.2f} (at most 5 % of real "
            "unedited photos reach it; a screening score, not a finding"
            + ("" if scored.argues else "; it does not argue against authenticity")
            + ")"
        )
    if scored.copy_move:
        parts.append(
            f"possible cloned region {scored.copy_move} (verified: the source region, moved, "
            "reproduces the copy)"
        )
    if traces:
        parts.append("JPEG editing traces: " + "; ".join(traces))
    return UncertaintyItem(
        code=UncertaintyCode.FORENSIC_ANOMALY,
        subject=asset.id,
        detail="; ".join(parts),
        stages=_STAGES,
    )


def _editing_traces(jpeg: Evidence | None) -> tuple[str, ...]:
    """Container-level traces of re-saving or editing that corroborate a map anomaly."""
    structure = jpeg.observed(JpegObservation) if jpeg is not None else None
    if structure is None:
        return ()
    traces: list[str] = []
    if structure.double_compression_hint:
        traces.append(f"double-compression hint at quality {structure.ghost_dip_quality}")
    if "Photoshop" in (structure.editor_markers or ""):
        traces.append("Adobe Photoshop image resources in the JPEG")
    return tuple(traces)


# ---- reading -----------------------------------------------------------------------------


def _open(
    asset: Asset, cfg: ForensicsConfig
) -> tuple[Image.Image, JpegStructure | None] | UncertaintyItem:
    path = Path(asset.path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as raw:
                if raw.width * raw.height > cfg.max_pixels:
                    return _item(
                        asset,
                        f"forensics: {raw.width}x{raw.height} exceeds forensics.max_pixels "
                        f"({cfg.max_pixels}); not analysed",
                        empty=True,
                    )
                structure = read_structure(raw)
                raw.load()
                img = raw.convert("RGB")
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        return _item(asset, f"forensics: {path.name}: refused by Pillow's size limit: {exc}")
    except (OSError, ValueError, SyntaxError) as exc:
        return _item(asset, f"forensics: {path.name}: cannot decode image: {exc}")
    return img, structure


# ---- evidence ----------------------------------------------------------------------------


def _provenance(asset: Asset, name: str, version: str, method: str) -> Provenance:
    return Provenance(
        producer=ProducerKind.TOOL,
        agent=f"semv.forensics/{name}",
        tool_version=version,
        method=method,
        derived_from=(asset.id,),
    )


def _map_evidence(
    asset: Asset,
    result: ForensicResult,
    name: str,
    cfg: ForensicsConfig,
    version: str,
    traces: tuple[str, ...] = (),
    scored_model: tuple[ManipulationModel, Signals, float] | None = None,
) -> Evidence:
    smap = result.maps[name]
    score = round(smap.region_score, 4)
    exceeds = score >= cfg.threshold
    x, y, w, h = smap.region
    png = _save_map(smap.scores, result.width, result.height, cfg)
    judged = "at or above" if exceeds else "below"
    text = (
        f"{_LABELS[name]} map: region score {score:.2f} {judged} the threshold "
        f"{cfg.threshold:.2f}; most anomalous region x={x}, y={y}, {w}x{h} px"
    )
    data: dict[str, Any] = {
        "kind": EvidenceKind.FORENSIC_COMBINED if name == "combined" else EvidenceKind.FORENSIC_MAP,
        "map": name,
        "region_score": score,
        "threshold": cfg.threshold,
        "exceeds": exceeds,
        "region": f"{x},{y},{w},{h}",
    }
    if name == "combined":
        parts = {m: round(result.maps[m].region_score, 4) for m in MAP_NAMES}
        data.update({f"{m}_score": v for m, v in parts.items()})
        text += " (" + ", ".join(f"{_LABELS[m]} {v:.2f}" for m, v in parts.items()) + ")"
        data["editing_traces"] = "; ".join(traces)
        if traces:
            text += "; editing traces: " + "; ".join(traces)
        if scored_model is not None:
            data.update(_model_data(*scored_model))
            data["manipulation_gate"] = cfg.manipulation_attacks
            data["review_threshold"] = cfg.review_threshold
            text += "; " + _model_text(*scored_model)
    if png is not None:
        data["map_png"] = png
        text += f"; map maps/{png}"
    observation = ForensicMap.model_validate(data)
    method = (
        f"{_METHODS[name]}; {cfg.block}-px blocks, robust z (median/MAD), score 0.5 at "
        f"z={cfg.robust_z:g}; region = best {cfg.window_blocks}x{cfg.window_blocks}-block window"
    )
    return Evidence(
        id=f"ev:forensic:{name}:{asset.id}",
        source=f"semv forensics ({_LABELS[name]})",
        source_type=SourceType.FORENSIC,
        modality=Modality.IMAGE,
        content=text + ".",
        observation=observation,
        reliability=FORENSIC_RELIABILITY,
        location=MediaLocation(asset_id=asset.id, region=(x, y, w, h)),
        provenance=_provenance(asset, name, version, method),
    )


def _model_data(model: ManipulationModel, signals: Signals, p: float) -> dict[str, Any]:
    data: dict[str, Any] = {
        "manipulation_probability": round(p, 4),
        "manipulation_threshold": model.threshold,
        "manipulation_model": model.version,
        "signals": "; ".join(f"{k}={v:g}" for k, v in signals.values.items()),
    }
    if signals.copy_move_source is not None and signals.copy_move_target is not None:
        a, b = signals.copy_move_source, signals.copy_move_target
        data["copy_move"] = f"{a[0]},{a[1]},{a[2]},{a[3]} -> {b[0]},{b[1]},{b[2]},{b[3]}"
    return data


def _model_text(model: ManipulationModel, signals: Signals, p: float) -> str:
    judged = "at or above" if p >= model.threshold else "below"
    top = sorted(model.contributions(signals.values).items(), key=lambda kv: -abs(kv[1]))[:3]
    drivers = ", ".join(f"{k} {v:+.2f}" for k, v in top)
    return (
        f"calibrated manipulation probability {p:.2f} {judged} the fitted threshold "
        f"{model.threshold:.2f} (model v{model.version}; strongest terms: {drivers})"
    )


def _double_compression(
    img: Image.Image, structure: JpegStructure, cfg: ForensicsConfig
) -> tuple[int | None, float | None]:
    """The quality of the deepest ghost-curve dip below the estimated quality, and its depth."""
    if structure.quality is None:
        return None, None
    qualities = tuple(q for q in sorted(cfg.ghost_qualities) if q < structure.quality - 5)
    if len(qualities) < 3:
        return None, None
    curve = fm.ghost_curve(img, qualities)
    best: tuple[int | None, float | None] = (None, None)
    for i in range(1, len(curve) - 1):
        ratio = curve[i] / max(min(curve[i - 1], curve[i + 1]), 1e-9)
        if ratio < cfg.ghost_dip and (best[1] is None or ratio < best[1]):
            best = (qualities[i], round(ratio, 3))
    return best


def _jpeg_evidence(
    asset: Asset, img: Image.Image, structure: JpegStructure, cfg: ForensicsConfig, version: str
) -> Evidence:
    data: dict[str, Any] = structure.data()
    parts = []
    if structure.quality is not None:
        tables = "standard IJG tables" if structure.standard_tables else "custom tables"
        parts.append(
            f"estimated quality {structure.quality} ({tables}, mean deviation "
            f"{structure.table_deviation:.2f})"
        )
    if structure.subsampling:
        parts.append(f"chroma subsampling {structure.subsampling}")
    if structure.editor_markers:
        parts.append("editor markers: " + "; ".join(structure.editor_markers))
    dip_q, dip = _double_compression(img, structure, cfg)
    data["double_compression_hint"] = dip_q is not None
    if dip_q is not None:
        data["ghost_dip_quality"] = dip_q
        data["ghost_dip_ratio"] = dip
        parts.append(
            f"double-compression hint: the JPEG-ghost curve dips at quality {dip_q} "
            f"(ratio {dip:.2f} < {cfg.ghost_dip:.2f}), below the current quality"
        )
    else:
        parts.append("no double-compression dip in the JPEG-ghost curve")
    return Evidence(
        id=f"ev:jpeg:{asset.id}",
        source="semv forensics (JPEG structure)",
        source_type=SourceType.FORENSIC,
        modality=Modality.IMAGE,
        content="JPEG structure: " + "; ".join(parts) + ".",
        observation=JpegObservation.model_validate(data),
        reliability=STRUCTURE_RELIABILITY,
        location=MediaLocation(asset_id=asset.id),
        provenance=_provenance(
            asset,
            "jpeg",
            version,
            "quantization tables vs IJG tables scaled to q=1..100; APP segment signatures; "
            "global JPEG-ghost curve",
        ),
    )


def _border_evidence(
    asset: Asset, img: Image.Image, cfg: ForensicsConfig, version: str
) -> Evidence:
    grey = np.asarray(img.convert("L"), dtype=np.float32)
    bands = {
        "top": _band(grey, cfg.border_std),
        "bottom": _band(grey[::-1], cfg.border_std),
        "left": _band(grey.T, cfg.border_std),
        "right": _band(grey.T[::-1], cfg.border_std),
    }
    covered = (bands["top"] + bands["bottom"]) * img.width + (
        bands["left"] + bands["right"]
    ) * img.height
    fraction = round(min(covered / float(img.width * img.height), 1.0), 4)
    found = {k: v for k, v in bands.items() if v > 0}
    if found:
        text = (
            "Uniform border bands ("
            + ", ".join(f"{k} {v} px" for k, v in found.items())
            + f"; {fraction:.0%} of the frame): a cue of letterboxing, a screenshot or a recapture."
        )
    else:
        text = "No uniform border bands at the image edges."
    return Evidence(
        id=f"ev:forensic:border:{asset.id}",
        source="semv forensics (borders)",
        source_type=SourceType.FORENSIC,
        modality=Modality.IMAGE,
        content=text,
        observation=BorderCues(
            border_top=bands["top"],
            border_bottom=bands["bottom"],
            border_left=bands["left"],
            border_right=bands["right"],
            border_fraction=fraction,
        ),
        reliability=FORENSIC_RELIABILITY,
        location=MediaLocation(asset_id=asset.id),
        provenance=_provenance(
            asset, "border", version, f"edge rows/columns with grey std < {cfg.border_std:g}"
        ),
    )


_DARK: Final = 24.0
_LIGHT: Final = 232.0
"""Grey levels below/above which a uniform edge row is a bar (black letterbox, white frame),
not a uniform part of the scene such as a clear sky."""


def _band(grey: Any, max_std: float) -> int:
    """How many leading rows of ``grey`` are uniform (std below ``max_std``) and near black or
    near white, at most half the image."""
    limit = grey.shape[0] // 2
    rows = grey[:limit]
    stds, means = rows.std(axis=1), rows.mean(axis=1)
    n = 0
    while n < limit and stds[n] < max_std and (means[n] <= _DARK or means[n] >= _LIGHT):
        n += 1
    return n


# ---- maps on disk ------------------------------------------------------------------------


def render_map(scores: Any, width: int, height: int) -> bytes:
    """A PNG heat map (JET) of a block score map, scaled to the image size."""
    grey = np.clip(scores * 255.0, 0, 255).astype(np.uint8)
    big = cv2.resize(grey, (width, height), interpolation=cv2.INTER_NEAREST)
    ok, buf = cv2.imencode(".png", cv2.applyColorMap(big, cv2.COLORMAP_JET))
    if not ok:  # pragma: no cover - OpenCV always encodes a uint8 image
        raise ValueError("cannot encode map as PNG")
    return bytes(buf.tobytes())


def _save_map(scores: Any, width: int, height: int, cfg: ForensicsConfig) -> str | None:
    """Write the map PNG as ``<sha256>.png`` into ``maps_dir`` (atomically); its file name."""
    if cfg.maps_dir is None:
        return None
    png = render_map(scores, width, height)
    name = hashlib.sha256(png).hexdigest() + ".png"
    folder = Path(cfg.maps_dir)
    target = folder / name
    if target.is_file():
        return name
    write_bytes_atomic(target, png, prefix=".map-")
    return name


def _item(asset: Asset, detail: str, *, empty: bool = False) -> UncertaintyItem:
    code = UncertaintyCode.EMPTY_OUTPUT if empty else UncertaintyCode.MEDIA_UNREADABLE
    return UncertaintyItem(code=code, subject=asset.id, detail=detail, stages=_STAGES)
