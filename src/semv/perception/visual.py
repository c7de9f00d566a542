"""Classical visual features of an image or keyframe: dominant colours and simple scene cues.

No learned model: median-cut colour quantization names the dominant colours; brightness,
colourfulness (Hasler & Süsstrunk 2003), edge density, and the share of sky-like pixels in the
top third and of vegetation-like pixels give a coarse scene type. These are weak cues for
the ``describe`` role, recorded as ``ev:visual:<asset>[:f<n>]`` with the values they rest on.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Final

from semv.model import (
    Asset,
    Evidence,
    MediaEvidence,
    MediaKind,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    UncertaintyCode,
    VisualFeatures,
)
from semv.perception.extraction import ExtractContext, nothing, only
from semv.perception.integrity import STRUCTURAL_RELEVANCE
from semv.perception.video import keyframes_evidence_id

__all__ = ["colour_name", "scene_features", "visual_features"]

_SIDE: Final = 96
_COLOURS: Final[tuple[tuple[str, tuple[int, int, int]], ...]] = (
    ("black", (20, 20, 20)),
    ("white", (240, 240, 240)),
    ("grey", (128, 128, 128)),
    ("red", (200, 30, 30)),
    ("orange", (240, 140, 30)),
    ("yellow", (235, 220, 40)),
    ("green", (50, 160, 60)),
    ("teal", (30, 150, 150)),
    ("blue", (40, 80, 200)),
    ("sky blue", (135, 190, 235)),
    ("purple", (120, 50, 160)),
    ("pink", (235, 130, 180)),
    ("brown", (120, 80, 40)),
    ("beige", (215, 195, 160)),
)
_SKY_SHARE: Final = 0.35
_GREEN_SHARE: Final = 0.25
_DOCUMENT_NEUTRAL: Final = 0.85
_DARK: Final = 0.22


def colour_name(rgb: tuple[int, int, int]) -> str:
    """The nearest named colour (Euclidean distance in RGB)."""
    return min(
        _COLOURS, key=lambda item: sum((a - b) ** 2 for a, b in zip(item[1], rgb, strict=True))
    )[0]


def scene_features(path: Path) -> dict[str, Any]:
    """Dominant colours with shares, brightness, colourfulness, edge density, scene type."""
    import numpy as np
    from PIL import Image, ImageFilter

    with Image.open(path) as opened:
        image = opened.convert("RGB")
    small = image.resize((_SIDE, _SIDE))
    quant = small.quantize(colors=5, method=Image.Quantize.MEDIANCUT)
    palette = quant.getpalette() or []
    counts = sorted(quant.getcolors() or [], reverse=True)
    total = _SIDE * _SIDE
    shares: dict[str, float] = {}
    for count, entry in counts:
        index = int(entry) if isinstance(entry, int) else 0
        rgb = (palette[3 * index], palette[3 * index + 1], palette[3 * index + 2])
        name = colour_name(rgb)
        shares[name] = shares.get(name, 0.0) + count / total
    dominant = [
        {"colour": name, "share": round(share, 3)}
        for name, share in sorted(shares.items(), key=lambda kv: -kv[1])
    ]
    px = np.asarray(small, dtype=np.float64)
    r, g, b = px[..., 0], px[..., 1], px[..., 2]
    brightness = float(px.mean() / 255.0)
    rg, yb = r - g, 0.5 * (r + g) - b
    colourfulness = float(
        (math.hypot(rg.std(), yb.std()) + 0.3 * math.hypot(rg.mean(), yb.mean())) / 255.0
    )
    edges = np.asarray(small.convert("L").filter(ImageFilter.FIND_EDGES), dtype=np.float64)
    edge_density = float((edges > 40).mean())
    top = px[: _SIDE // 3]
    sky = float(((top[..., 2] > top[..., 0] + 15) & (top[..., 2] > 110)).mean())
    green = float(((g > r + 10) & (g > b + 10)).mean())
    spread = px.max(axis=2) - px.min(axis=2)
    neutral = float((spread < 25).mean())
    if neutral >= _DOCUMENT_NEUTRAL and colourfulness < 0.08:
        scene = "document, screenshot or graphic (mostly neutral tones)"
    elif brightness < _DARK:
        scene = "dark scene (night or low light)"
    elif sky >= _SKY_SHARE or green >= _GREEN_SHARE:
        scene = "outdoor scene (sky or vegetation)"
    else:
        scene = "unclear (no sky, vegetation or document cues)"
    return {
        "dominant_colours": dominant,
        "brightness": round(brightness, 3),
        "colourfulness": round(colourfulness, 3),
        "edge_density": round(edge_density, 3),
        "sky_share_top": round(sky, 3),
        "vegetation_share": round(green, 3),
        "neutral_share": round(neutral, 3),
        "scene_type": scene,
    }


def visual_features(asset: Asset, path: Path, context: ExtractContext) -> MediaEvidence:
    """Image extractor: classical features of the asset (an image) or of a keyframe."""
    if context.frame is None and (not context.usable or context.kind is not MediaKind.IMAGE):
        return nothing(asset)
    try:
        features = scene_features(path)
    except Exception as exc:  # Pillow/numpy errors on odd images
        return nothing(
            asset,
            UncertaintyCode.MEDIA_UNREADABLE,
            f"visual features of {context.subject()}: {type(exc).__name__}: {exc}",
        )
    colours = ", ".join(f"{c['colour']} {c['share']:.0%}" for c in features["dominant_colours"][:3])
    content = (
        f"Visual features of {context.subject()}: dominant colours {colours}; "
        f"{features['scene_type']}; brightness {features['brightness']:.2f}, "
        f"colourfulness {features['colourfulness']:.2f}, edge density "
        f"{features['edge_density']:.2f}."
    )
    import PIL

    evidence = Evidence(
        id=context.evidence_id("visual", asset),
        source="semv visual features",
        source_type=SourceType.OTHER,
        modality=Modality.IMAGE,
        content=content,
        observation=VisualFeatures.model_validate(features),
        reliability=0.5,
        relevance=STRUCTURAL_RELEVANCE,
        location=context.location(asset),
        provenance=Provenance(
            producer=ProducerKind.TOOL,
            agent="semv visual features",
            tool_version=f"Pillow {PIL.__version__}",
            method="median-cut quantization to 5 colours; Hasler–Süsstrunk colourfulness; "
            "edge density; sky/vegetation shares",
            derived_from=context.derived_from(asset, keyframes_evidence_id(asset.id)),
        ),
    )
    return only(asset, evidence)
