"""``media:<asset>`` (Module B): provenance-bearing evidence extracted from one asset.

The stage runs a list of extractors, each ``(asset, path, context) -> MediaEvidence`` (evidence
plus uncertainty), and merges their partial results into the node's ``MediaEvidence``:

- ``FILE_EXTRACTORS`` run once per asset, in order; earlier ones leave facts for later ones in
  the shared ``ExtractContext`` (integrity decides whether the file is usable and what it
  really is; ffprobe's streams; the keyframes and audio track of a video). On an image,
  whose context only the integrity check writes, the metadata read runs beside the image
  extractors; the evidence keeps this order either way.
- ``IMAGE_EXTRACTORS`` run on the asset when it is an image and on every keyframe of a video
  (``context.frame`` is then the keyframe and ``path`` its PNG).

An extractor that raises is recorded as an uncertainty item: hostile media never fails a run.
Heavy libraries (PySceneDetect, PyAV, OpenCV, RapidOCR, faster-whisper) are imported inside
the extractors that need them, so an image-only case never loads the video or speech stack.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

from semv.config import Settings
from semv.graph import StageContext, StageDef
from semv.model import Asset, MediaEvidence, MediaKind, UncertaintyCode
from semv.nlp import parsing
from semv.nlp import worker as nlp_worker
from semv.perception import (
    container,
    integrity,
    metadata,
    ocr,
    ocr_worker,
    speech,
    video,
    visual,
)
from semv.perception.artifacts import current_artifacts
from semv.perception.extraction import ExtractContext, Extractor, merge, nothing
from semv.perception.reverse_search import index_fingerprint, match_image
from semv.perception.signals import authenticity_signals, signal_tools

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

_WORKERS = 4
"""Threads for the independent per-image extractors (metadata, OCR, visual features, signals)."""
_SPACY_WAIT_S = 60.0
"""The warm-up loads spaCy after the first OCR reading, or after this long at the latest."""


def extract_media(asset: Asset, settings: Settings) -> MediaEvidence:
    """Run every extractor on ``asset`` and merge their evidence and uncertainty."""
    path = Path(asset.path)
    with tempfile.TemporaryDirectory(prefix="semv-media-") as work:
        context = ExtractContext(
            config=settings.media, artifacts=current_artifacts(), workdir=Path(work)
        )
        check, *others = FILE_EXTRACTORS
        parts = [_run(check, asset, path, context)]
        image = context.usable and context.kind is MediaKind.IMAGE
        # on an image the file extractors after the integrity check leave the context as it
        # left it (ffprobe, keyframes and speech are for video and audio), so exiftool's read,
        # a Perl process started and asked, runs beside the image extractors instead of before
        # them; the others run here, in order
        beside = [fn for fn in others if image and fn is metadata.extract]
        done = {fn: _run(fn, asset, path, context) for fn in others if fn not in beside}
        # an image's OCR, visual features and authenticity signals are independent: they run
        # at once; parts keep the sequential order (file extractors, image extractors,
        # keyframes, signals)
        on_image: list[MediaEvidence] = []
        if image:
            on_image = _concurrently(
                [
                    *(partial(_run, fn, asset, path, context) for fn in beside),
                    *(
                        _then(partial(_run, fn, asset, path, context), _OCR_READ.set)
                        if fn is ocr.read_text
                        else partial(_run, fn, asset, path, context)
                        for fn in IMAGE_EXTRACTORS
                    ),
                    # forensics, content credentials, local reverse search (SEMV §4.2, Table S3)
                    partial(
                        _guarded,
                        "authenticity_signals",
                        asset,
                        lambda: authenticity_signals(
                            MediaEvidence(asset_id=asset.id, evidence=()), asset, settings
                        ),
                    ),
                ]
            )
            done.update(zip(beside, on_image, strict=False))
            on_image = on_image[len(beside) :]
        parts += [done[fn] for fn in others]
        if image:
            parts += on_image[:-1]
        for keyframe in context.keyframes:  # in order: OCR skips text an earlier frame read
            on_frame = context.on_frame(keyframe)
            parts += [_run(fn, asset, keyframe.path, on_frame) for fn in IMAGE_EXTRACTORS]
            parts.append(
                _guarded(
                    "reverse_search.match_image",
                    asset,
                    partial(match_image, asset, keyframe.path, settings, time_s=keyframe.time_s),
                )
            )
        parts += on_image[-1:]
    return merge(asset, parts)


def _concurrently(jobs: Sequence[Callable[[], MediaEvidence]]) -> list[MediaEvidence]:
    """Run independent extractors at once, results in the jobs' order (so ``merge`` sees what
    the sequential loop saw). On one image they read the shared context but do not write it
    (OCR's ``seen_text`` is written once, by the only OCR job), and the heavy
    ones (ONNX OCR, forensic models, OpenCV, NumPy) release the GIL, so on two cores OCR and
    the forensic signals overlap. Each job runs in a copy of the caller's context variables
    (the artifact store of the running case)."""
    if len(jobs) < 2:
        return [job() for job in jobs]
    with ThreadPoolExecutor(max_workers=min(_WORKERS, len(jobs))) as pool:
        futures = [pool.submit(contextvars.copy_context().run, job) for job in jobs]
        return [future.result() for future in futures]


def _then(
    job: Callable[[], MediaEvidence], after: Callable[[], None]
) -> Callable[[], MediaEvidence]:
    def run() -> MediaEvidence:
        try:
            return job()
        finally:
            after()

    return run


def _guarded(name: str, asset: Asset, call: Callable[[], MediaEvidence]) -> MediaEvidence:
    try:
        return call()
    except Exception as exc:  # a library choking on hostile media never fails the run
        logger.exception("media extractor %s failed on %s", name, asset.id)
        return nothing(
            asset, UncertaintyCode.MEDIA_UNREADABLE, f"{name} failed: {type(exc).__name__}: {exc}"
        )


def _run(fn: Extractor, asset: Asset, path: Path, context: ExtractContext) -> MediaEvidence:
    name = getattr(fn, "__qualname__", repr(fn))
    return _guarded(f"{name} on {path.name}", asset, lambda: fn(asset, path, context))


async def perceive(ctx: StageContext, *, asset: Asset) -> MediaEvidence:
    """Integrity, metadata, container, keyframes, speech, OCR, visual features, forensics,
    content credentials and local reverse search."""
    _warm_up(asset)
    try:
        return await asyncio.to_thread(extract_media, asset, ctx.settings)
    finally:
        _OCR_READ.set()  # no image was read (audio, unusable file): spaCy need not wait


def start_early(
    assets: Sequence[Asset], *, nothing_cached: bool, settings: Settings | None = None
) -> None:
    """Before a run's graph starts: probe the tool versions (the media nodes' fingerprint
    needs them, cached or not) in the background, and, when the store holds no node output
    yet (``nothing_cached``: a fresh data dir, so every media node will run), hand the
    images to OCR's worker process when the CLI started one (``ocr_worker``; with the run's
    ``settings``) and start the warm-up of ``_warm_up`` now rather than when the first media
    node runs. A worker with nothing to read is released. No-op for a case without loaded
    media."""
    loaded = [a for a in assets if a.loaded]
    images = [Path(a.path) for a in loaded if a.kind is MediaKind.IMAGE]
    if nothing_cached and images and settings is not None:
        media = settings.media
        ocr_worker.request(images, media.ocr_languages, media.ocr_min_confidence)
    ocr_worker.release()  # not asked to read (no-op when it was)
    if not loaded:
        return
    threading.Thread(target=_probe_tools, name="semv-tool-probes", daemon=True).start()
    if nothing_cached:
        _warm_up(loaded[0])


def _probe_tools() -> None:
    try:
        tool_versions()
        signal_tools()
    except Exception:  # the fingerprint probes again and reports what is missing
        logger.debug("background tool probes failed", exc_info=True)


_WARMED = threading.Event()
_OCR_READ = threading.Event()
"""Set once the first image's OCR is done (or the first media node is): the warm-up loads
spaCy after it, so that spaCy's memory is not resident while OCR's detector peaks (about 275
MiB of activations for a 1000 x 736 input); spaCy's allocations then reuse the freed heap."""


