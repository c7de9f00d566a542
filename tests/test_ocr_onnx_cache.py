"""OCR's ONNX graphs optimised once and kept on disk (``semv.perception._onnx_cache``): the
same readings, one file per model, RapidOCR's own loading when the cache is off or a model
does not match its checksum."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from semv.perception import _ocr_engines, _onnx_cache
from tests.media_factory import need, text_image

LANGUAGES = ("eng", "fra", "vie", "jpn", "chi_sim")
TEXTS = ("Evacuation centre 300 beds", "Lũ lụt đã tràn vào phố cổ", "河水淹没了老城区")
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "lyon-flood" / "photo.jpg"


def _readings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every test image read by a new engine (its sessions created now)."""
    from PIL import Image

    monkeypatch.setattr(_ocr_engines, "_ENGINE", None)
    paths = [text_image(tmp_path / f"t{i}.png", text) for i, text in enumerate(TEXTS)]
    out = []
    for path in [*paths, EXAMPLE]:
        with Image.open(path) as image:
            image.load()
            out.append(_ocr_engines.read_lines(image, LANGUAGES, 0.5))
    return out


def test_cached_graphs_read_the_same_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need("tesseract")
    pytest.importorskip("rapidocr")
    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SEMV_ONNX_CACHE", "0")
    without = _readings(tmp_path, monkeypatch)
    assert not (tmp_path / "cache" / "onnx").exists()
    monkeypatch.setenv("SEMV_ONNX_CACHE", "1")
    first = _readings(tmp_path, monkeypatch)  # optimises and saves the three graphs
    files = sorted((tmp_path / "cache" / "onnx").glob("*.onnx"))
    assert len(files) == 3, files
    stamps = [f.stat().st_mtime_ns for f in files]
    again = _readings(tmp_path, monkeypatch)  # loads them
    assert [f.stat().st_mtime_ns for f in files] == stamps
    assert first == without and again == without
    assert any(line["text"] == TEXTS[0] for line in without[0])
    sections = [_ocr_engines._rapid().cfg[name].get("model_path") for name in ("Det", "Rec")]
    assert all(str(tmp_path / "cache" / "onnx") in str(p) for p in sections), sections


def test_a_model_that_fails_its_checksum_is_not_optimised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnxruntime")
    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path / "cache"))
    model = tmp_path / "model.onnx"
    model.write_bytes(b"not the model RapidOCR ships")
    folder = tmp_path / "cache" / "onnx"
    assert _onnx_cache.optimized_model(model, "0" * 64, 1, folder) is None
    assert _onnx_cache.optimized_model(model, None, 1, folder) is None
    assert not (tmp_path / "cache" / "onnx").exists()


def test_off_switch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEMV_ONNX_CACHE", "0")
    assert not _onnx_cache.enabled(False)
    assert _onnx_cache.configured_folder() is None
    monkeypatch.setenv("SEMV_ONNX_CACHE", "1")
    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path))
    if _onnx_cache.enabled(True):  # Linux: the CPU flags key the cache
        assert _onnx_cache.configured_folder() == tmp_path / "onnx"


def test_the_worker_is_told_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """OCR's worker reads no environment: its command line names the ONNX cache folder of the
    parent's (``off`` when the cache is off)."""
    from semv.perception import ocr_worker

    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("SEMV_ONNX_CACHE", "0")
    assert ocr_worker._arguments() == ["--onnx-cache", "off"]
    monkeypatch.setenv("SEMV_ONNX_CACHE", "1")
    if _onnx_cache.enabled(True):
        assert ocr_worker._arguments() == ["--onnx-cache", str(tmp_path / "onnx")]
