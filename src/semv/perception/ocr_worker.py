"""OCR of a cold verify's images in a second process, started before the command loads.

A cold ``semv verify`` of a case with a photo spends about 2 s of CPU on OCR (importing
RapidOCR, creating its ONNX sessions, detecting and reading, tesseract), most of it holding the
GIL of the one process that also imports semv, loads spaCy and runs the stages: threads cannot
overlap them. This module moves that reading to a worker process on the machine's other core:

1. ``spawn`` (called by the CLI for ``semv verify`` before the command's modules are imported)
   starts ``python -m semv.perception.ocr_worker``, which imports RapidOCR and builds its engine
   while the parent imports semv, then waits for a request on its stdin. The worker imports
   nothing of semv but ``semv.perception._ocr_engines``; where its optimised ONNX graphs are
   cached comes on its command line (``--onnx-cache DIR`` or ``off``, from the parent's
   ``semv.config.Environment``).
2. ``request`` (called by the media stage's ``start_early`` when every media node will run)
   sends the paths of the case's images with the OCR settings; ``release`` (when they will not
   run: a data dir with runs, a text-only case) tells the worker to exit without reading.
3. The worker reads each image with ``read_lines``, the same function the in-process reader
   calls, and writes one JSON line per image: the SHA-256 of the bytes it read and the lines.
4. ``lines_for`` (called by ``ocr.read_text``) returns those lines when the worker read the
   same bytes with the same settings, waiting for them if needed; otherwise, or when the worker
   failed, exited or was never started, it returns None and the reader reads in-process. An
   error of the worker is therefore never reported as such: the in-process reading that
   follows meets the same error and records it as before.

The result is the same JSON either way (JSON carries the lines' strings, integers and
3-decimal floats exactly). Nothing is left behind: the worker exits when its request is done,
when its stdin closes (the parent exited) and, on Linux, when the parent dies
(``PR_SET_PDEATHSIG``); the parent reaps it, and terminates it at exit if it still runs.

On by default where this process may run on two or more CPUs (``os.sched_getaffinity``);
``SEMV_OCR_WORKER=0`` turns it off and ``SEMV_OCR_WORKER=1`` on. On an idle 2-core machine it
takes a cold verify of the example from 3.76 s to 2.97 s (medians of 3; alternated runs 4.7 s
against 3.4 s) and the LLM backend's first pass with the photo from 5.09 s to 3.89 s. Its cost is
memory: the process tree's summed peak RSS rises from ~490 to ~800 MiB (the worker's interpreter,
NumPy and ONNX Runtime; the ``semv`` process itself holds ~100 MiB less, OCR's activations having
moved out), and on a machine whose other core is busy it brings nothing and adds ~0.5-0.7 s of
CPU for the second process's imports (docs/evaluation.md). With one usable CPU it stays off.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from semv._worker_process import Worker, die_with_parent, usable_cpus

__all__ = [
    "asked",
    "enabled",
    "lines_for",
    "release",
    "request",
    "spawn",
    "spawned",
    "usable_cpus",
]

WAIT_S: Final = 300.0
"""How long a reader waits for the worker's lines before reading in-process."""


def _arguments() -> list[str]:
    """The worker's command line: the ONNX cache folder of this process's environment
    (``off`` when the cache is off), so the worker reads no environment itself."""
    from semv.perception._onnx_cache import configured_folder

    folder = configured_folder()
    return ["--onnx-cache", str(folder) if folder is not None else _OFF]


_OFF: Final = "off"
_worker = Worker("semv.perception.ocr_worker", "ocr_worker", _arguments)
_requested: dict[str, tuple[tuple[str, ...], float]] = {}
"""Path → (languages, minimum confidence) of each image sent to the worker."""
_results: dict[str, dict[str, Any]] = {}


def enabled() -> bool:
    """``SEMV_OCR_WORKER=1`` or ``0`` when set; otherwise True where this process may use two or
    more CPUs (a second core is what the worker runs on)."""
    return _worker.enabled()


def spawn() -> bool:
    """Start the worker (once per process); False when it is off (``enabled``) or cannot be
    started, and the reader then stays in-process."""
    return _worker.spawn()


def spawned() -> bool:
    """A worker was started in this process."""
    return _worker.spawned()


def asked(image: Path) -> bool:
    """The worker was asked to read ``image``."""
    return str(image) in _requested


def request(images: Sequence[Path], languages: Sequence[str], min_confidence: float) -> bool:
    """Ask the worker to read ``images``; False when there is no worker to ask (the reader
    then reads in-process)."""
    if not images or _requested:
        return False  # nothing to read, or asked already (an earlier run of this process)
    order = {
        "images": [str(p) for p in images],
        "languages": list(languages),
        "min_confidence": min_confidence,
    }
    if not _worker.send(order):
        return False  # no worker, or it was released
    with _worker.lock:
        for image in images:
            _requested[str(image)] = (tuple(languages), min_confidence)
    _worker.collect(_keep)
    return True


def release() -> None:
    """Nothing to read: the worker exits (its stdin closes) and is reaped."""
    if not _requested and _worker.send(None):
        _worker.collect(_keep)


def lines_for(
    image: Path, data: bytes, languages: Sequence[str], min_confidence: float
) -> list[dict[str, Any]] | None:
    """The worker's lines of ``image`` when it read exactly ``data`` with these settings,
    else None (not asked for this image, other settings, other bytes, or no result)."""
    asked = _requested.get(str(image))
    if asked is None or asked != (tuple(languages), min_confidence):
        return None
    if not _worker.done.wait(WAIT_S):
        _worker.stop()
        return None
    got = _results.get(str(image))
    if got is None or got.get("sha256") != hashlib.sha256(data).hexdigest():
        return None
    lines = got.get("lines")
    return lines if isinstance(lines, list) else None


def _keep(answer: dict[str, Any]) -> bool:
    """Keep one image's answer; the worker's output closes after the last."""
    if isinstance(answer.get("path"), str):
        _results[answer["path"]] = answer
    return False


# ---- the worker process ----------------------------------------------------------------------


def _read(path: str, languages: Sequence[str], min_confidence: float) -> dict[str, Any]:
    from io import BytesIO

    from PIL import Image

    from semv.perception._ocr_engines import read_lines

    data = Path(path).read_bytes()
    with Image.open(BytesIO(data)) as image:
        image.load()
        lines = read_lines(image, languages, min_confidence)
    return {"path": path, "sha256": hashlib.sha256(data).hexdigest(), "lines": lines}


def _serve() -> int:
    if not die_with_parent():  # the parent is already gone
        return 0
    from semv.perception._ocr_engines import create_sessions, load_engine

    args = sys.argv[1:]
    folder = Path(args[1]) if args[:1] == ["--onnx-cache"] and args[1:] != [_OFF] else None
    if load_engine(lambda: folder):  # while the parent imports semv
        create_sessions()  # this process's memory is OCR's alone: no peak to keep them from
    line = sys.stdin.buffer.readline()
    if not line.strip():
        return 0  # released: nothing to read
    order = json.loads(line)
    languages = [str(lang) for lang in order["languages"]]
    min_confidence = float(order["min_confidence"])
    for path in order["images"]:
        try:
            answer = _read(str(path), languages, min_confidence)
        except Exception as exc:  # the parent reads in-process and records the error
            answer = {"path": str(path), "error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(_serve())