def _warm_up(asset: Asset) -> None:
    """Load, in a background thread, what this node and the next ones will need: RapidOCR's
    engine (an image's or a keyframe's OCR), then the spaCy pipeline (the claims stage parses
    the case's text as soon as this node is done). Once per process. Loading Python modules
    holds the GIL: the engine comes first because it is on this node's critical path (the
    OCR extractor waits for the same load); spaCy once the first OCR reading is done (the
    detector's peak memory is then freed), while the rest of the extractors run. spaCy is
    not loaded here when no image is read and the NLP worker process (``semv.nlp.worker``)
    parses the claim: a text that would still need it (an audio file's transcript) loads it
    when parsed. Nothing computed changes, only when it loads."""
    if _WARMED.is_set():
        return
    _WARMED.set()
    reads_images = asset.loaded and asset.kind in (MediaKind.IMAGE, MediaKind.VIDEO)
    # OCR's worker process reads this image: no engine here, and no OCR memory peak to keep
    # spaCy's load away from
    in_worker = ocr_worker.asked(Path(asset.path))

    def load() -> None:
        try:
            if reads_images and not in_worker:
                ocr.load_engine()
            if not reads_images and nlp_worker.spawned():
                return  # the NLP worker process parses the claim: no text of media to parse
            if not in_worker:
                _OCR_READ.wait(timeout=_SPACY_WAIT_S)
            parsing.load()
        except Exception:  # the stage that needs it loads it again and reports the failure
            logger.debug("background warm-up failed", exc_info=True)

    threading.Thread(target=load, name="semv-warm-up", daemon=True).start()


_TOOLS_LOCK = threading.Lock()


def tool_versions() -> str:
    """Versions of every external tool and model the extractors run (the fingerprint's
    ``tools``): installing, upgrading or removing one recomputes the media nodes. The probes
    start programs (exiftool, ffprobe, ffmpeg, tesseract): they run at once, not one after
    another. Cached for the process, like each probe's result (so a run's media node does not
    start a pool of six threads to read six cached strings); a caller that comes while the
    probes run (``start_early``'s, in the background) waits for them instead of probing twice."""
    with _TOOLS_LOCK:
        return _tool_versions()


@functools.cache
def _tool_versions() -> str:
    probes: tuple[Callable[[], str], ...] = (
        metadata.tool_versions,
        container.ffprobe_version,
        container.ffmpeg_version,
        video.scenedetect_version,
        ocr.ocr_versions,
        speech.speech_versions,
    )
    with ThreadPoolExecutor(max_workers=len(probes)) as pool:
        return " | ".join(pool.map(lambda probe: probe(), probes))


STAGE = StageDef(
    name="media",
    version="3",
    fn=perceive,
    output=MediaEvidence,
    reads=("media", "forensics", "reverse_search", "sources"),
    code=("semv.perception",),
    tools=lambda: f"{tool_versions()}; {signal_tools()}",
    external=index_fingerprint,
)
