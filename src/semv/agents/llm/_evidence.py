"""The evidence a role's prompt shows: which items (the dimension's fitting sources, ranked,
top-k), and how each reads (a measurement as one typed line, a long text as an excerpt whose
character offsets in ``Evidence.content`` are kept for provenance).

Why: every item in every prompt made a case with a photo cost ~80k prompt tokens on a 0.5B
model; a forensic map's scalars and a JPEG's 64-entry quantization table said
nothing an argument could use. Selection never invents an item: a prompt is a subset of the
ranked evidence (``validate:k``, Table S4), in that order, so the ids a model cites still
resolve against the subclaim's evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from semv.dimensions import DIMENSIONS
from semv.model import (
    ContentCredentials,
    Dimension,
    Evidence,
    Exif,
    FileIntegrity,
    ForensicMap,
    JpegStructure,
    Modality,
    SourceType,
    VisualFeatures,
)

__all__ = [
    "Excerpt",
    "PromptItem",
    "excerpt",
    "fits_dimension",
    "observation_line",
    "prompt_item",
    "select_for_dimension",
]

_MEASUREMENTS = frozenset({SourceType.METADATA, SourceType.FORENSIC})
_SENTENCE = re.compile(r"[^.!?;\n]+(?:[.!?;]+|\n|$)")
_WORD = re.compile(r"\w{3,}", re.UNICODE)


def fits_dimension(ev: Evidence, dimension: Dimension) -> bool:
    """Whether the dimension's subclaim can use the item: its source type is one the
    dimension asks for (``DimensionSpec.sources``) or fits (``fits``), or its modality fits.
    A measurement (metadata, forensic) fits only a dimension that asks for that source type
    or for metadata as a modality: a forensic map is an image item, but says nothing about
    *what* the image shows."""
    spec = DIMENSIONS[dimension]
    if ev.source_type in spec.sources or ev.source_type in spec.fits:
        return True
    if ev.source_type in _MEASUREMENTS:
        return ev.modality is Modality.METADATA and Modality.METADATA in spec.fits
    return ev.modality in spec.fits


def select_for_dimension(
    evidence: Sequence[Evidence], dimension: Dimension, k: int
) -> tuple[list[Evidence], list[Evidence]]:
    """(shown, left out): the first ``k`` fitting items in rank order, and the fitting items
    beyond ``k`` (items that do not fit the dimension are not "left out": they were never the
    role's to see)."""
    fitting = [e for e in evidence if fits_dimension(e, dimension)]
    return fitting[:k], fitting[k:]


# ---- one line per measurement ----------------------------------------------------------------


def _num(value: float | None, digits: int = 2) -> str:
    return "?" if value is None else f"{value:.{digits}f}"


def observation_line(ev: Evidence) -> str | None:
    """A measurement as one short typed line (None: the item reads as its text). A forensic
    map is its score against the threshold and the most anomalous region, never the map."""
    obs = ev.observation
    if isinstance(obs, ForensicMap):
        name = {"ela": "ELA", "noise": "noise-residual", "ghost": "JPEG-ghost"}.get(
            obs.map, obs.map
        )
        line = (
            f"{name} map: anomaly score {obs.region_score:.2f} "
            f"({'at or above' if obs.exceeds else 'below'} threshold {obs.threshold:.2f}), "
            f"most anomalous region x,y,w,h={obs.region}"
        )
        parts = [
            f"{label} {score:.2f}"
            for label, score in (
                ("ELA", obs.ela_score),
                ("noise", obs.noise_score),
                ("ghost", obs.ghost_score),
            )
            if score is not None
        ]
        if parts:
            line += f" ({', '.join(parts)})"
        if obs.editing_traces:
            line += f"; editing traces: {obs.editing_traces}"
        return line
    if isinstance(obs, Exif):
        bits = []
        if obs.capture_time:
            bits.append(f"captured {obs.capture_time}")
        if obs.latitude is not None and obs.longitude is not None:
            bits.append(f"GPS {obs.latitude:.5f}, {obs.longitude:.5f}")
        camera = " ".join(dict.fromkeys(x for x in (obs.make, obs.model) if x))
        if camera:
            bits.append(f"camera {camera}")
        if obs.software:
            bits.append(f"software {obs.software}")
        if obs.modify_gap_hours is not None:
            bits.append(f"EXIF modified {obs.modify_gap_hours:+.1f} h after capture")
        return "EXIF: " + ("; ".join(bits) if bits else "no capture fields")
    if isinstance(obs, FileIntegrity):
        size = f"{obs.width}x{obs.height} px, " if obs.width and obs.height else ""
        return (
            f"File: {obs.format or 'unknown format'}, {size}{obs.size_bytes} bytes, "
            f"SHA-256 {obs.sha256[:16]}…"
        )
    if isinstance(obs, JpegStructure):
        line = (
            f"JPEG: quality {obs.jpeg_quality if obs.jpeg_quality is not None else '?'}, "
            f"{'standard' if obs.standard_tables else 'non-standard'} quantization tables, "
            + (
                f"double compression hinted (ghost dip at quality {obs.ghost_dip_quality})"
                if obs.double_compression_hint
                else "no double-compression hint"
            )
        )
        if obs.editor_markers:
            line += f"; editor markers: {obs.editor_markers}"
        return line
    if isinstance(obs, VisualFeatures):
        colours = ", ".join(f"{c.colour} {c.share:.0%}" for c in obs.dominant_colours[:3])
        return (
            f"Visual features: {obs.scene_type}; colours {colours}; "
            f"brightness {_num(obs.brightness)}"
        )
    if isinstance(obs, ContentCredentials):
        return (
            f"C2PA: {obs.validation_state}, signer {obs.signer or '?'}, "
            f"trusted {obs.trusted}, AI-generated {obs.ai_generated}, edited {obs.edited}, "
            f"hash mismatch {obs.hash_mismatch}"
            + (f", failures {obs.failures}" if obs.failures else "")
        )
    return None


# ---- excerpts of long texts ------------------------------------------------------------------


@dataclass(frozen=True)
class Excerpt:
    """``text`` is ``content[start:end]`` (whole sentences, or whole words when one sentence
    is longer than the budget); ``total`` is ``len(content)``."""

    text: str
    start: int
    end: int
    total: int

    @property
    def whole(self) -> bool:
        return self.start == 0 and self.end == self.total


def _sentences(text: str) -> list[tuple[int, int]]:
    spans = [(m.start(), m.end()) for m in _SENTENCE.finditer(text) if m.group().strip()]
    return spans or [(0, len(text))]


def excerpt(content: str, chars: int, query: str = "") -> Excerpt:
    """The part of ``content`` within ``chars`` characters that best matches ``query``: the
    sentence sharing most words with it, widened by whole neighbouring sentences while they
    fit. A single sentence longer than ``chars`` is cut at a word boundary."""
    total = len(content)
    if total <= chars:
        return Excerpt(content, 0, total, total)
    spans = _sentences(content)
    wanted = {w.lower() for w in _WORD.findall(query)}

    def score(span: tuple[int, int]) -> int:
        return len(wanted & {w.lower() for w in _WORD.findall(content[span[0] : span[1]])})

    best = max(range(len(spans)), key=lambda i: (score(spans[i]), -i))
    lo = hi = best
    start, end = spans[best]
    if end - start > chars:
        cut = content.rfind(" ", start, start + chars)
        end = cut if cut > start else start + chars
    else:
        grew = True
        while grew:
            grew = False
            if hi + 1 < len(spans) and spans[hi + 1][1] - start <= chars:
                hi += 1
                end = spans[hi][1]
                grew = True
            if lo > 0 and end - spans[lo - 1][0] <= chars:
                lo -= 1
                start = spans[lo][0]
                grew = True
    while start < end and content[start].isspace():
        start += 1
    while end > start and content[end - 1].isspace():
        end -= 1
    return Excerpt(content[start:end], start, end, total)


# ---- the item as a prompt shows it -----------------------------------------------------------


@dataclass(frozen=True)
class PromptItem:
    """One evidence item as a prompt shows it: ``{"id", "text"}`` for the templates, plus the
    excerpt's offsets when the text was cut."""

    id: str
    text: str
    cut: Excerpt | None = None

    def as_dict(self) -> dict[str, str]:
        return {"id": self.id, "text": self.text}

    @property
    def offsets(self) -> str | None:
        """``ev:x chars 120-480 of 2300`` when the text is an excerpt."""
        if self.cut is None or self.cut.whole:
            return None
        return f"{self.id} chars {self.cut.start}-{self.cut.end} of {self.cut.total}"


def prompt_item(ev: Evidence, chars: int, query: str = "") -> PromptItem:
    """The headed, bounded text of ``ev``: a measurement as its typed line; a text as its
    title and an excerpt of at most ``chars`` characters (offsets shown and kept)."""
    head = f"[{ev.source_type.value}; {ev.source}; reliability {ev.reliability:.2f}"
    if ev.published:
        head += f"; published {ev.published}"
    head += "]"
    line = observation_line(ev)
    if line is not None:
        return PromptItem(ev.id, f"{head} {line}")
    cut = excerpt(ev.content, chars, query)
    title = f"{ev.title[:160]}. " if ev.title else ""
    if cut.whole:
        return PromptItem(ev.id, f"{head} {title}{cut.text}")
    where = f"(excerpt, chars {cut.start}-{cut.end} of {cut.total})"
    return PromptItem(ev.id, f"{head} {title}{where} {cut.text}", cut)
