"""What the extractors of one ``media:<asset>`` node share, and how their results merge.

An extractor is a function ``(asset, path, context) -> MediaEvidence``: evidence plus the
uncertainty items of what it could not establish. File extractors run once per asset; image
extractors run on the asset when it is an image and on every keyframe of a video
(``context.frame`` tells them which), so OCR, forensics and reverse search see video frames.
Earlier extractors leave facts for later ones in the context (the effective media kind, the
ffprobe result, the keyframes, the extracted audio track).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from semv.config import MediaConfig
from semv.model import (
    Asset,
    Evidence,
    MediaEvidence,
    MediaKind,
    MediaLocation,
    Stage,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.perception.artifacts import ArtifactStore

__all__ = [
    "ExtractContext",
    "Extractor",
    "Keyframe",
    "merge",
    "nothing",
    "only",
    "uncertain",
]

_STAGES: Final = (Stage.RETRIEVE,)
"""Media evidence feeds the evidence pool of every subclaim (stage R)."""


@dataclass(frozen=True)
class Keyframe:
    """One keyframe of a video, saved as a PNG artifact."""

    number: int
    frame: int
    time_s: float
    scene_start_s: float
    scene_end_s: float
    path: Path
    sha256: str
    phash: str
    width: int
    height: int

    @property
    def subject(self) -> str:
        """A readable name: ``keyframe 2 (12.40 s)``."""
        return f"keyframe {self.number} ({self.time_s:.2f} s)"


@dataclass
class ExtractContext:
    """Shared, mutable state of one asset's extraction (one per node execution)."""

    config: MediaConfig
    artifacts: ArtifactStore
    workdir: Path
    kind: MediaKind | None = None
    """The effective media kind: the file's content type when it contradicts the extension."""
    usable: bool = True
    """False once the file proved unreadable; content extractors then do nothing."""
    image_size: tuple[int, int] | None = None
    probe: dict[str, Any] | None = None
    """ffprobe's ``-show_format -show_streams`` JSON, for video and audio."""
    keyframes: list[Keyframe] = field(default_factory=list)
    audio: Path | None = None
    """The audio track as 16 kHz mono WAV (``workdir``), when the asset has one."""
    frame: Keyframe | None = None
    """Set while image extractors run on a keyframe; None for the asset itself."""
    seen_text: dict[str, str] = field(default_factory=dict)
    """Normalized OCR text → the evidence id that first reported it (shared by the frames:
    a caption shown on every keyframe is one observation, not eight)."""

    def on_frame(self, keyframe: Keyframe) -> ExtractContext:
        """A view of this context for image extractors running on ``keyframe``."""
        return replace(self, frame=keyframe)

    def location(
        self, asset: Asset, region: tuple[int, int, int, int] | None = None
    ) -> MediaLocation:
        """λ_e: the asset, the keyframe's time when on a frame, and a pixel region."""
        if self.frame is None:
            return MediaLocation(asset_id=asset.id, region=region)
        t = round(self.frame.time_s, 3)
        return MediaLocation(asset_id=asset.id, start_s=t, end_s=t, region=region)

    def evidence_id(self, prefix: str, asset: Asset) -> str:
        """``ev:<prefix>:<asset id>``, with ``:f<n>`` for keyframe ``n``."""
        base = f"ev:{prefix}:{asset.id}"
        return base if self.frame is None else f"{base}:f{self.frame.number}"

    def derived_from(self, asset: Asset, keyframes_id: str | None = None) -> tuple[str, ...]:
        """Provenance ``derived_from``: the asset, and the keyframe evidence when on a frame."""
        if self.frame is None or keyframes_id is None:
            return (asset.id,)
        return (asset.id, keyframes_id)

    def subject(self) -> str:
        """How the report names what was looked at: ``the image`` or ``keyframe 2 (12.40 s)``."""
        return "the image" if self.frame is None else self.frame.subject


Extractor = Callable[[Asset, Path, ExtractContext], MediaEvidence]
"""``(asset, path, context) -> MediaEvidence``: the partial evidence of one extractor."""


def uncertain(asset: Asset, code: UncertaintyCode, detail: str) -> UncertaintyItem:
    """An uncertainty item about ``asset`` that affects retrieval (stage R)."""
    return UncertaintyItem(code=code, subject=asset.id, detail=detail, stages=_STAGES)


def nothing(asset: Asset, code: UncertaintyCode | None = None, detail: str = "") -> MediaEvidence:
    """No evidence; one uncertainty item when ``code`` is given."""
    items = () if code is None else (uncertain(asset, code, detail),)
    return MediaEvidence(asset_id=asset.id, evidence=(), uncertainty=items)


def only(
    asset: Asset, *evidence: Evidence, uncertainty: Iterable[UncertaintyItem] = ()
) -> MediaEvidence:
    """The given evidence and uncertainty items."""
    return MediaEvidence(asset_id=asset.id, evidence=evidence, uncertainty=tuple(uncertainty))


def merge(asset: Asset, parts: Iterable[MediaEvidence]) -> MediaEvidence:
    """One node value from the extractors' partial results, in order, without repeats."""
    evidence: dict[str, Evidence] = {}
    uncertainty: dict[UncertaintyItem, None] = {}
    for part in parts:
        for item in part.evidence:
            evidence.setdefault(item.id, item)
        uncertainty.update(dict.fromkeys(part.uncertainty))
    return MediaEvidence(
        asset_id=asset.id, evidence=tuple(evidence.values()), uncertainty=tuple(uncertainty)
    )
