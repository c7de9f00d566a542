"""The two OCR engines and the per-region choice, without semv's models (SEMV §4.2).

What ``semv.perception.ocr`` reads an image with, importing nothing of semv's models or
settings, so that OCR's worker process (``semv.perception.ocr_worker``) loads only this,
RapidOCR and tesseract's wrapper: ``read_lines`` is the whole reading of one image, in this
process or in the worker, with the same result.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from semv.nlp.language import language_of
from semv.perception._onnx_cache import configured_folder, use_optimized_models

if TYPE_CHECKING:
    from PIL import Image as PILImage

__all__ = [
    "TESSERACT_MARGIN",
    "OcrLine",
    "choose",
    "create_sessions",
    "language_of",
    "load_engine",
    "read_lines",
]

TESSERACT_MARGIN: Final = 0.10
"""tesseract's reading wins a region unless RapidOCR is more than this much more confident."""

_CJK_LANGS: Final = {"jpn", "chi_sim", "chi_tra", "kor"}
_KANA: Final = re.compile(r"[\u3040-\u30ff]")
_CJK: Final = re.compile(r"[\u3400-\u9fff\u3040-\u30ff\uac00-\ud7af]")
_LOCK: Final = threading.Lock()


@dataclass(frozen=True)
class OcrLine:
    """One line of text with its box (x, y, w, h), confidence in [0, 1] and engine."""

    text: str
    box: tuple[int, int, int, int]
    confidence: float
    engine: str
    language: str

    def as_data(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "box": list(self.box),
            "confidence": round(self.confidence, 3),
            "engine": self.engine,
            "language": self.language,
        }


_ORT_THREADS: Final = 1
_ENGINE: Any = None
_ENGINE_LOCK: Final = threading.Lock()


def _rapid(onnx_folder: Callable[[], Path | None] = configured_folder) -> Any:
    """The process-wide RapidOCR engine, built once (double-checked under a lock, so a
    ``load_engine`` started in the background and the first read never build two), its
    optimised ONNX graphs cached in ``onnx_folder()`` (None: not cached)."""
    global _ENGINE
    if _ENGINE is None:
        with _ENGINE_LOCK:
            if _ENGINE is None:
                import logging

                from rapidocr import RapidOCR

                # one ONNX thread per session: the forensic maps (and the spaCy load) run
                # beside OCR on the other core; a second intra-op thread only spins against
                # them (on 2 cores, 30 % more CPU for the same readings, byte for byte)
                engine = RapidOCR(
                    params={"EngineConfig.onnxruntime.intra_op_num_threads": _ORT_THREADS}
                )
                logging.getLogger("RapidOCR").setLevel(logging.ERROR)
                # its sessions load graphs optimised once per machine (same outputs)
                use_optimized_models(engine, _ORT_THREADS, onnx_folder())
                _ENGINE = engine
    return _ENGINE


def load_engine(onnx_folder: Callable[[], Path | None] = configured_folder) -> bool:
    """Import and build RapidOCR's engine now (for a caller that loads it ahead of the first
    image, in the background; OCR's worker passes the ONNX cache folder its parent named);
    False when RapidOCR is not installed (the reader then records
    the missing tool itself). Its ONNX sessions are still created by the first reading:
    created here they were resident during the detector's peak (+30 MiB of peak RSS for no
    measurable time on the shared machine)."""
    try:
        _rapid(onnx_folder)
    except ImportError:
        return False
    return True


def create_sessions() -> None:
    """Create RapidOCR's three ONNX sessions (detector, direction classifier, recogniser) now
    rather than at the first reading, which otherwise creates them (~0.5 s of CPU on an idle
    machine). For a process that loads OCR ahead of its first image and whose memory is OCR's
    alone (the worker process): the sessions are the same objects the reading would create.
    Uses RapidOCR's own lazy loaders when this version has them, else does nothing."""
    engine = _rapid()
    for name in ("_load_det_model", "_load_cls_model", "_load_rec_model"):
        loader = getattr(engine, name, None)
        if callable(loader):
            loader()


def _rapid_lines(image: PILImage.Image) -> list[OcrLine]:
    import numpy as np

    result = _rapid()(np.asarray(image.convert("RGB")))
    if result.boxes is None or result.txts is None:
        return []
    out = []
    for poly, text, score in zip(result.boxes, result.txts, result.scores, strict=False):
        text = " ".join(str(text).split())
        if not text:
            continue
        xs, ys = [p[0] for p in poly], [p[1] for p in poly]
        x, y = int(min(xs)), int(min(ys))
        box = (x, y, int(max(xs)) - x, int(max(ys)) - y)
        out.append(OcrLine(text, box, float(score), "rapidocr", language_of(text)))
    return out


