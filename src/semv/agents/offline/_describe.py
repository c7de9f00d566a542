"""The offline ``describe`` role: a structured observation assembled from the media evidence.

No vision model: the observation is put together from what the extractors measured (OCR
lines, the transcript, classical visual features, EXIF and container metadata,
keyframes). Every field names the evidence it comes from; text read or heard in the media is
quoted as data.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Final, TypeVar

from semv.agents._protocol import DescribeInput, Description
from semv.model import (
    Container,
    Evidence,
    Exif,
    Keyframes,
    ObservationBase,
    OcrText,
    Transcript,
    VisualFeatures,
)

__all__ = ["describe_asset"]

_QUOTE_CHARS: Final = 160
_O = TypeVar("_O", bound=ObservationBase)


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _QUOTE_CHARS else flat[: _QUOTE_CHARS - 1].rstrip() + "…"


def _of(evidence: Sequence[Evidence], cls: type[_O]) -> list[tuple[Evidence, _O]]:
    """The items whose observation is a ``cls``, with it."""
    return [(ev, obs) for ev in evidence if (obs := ev.observed(cls)) is not None]


def describe_asset(request: DescribeInput) -> Description:
    """Assemble the observation; deterministic in the request."""
    obs: dict[str, Any] = {"media_kind": request.asset.kind.value}
    parts: list[str] = [request.asset.kind.value.capitalize()]
    used: list[str] = []

    visual = _of(request.evidence, VisualFeatures)
    if visual:
        scenes = Counter(features.scene_type for _, features in visual)
        scene, _ = scenes.most_common(1)[0]
        colours: dict[str, float] = {}
        for _, features in visual:
            for c in features.dominant_colours:
                colours[c.colour] = colours.get(c.colour, 0.0) + c.share / len(visual)
        obs["scene_type"] = scene
        ranked = sorted(colours.items(), key=lambda kv: (-kv[1], kv[0]))
        obs["dominant_colours"] = [name for name, _ in ranked[:3]]
        parts.append(scene)
        parts.append("dominant colours " + ", ".join(obs["dominant_colours"]))
        used += [ev.id for ev, _ in visual]

    frames = _of(request.evidence, Keyframes)
    if frames:
        first, cut = frames[0]
        obs["keyframes"] = len(cut.keyframes)
        parts.append(f"{len(cut.keyframes)} keyframe(s) over {cut.duration_s:.1f} s")
        used.append(first.id)

    ocr = _of(request.evidence, OcrText)
    if ocr:
        lines = [line for ev, _ in ocr for line in str(ev.content).splitlines() if line.strip()]
        unique = list(dict.fromkeys(lines))
        languages = sorted({lang for _, text in ocr for lang in text.languages})
        obs["visible_text"] = unique
        obs["text_languages"] = languages
        parts.append(f"visible text ({', '.join(languages)}): “{_quote(' / '.join(unique))}”")
        used += [ev.id for ev, _ in ocr]

    speech = _of(request.evidence, Transcript)
    if speech:
        ev, transcript = speech[0]
        obs["speech"] = ev.content
        obs["speech_language"] = transcript.language
        parts.append(f"speech ({transcript.language}): “{_quote(ev.content)}”")
        used.append(ev.id)

    exif = _of(request.evidence, Exif)
    if exif:
        item, data = exif[0]
        for key in ("capture_time", "make", "model", "software"):
            value = getattr(data, key)
            if value:
                obs[key] = value
        if data.latitude is not None and data.longitude is not None:
            obs["gps"] = [data.latitude, data.longitude]
        meta = []
        if data.capture_time:
            meta.append(f"captured {data.capture_time}")
        camera = data.camera
        if camera:
            meta.append(f"with {camera}")
        if "gps" in obs:
            meta.append(f"at GPS {obs['gps'][0]:.4f}, {obs['gps'][1]:.4f}")
        if data.software:
            meta.append(f"software {data.software}")
        if meta:
            parts.append(" ".join(meta))
        used.append(item.id)

    container = _of(request.evidence, Container)
    if container and container[0][1].duration_s is not None:
        obs["duration_s"] = container[0][1].duration_s
        used.append(container[0][0].id)

    if len(parts) == 1:
        parts.append("nothing could be observed offline (no readable text, features or metadata)")
    return Description(
        text="; ".join(parts) + ".",
        observations=obs,
        evidence=tuple(dict.fromkeys(used)),
    )
