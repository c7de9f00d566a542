"""The offline ``describe`` role: a structured observation assembled from the media evidence.

No vision model: the observation is put together from what the extractors measured (OCR
lines, the transcript, classical visual features, EXIF and container metadata,
keyframes). Every field names the evidence it comes from; text read or heard in the media is
quoted as data.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final

from semv.agents._protocol import DescribeInput, Description
from semv.model import Evidence

__all__ = ["describe_asset"]

_QUOTE_CHARS: Final = 160


def _kind(ev: Evidence) -> str:
    return str(ev.data.get("kind") or ("exif" if ev.id.startswith("ev:exif:") else ""))


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _QUOTE_CHARS else flat[: _QUOTE_CHARS - 1].rstrip() + "…"


def describe_asset(request: DescribeInput) -> Description:
    """Assemble the observation; deterministic in the request."""
    by_kind: dict[str, list[Evidence]] = {}
    for ev in request.evidence:
        by_kind.setdefault(_kind(ev), []).append(ev)
    obs: dict[str, Any] = {"media_kind": request.asset.kind.value}
    parts: list[str] = [request.asset.kind.value.capitalize()]
    used: list[str] = []

    visual = by_kind.get("visual", [])
    if visual:
        scenes = Counter(str(ev.data.get("scene_type")) for ev in visual)
        scene, _ = scenes.most_common(1)[0]
        colours: dict[str, float] = {}
        for ev in visual:
            for c in ev.data.get("dominant_colours", []):
                name = str(c["colour"])
                colours[name] = colours.get(name, 0.0) + float(c["share"]) / len(visual)
        obs["scene_type"] = scene
        ranked = sorted(colours.items(), key=lambda kv: (-kv[1], kv[0]))
        obs["dominant_colours"] = [name for name, _ in ranked[:3]]
        parts.append(scene)
        parts.append("dominant colours " + ", ".join(obs["dominant_colours"]))
        used += [ev.id for ev in visual]

    frames = by_kind.get("keyframes", [])
    if frames:
        count = len(frames[0].data.get("keyframes", []))
        obs["keyframes"] = count
        parts.append(f"{count} keyframe(s) over {frames[0].data.get('duration_s', 0):.1f} s")
        used.append(frames[0].id)

    ocr = by_kind.get("ocr", [])
    if ocr:
        lines = [line for ev in ocr for line in str(ev.content).splitlines() if line.strip()]
        unique = list(dict.fromkeys(lines))
        languages = sorted({lang for ev in ocr for lang in ev.data.get("languages", [])})
        obs["visible_text"] = unique
        obs["text_languages"] = languages
        parts.append(f"visible text ({', '.join(languages)}): “{_quote(' / '.join(unique))}”")
        used += [ev.id for ev in ocr]

    speech = by_kind.get("transcript", [])
    if speech:
        ev = speech[0]
        obs["speech"] = ev.content
        obs["speech_language"] = ev.data.get("language")
        parts.append(f"speech ({ev.data.get('language')}): “{_quote(ev.content)}”")
        used.append(ev.id)

    exif = by_kind.get("exif", [])
    if exif:
        data = exif[0].data
        for key in ("capture_time", "make", "model", "software"):
            if data.get(key):
                obs[key] = data[key]
        if "latitude" in data and "longitude" in data:
            obs["gps"] = [data["latitude"], data["longitude"]]
        meta = []
        if data.get("capture_time"):
            meta.append(f"captured {data['capture_time']}")
        camera = " ".join(str(data[k]) for k in ("make", "model") if data.get(k))
        if camera:
            meta.append(f"with {camera}")
        if "gps" in obs:
            meta.append(f"at GPS {obs['gps'][0]:.4f}, {obs['gps'][1]:.4f}")
        if data.get("software"):
            meta.append(f"software {data['software']}")
        if meta:
            parts.append(" ".join(meta))
        used.append(exif[0].id)

    container = by_kind.get("container", [])
    if container and "duration_s" in container[0].data:
        obs["duration_s"] = container[0].data["duration_s"]
        used.append(container[0].id)

    if len(parts) == 1:
        parts.append("nothing could be observed offline (no readable text, features or metadata)")
    return Description(
        text="; ".join(parts) + ".",
        observations=obs,
        evidence=tuple(dict.fromkeys(used)),
    )
