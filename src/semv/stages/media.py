"""``media:<asset>`` (Module B): provenance-bearing evidence extracted from one asset.

The stage runs a list of extractors, each ``(asset, path, context) -> MediaEvidence`` (evidence
plus uncertainty), and merges their partial results into the node's ``MediaEvidence``:

- ``FILE_EXTRACTORS`` run once per asset, in order; earlier ones leave facts for later ones in
  the shared ``ExtractContext`` (integrity decides whether the file is usable and what it
  really is; ffprobe's streams; the keyframes and audio track of a video).
- ``IMAGE_EXTRACTORS`` run on the asset when it is an image and on every keyframe of a video
  (``context.frame`` is then the keyframe and ``path`` its PNG).

An extractor that raises is recorded as an uncertainty item: hostile media never fails a run.
Heavy libraries (PySceneDetect, PyAV, OpenCV, RapidOCR, faster-whisper) are imported inside
the extractors that need them, so an image-only case never loads the video or speech stack.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
from pathlib import Path

from semv.config import Settings
from semv.graph import StageContext, StageDef
from semv.model import Asset, MediaEvidence, MediaKind, UncertaintyCode
from semv.perception import container, integrity, metadata, ocr, speech, video, visual
from semv.perception._context import ExtractContext, Extractor, merge, nothing
from semv.perception.artifacts import current_artifacts

logger = logging.getLogger(__name__)

FILE_EXTRACTORS: tuple[Extractor, ...] = (
    integrity.check_file,
    metadata.extract,
    container.probe,
    video.keyframes,
    speech.transcribe,
)
"""Per asset, in order (each may depend on what the earlier ones left in the context)."""

IMAGE_EXTRACTORS: tuple[Extractor, ...] = (
    ocr.read_text,
    visual.visual_features,
)
"""Per image: the asset itself when it is an image, and every keyframe of a video."""


def extract_media(asset: Asset, settings: Settings) -> MediaEvidence:
    """Run every extractor on ``asset`` and merge their evidence and uncertainty."""
    path = Path(asset.path)
    with tempfile.TemporaryDirectory(prefix="semv-media-") as work:
        context = ExtractContext(
            config=settings.media, artifacts=current_artifacts(), workdir=Path(work)
        )
        parts = [_run(fn, asset, path, context) for fn in FILE_EXTRACTORS]
        if context.usable and context.kind is MediaKind.IMAGE:
            parts += [_run(fn, asset, path, context) for fn in IMAGE_EXTRACTORS]
        for keyframe in context.keyframes:
            on_frame = context.on_frame(keyframe)
            parts += [_run(fn, asset, keyframe.path, on_frame) for fn in IMAGE_EXTRACTORS]
    return merge(asset, parts)


def _run(fn: Extractor, asset: Asset, path: Path, context: ExtractContext) -> MediaEvidence:
    try:
        return fn(asset, path, context)
    except Exception as exc:  # an extractor bug or a library choking on hostile media
        name = getattr(fn, "__qualname__", repr(fn))
        logger.exception("media extractor %s failed on %s", name, asset.id)
        return nothing(
            asset,
            UncertaintyCode.MEDIA_UNREADABLE,
            f"{name} failed on {path.name}: {type(exc).__name__}: {exc}",
        )


async def perceive(ctx: StageContext, *, asset: Asset) -> MediaEvidence:
    """Metadata, integrity, container, keyframes, speech, OCR and visual features."""
    return await asyncio.to_thread(extract_media, asset, ctx.settings)


def tool_versions() -> str:
    """Versions of every external tool and model the extractors run (the fingerprint's
    ``tools``): installing, upgrading or removing one recomputes the media nodes."""
    return " | ".join(
        (
            metadata.tool_versions(),
            container.ffprobe_version(),
            container.ffmpeg_version(),
            video.scenedetect_version(),
            ocr.ocr_versions(),
            speech.speech_versions(),
        )
    )


STAGE = StageDef(
    name="media",
    version="2",
    fn=perceive,
    output=MediaEvidence,
    reads=("media",),
    code=("semv.perception",),
    tools=tool_versions,
)
