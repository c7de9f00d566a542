"""OCR's worker process (``semv.perception.ocr_worker``): the same lines as in-process, errors
read again in-process, nothing left running."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from semv._worker_process import Worker
from semv.config import MediaConfig, Settings
from semv.model import Asset, MediaKind, UncertaintyCode
from semv.perception import ocr_worker
from semv.perception.artifacts import current_artifacts
from semv.perception.extraction import ExtractContext
from semv.perception.ocr import read_image, read_text
from semv.stages.media import extract_media
from tests.media_factory import need, text_image

ROOT = Path(__file__).resolve().parents[1]
CONFIG = MediaConfig()


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A process that has not started a worker yet, with the worker on (and kills the one a
    test started)."""
    monkeypatch.setenv("SEMV_OCR_WORKER", "1")
    monkeypatch.setattr(
        ocr_worker, "_worker", Worker(ocr_worker._worker.module, ocr_worker._worker.switch)
    )
    monkeypatch.setattr(ocr_worker, "_requested", {})
    monkeypatch.setattr(ocr_worker, "_results", {})
    yield
    ocr_worker._worker.stop()


def _ask(image: Path) -> subprocess.Popen[bytes]:
    assert ocr_worker.spawn()
    proc = ocr_worker._worker.proc
    assert proc is not None
    assert ocr_worker.request([image], CONFIG.ocr_languages, CONFIG.ocr_min_confidence)
    return proc


def _exited(proc: subprocess.Popen[bytes], within: float = 60.0) -> bool:
    deadline = time.monotonic() + within
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc.poll() is not None


def test_the_worker_reads_what_this_process_reads(tmp_path: Path, fresh: None) -> None:
    need("tesseract")
    from PIL import Image

    image = text_image(tmp_path / "sign.png", "Evacuation centre 300 beds")
    proc = _ask(image)
    got = ocr_worker.lines_for(
        image, image.read_bytes(), CONFIG.ocr_languages, CONFIG.ocr_min_confidence
    )
    with Image.open(image) as opened:
        here = read_image(opened, CONFIG)
    assert got == here and [line["text"] for line in here] == ["Evacuation centre 300 beds"]
    assert _exited(proc)  # done with its request: it exits and is reaped


def test_other_bytes_or_settings_are_read_here(tmp_path: Path, fresh: None) -> None:
    need("tesseract")
    image = text_image(tmp_path / "sign.png", "Exit")
    _ask(image)
    data = image.read_bytes()
    assert ocr_worker.lines_for(image, data + b"x", CONFIG.ocr_languages, 0.5) is None
    assert ocr_worker.lines_for(image, data, ("eng",), CONFIG.ocr_min_confidence) is None
    assert ocr_worker.lines_for(tmp_path / "other.png", data, CONFIG.ocr_languages, 0.5) is None


def test_an_error_in_the_worker_is_met_again_here(tmp_path: Path, fresh: None) -> None:
    """A file the worker cannot decode: it answers with an error, the reader reads the
    file in-process and records the same uncertainty as without a worker."""
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    asset = Asset(id="asset:1", path=str(broken), kind=MediaKind.IMAGE)
    context = ExtractContext(
        config=CONFIG, artifacts=current_artifacts(), workdir=tmp_path, kind=MediaKind.IMAGE
    )
    without = read_text(asset, broken, context)
    proc = _ask(broken)
    assert _exited(proc)
    assert ocr_worker._results[str(broken)].get("error")
    with_worker = read_text(asset, broken, context)
    assert with_worker == without
    assert [u.code for u in without.uncertainty] == [UncertaintyCode.MEDIA_UNREADABLE]


def test_a_released_worker_exits_without_reading(fresh: None) -> None:
    assert ocr_worker.spawn()
    proc = ocr_worker._worker.proc
    assert proc is not None
    ocr_worker.release()
    assert _exited(proc)
    assert ocr_worker._results == {}
    # a later run of the same process (a test's second in-process verify) reads in-process
    assert not ocr_worker.request([Path("x.png")], CONFIG.ocr_languages, 0.5)


def test_the_worker_is_off_when_turned_off(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEMV_OCR_WORKER", "0")
    assert not ocr_worker.spawn()
    assert not ocr_worker.request([Path("x.png")], CONFIG.ocr_languages, 0.5)


def test_no_worker_means_in_process(tmp_path: Path, fresh: None) -> None:
    need("tesseract")
    image = text_image(tmp_path / "sign.png", "Evacuation centre 300 beds")
    media = extract_media(Asset(id="asset:1", path=str(image), kind=MediaKind.IMAGE), Settings())
    assert ocr_worker._worker.proc is None
    assert any(e.id == "ev:ocr:asset:1" for e in media.evidence)


def _verify(case: Path, data: Path, worker: bool) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "SEMV_OCR_WORKER": str(int(worker))}
    done = subprocess.run(
        [sys.executable, "-m", "semv", "verify", str(case), "--data-dir", str(data), "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=600,
    )
    # run ids, the data dir and the trace head (which hashes the run's events and their
    # times) differ between any two runs; the rest of the result must not
    out = re.sub(r"r\d{8}T\d{6}\w+", "RUN", done.stdout.replace(str(data), "DATA"))
    result = json.loads(out)
    result.pop("trace_head")
    return json.dumps(result, sort_keys=True)


def test_a_cold_verify_gives_the_same_result_with_the_worker(tmp_path: Path) -> None:
    need("tesseract")
    case = tmp_path / "case"
    case.mkdir()
    (case / "case.yaml").write_text(
        "id: sign\nclaim: The evacuation centre in Lyon has 300 beds.\n"
        "media:\n  - path: sign.png\n    role: primary\n",
        encoding="utf-8",
    )
    text_image(case / "sign.png", "Evacuation centre 300 beds")
    with_worker = _verify(case, tmp_path / "a", worker=True)
    assert "Evacuation centre 300 beds" in with_worker
    assert with_worker == _verify(case, tmp_path / "b", worker=False)