def _tesseract_langs(rapid: list[OcrLine], languages: Sequence[str]) -> str:
    seen = " ".join(line.text for line in rapid)
    wanted = list(languages)
    if _KANA.search(seen) and "jpn" in wanted:
        return "jpn"
    if _CJK.search(seen):
        cjk = [lang for lang in wanted if lang in _CJK_LANGS and lang != "jpn"]
        if cjk:
            return "+".join(cjk)
    latin = [lang for lang in wanted if lang not in _CJK_LANGS]
    return "+".join(latin) if latin else "+".join(wanted)


def _tesseract_lines(image: PILImage.Image, langs: str) -> list[OcrLine]:
    import pytesseract

    table = pytesseract.image_to_data(
        image.convert("RGB"), lang=langs, output_type=pytesseract.Output.DICT
    )
    lines: dict[tuple[int, int, int], list[int]] = {}
    for i, word in enumerate(table["text"]):
        if not str(word).strip() or float(table["conf"][i]) < 0:
            continue
        key = (table["block_num"][i], table["par_num"][i], table["line_num"][i])
        lines.setdefault(key, []).append(i)
    cjk = any(lang in _CJK_LANGS for lang in langs.split("+"))
    out = []
    for indices in lines.values():
        words = [str(table["text"][i]).strip() for i in indices]
        text = ("" if cjk else " ").join(words)
        x0 = min(table["left"][i] for i in indices)
        y0 = min(table["top"][i] for i in indices)
        x1 = max(table["left"][i] + table["width"][i] for i in indices)
        y1 = max(table["top"][i] + table["height"][i] for i in indices)
        conf = sum(float(table["conf"][i]) for i in indices) / len(indices) / 100.0
        out.append(OcrLine(text, (x0, y0, x1 - x0, y1 - y0), conf, "tesseract", language_of(text)))
    return out


def _within(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    """``inner`` lies on ``outer``'s line: its vertical centre inside ``outer``'s rows and
    more than half of its width inside ``outer``'s columns (detector boxes are padded)."""
    centre = inner[1] + inner[3] / 2
    if not outer[1] <= centre <= outer[1] + outer[3]:
        return False
    ix = max(0, min(inner[0] + inner[2], outer[0] + outer[2]) - max(inner[0], outer[0]))
    return inner[2] > 0 and ix / inner[2] > 0.5


def choose(
    tesseract: list[OcrLine], rapid: list[OcrLine]
) -> list[tuple[OcrLine, OcrLine | None, OcrLine | None]]:
    """Regions as (chosen, tesseract reading, RapidOCR reading), in reading order.

    A region is a tesseract line with the RapidOCR lines lying mostly inside it, or a
    RapidOCR line no tesseract line covers.
    """
    regions: list[tuple[OcrLine, OcrLine | None, OcrLine | None]] = []
    used: set[int] = set()
    for t in tesseract:
        inside = [(i, r) for i, r in enumerate(rapid) if i not in used and _within(r.box, t.box)]
        used.update(i for i, _ in inside)
        r_line: OcrLine | None = None
        if inside:
            parts = sorted((r for _, r in inside), key=lambda r: r.box[0])
            joiner = "" if _CJK.search(t.text + parts[0].text) else " "
            text = joiner.join(p.text for p in parts)
            conf = sum(p.confidence for p in parts) / len(parts)
            r_line = OcrLine(text, t.box, conf, "rapidocr", language_of(text))
        pick = (
            t if r_line is None or t.confidence >= r_line.confidence - TESSERACT_MARGIN else r_line
        )
        regions.append((pick, t, r_line))
    for i, r in enumerate(rapid):
        if i not in used:
            regions.append((r, None, r))
    regions.sort(key=lambda region: (region[0].box[1], region[0].box[0]))
    return regions


def read_lines(
    image: PILImage.Image, languages: Sequence[str], min_confidence: float
) -> list[dict[str, Any]]:
    """The chosen lines of ``image`` with both readings (``as_data`` dictionaries): RapidOCR
    detects and reads, tesseract reads the page in the languages the script picks from
    ``languages``, each region keeps the surer reading; lines below ``min_confidence`` go."""
    with _LOCK:
        rapid = _rapid_lines(image)
        # RapidOCR's detector finds document text too: where it sees none, tesseract's full
        # page pass (the slower one) is skipped
        tess = _tesseract_lines(image, _tesseract_langs(rapid, languages)) if rapid else []
    out = []
    for pick, t, r in choose(tess, rapid):
        if pick.confidence < min_confidence or not pick.text.strip():
            continue
        row = pick.as_data()
        row["readings"] = {
            line.engine: {"text": line.text, "confidence": round(line.confidence, 3)}
            for line in (t, r)
            if line is not None
        }
        out.append(row)
    return out
