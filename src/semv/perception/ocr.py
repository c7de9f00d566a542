"""Text in images and keyframes: tesseract and RapidOCR, chosen per region (SEMV §4.2).

tesseract reads document-like text well (and is the only one of the two that knows
Vietnamese diacritics); RapidOCR (PP-OCR models bundled in its wheel) reads scene and overlay
text that tesseract garbles, and detects CJK script reliably. Both run on every image:

1. RapidOCR detects and reads lines (boxes, confidence); an image where it detects no text
   at all is not passed to tesseract (its detector finds document text as well).
2. The script of its reading picks tesseract's languages: Japanese when kana appear, Chinese
   for other CJK text, else the Latin languages of ``media.ocr_languages``.
3. tesseract reads the whole image; words are grouped into lines with boxes and confidences.
4. Each region keeps both readings; the chosen one is tesseract's when its confidence is at
   least RapidOCR's minus ``TESSERACT_MARGIN`` (document text), else RapidOCR's. Lines below
   ``media.ocr_min_confidence`` are dropped. Each line records its language
   (``semv.nlp.language``, the one identifier of every text).

The text read is evidence (``ev:ocr:<asset>[:f<n>]``) and stays data: nothing in it is ever
followed as an instruction. Text identical to an earlier keyframe's is not repeated.
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from semv._code import dist_version
from semv.config import MediaConfig
from semv.model import (
    Asset,
    Evidence,
    MediaEvidence,
    MediaKind,
    Modality,
    OcrText,
    ProducerKind,
    Provenance,
    SourceType,
    UncertaintyCode,
)
from semv.perception import ocr_worker
from semv.perception._ocr_engines import (
    TESSERACT_MARGIN,
    OcrLine,
    choose,
    language_of,
    load_engine,
    read_lines,
)
from semv.perception._toolcache import remembered
from semv.perception.extraction import ExtractContext, nothing, only
from semv.perception.video import keyframes_evidence_id

if TYPE_CHECKING:
    from PIL import Image as PILImage

__all__ = [
    "TESSERACT_MARGIN",
    "OcrLine",
    "choose",
    "language_of",
    "load_engine",
    "ocr_versions",
    "read_image",
    "read_text",
]


@functools.cache
def ocr_versions() -> str:
    """Versions of tesseract and RapidOCR (or that they are missing), for the fingerprint."""
    parts = [remembered("tesseract", _tesseract_cmd(), _tesseract_version)]
    rapid = dist_version("rapidocr")
    parts.append("rapidocr missing" if rapid is None else f"rapidocr {rapid}")
    return "; ".join(parts)


def _tesseract_cmd() -> str:
    try:
        import pytesseract
    except ImportError:
        return "tesseract"
    return str(pytesseract.pytesseract.tesseract_cmd)


def _tesseract_version() -> str:
    """``tesseract <version>`` (starts tesseract; ``ocr_versions`` remembers the answer by the
    program file's identity, ``semv.perception._toolcache``)."""
    try:
        import pytesseract
    except ImportError:
        return "tesseract missing"
    try:
        return f"tesseract {pytesseract.get_tesseract_version()}"
    except pytesseract.TesseractNotFoundError:
        return "tesseract missing"
    except (subprocess.CalledProcessError, SystemExit) as exc:
        # the program runs but gives no version (pytesseract exits on an unparsable one): say
        # what it answered instead of calling it missing; "unknown" is never remembered
        detail = " ".join(str(exc).split())[:120]
        return f"tesseract unknown ({detail})"


def read_image(image: PILImage.Image, config: MediaConfig) -> list[dict[str, Any]]:
    """The chosen lines of ``image`` with both readings (``as_data`` dictionaries)."""
    return read_lines(image, config.ocr_languages, config.ocr_min_confidence)


def _from_worker(path: Path, context: ExtractContext) -> list[dict[str, Any]] | None:
    """The lines OCR's worker process read from this image's bytes with these settings
    (``semv.perception.ocr_worker``), or None: read here."""
    if not ocr_worker.asked(path):
        return None
    config = context.config
    return ocr_worker.lines_for(
        path, path.read_bytes(), config.ocr_languages, config.ocr_min_confidence
    )


def read_text(asset: Asset, path: Path, context: ExtractContext) -> MediaEvidence:
    """Image extractor: OCR of the asset (an image) or of the keyframe in ``context.frame``."""
    if context.frame is None and (not context.usable or context.kind is not MediaKind.IMAGE):
        return nothing(asset)
    try:
        lines = _from_worker(path, context) if context.frame is None else None
        if lines is None:
            from PIL import Image

            with Image.open(path) as image:
                image.load()
                lines = read_image(image, context.config)
    except ImportError as exc:
        return nothing(asset, UncertaintyCode.TOOL_MISSING, f"OCR: {exc.name} not installed")
    except Exception as exc:  # tesseract/onnxruntime errors on odd images
        return nothing(
            asset,
            UncertaintyCode.TOOL_MISSING
            if "tesseract" in type(exc).__name__.lower()
            else UncertaintyCode.MEDIA_UNREADABLE,
            f"OCR of {context.subject()}: {type(exc).__name__}: {exc}",
        )
    if not lines:
        return nothing(asset)
    languages = sorted({line["language"] for line in lines})
    text = "\n".join(line["text"] for line in lines)
    key = " ".join(text.split()).casefold()
    if key in context.seen_text:
        return nothing(asset)  # the same text on an earlier keyframe: one observation
    context.seen_text[key] = context.evidence_id("ocr", asset)
    evidence = Evidence(
        id=context.evidence_id("ocr", asset),
        source="OCR",
        source_type=SourceType.OTHER,
        modality=Modality.IMAGE,
        content=text,
        observation=OcrText.model_validate(
            {
                "lines": lines,
                "languages": languages,
                "frame_time_s": context.frame.time_s if context.frame is not None else None,
            }
        ),
        reliability=context.config.ocr_reliability,
        location=context.location(asset),
        provenance=Provenance(
            producer=ProducerKind.TOOL,
            agent="tesseract + RapidOCR",
            tool_version=ocr_versions(),
            method=f"text read in {context.subject()}; per-region choice of engine; "
            f"languages {', '.join(languages)}",
            derived_from=context.derived_from(asset, keyframes_evidence_id(asset.id)),
        ),
    )
    return only(asset, evidence)
