"""Tool version answers remembered by the program file's identity (``semv.perception._toolcache``):
the same file is not asked twice, a changed or removed file is, a failed answer is not kept.
OpenCV's version, for the media stage's fingerprint, is remembered the same way
(``semv.perception._signal_versions``)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from semv.perception._toolcache import program_identity, remembered


@pytest.fixture
def tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path / "cache"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    program = bin_dir / "semvtool"
    program.write_text("#!/bin/sh\necho 1.0\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program


def test_the_same_program_file_is_asked_once(tool: Path) -> None:
    asked: list[str] = []

    def probe() -> str:
        asked.append("x")
        return "semvtool 1.0"

    assert remembered("semvtool", "semvtool", probe) == "semvtool 1.0"
    assert remembered("semvtool", "semvtool", probe) == "semvtool 1.0"
    assert asked == ["x"]


def test_an_upgraded_program_is_asked_again(tool: Path) -> None:
    remembered("semvtool", "semvtool", lambda: "semvtool 1.0")
    before = program_identity("semvtool")
    tool.write_text("#!/bin/sh\necho 2.0\n# upgraded\n")
    assert program_identity("semvtool") != before
    assert remembered("semvtool", "semvtool", lambda: "semvtool 2.0") == "semvtool 2.0"


def test_a_removed_program_is_asked_and_not_remembered(tool: Path) -> None:
    remembered("semvtool", "semvtool", lambda: "semvtool 1.0")
    tool.unlink()
    assert program_identity("semvtool") is None
    assert remembered("semvtool", "semvtool", lambda: "semvtool missing") == "semvtool missing"


def test_a_failed_answer_is_not_kept(tool: Path) -> None:
    assert remembered("semvtool", "semvtool", lambda: "semvtool unknown") == "semvtool unknown"
    assert remembered("semvtool", "semvtool", lambda: "semvtool 1.0") == "semvtool 1.0"


def test_an_unreadable_cache_is_ignored(tool: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "tool-versions.json").write_text("{not json")
    assert remembered("semvtool", "semvtool", lambda: "semvtool 1.0") == "semvtool 1.0"
    assert remembered("semvtool", "semvtool", lambda: "other") == "semvtool 1.0"


# ---- the forensic extractors' fingerprint strings, without importing OpenCV -------------------


def test_the_forensic_tool_string_names_each_library_s_installed_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The string changes with any of the three libraries, and OpenCV's part is the same whether
    it came from the imported module or from the remembered answer."""
    import cv2
    import numpy as np
    import PIL

    from semv.perception import _signal_versions

    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path / "cache"))
    imported = _signal_versions.forensic_tool_version()
    for library, version in (("Pillow", PIL.__version__), ("OpenCV", cv2.__version__)):
        assert f"{library} {version}" in imported
    assert f"numpy {np.__version__}" in imported
    assert _signal_versions.opencv_version() == cv2.__version__
    asked, _ = _signal_tools_in_a_fresh_process(tmp_path / "cache")  # imports OpenCV, remembers
    remembered, loaded = _signal_tools_in_a_fresh_process(tmp_path / "cache")
    assert not loaded  # the second process took OpenCV's version from the cache
    assert asked.startswith(imported) and remembered == asked


def test_the_model_fingerprint_follows_the_model_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refit (any byte of the file) or a new version changes the fingerprint, so cached media
    nodes computed with another model are never reused; no file reads as ``none``."""
    import json

    from semv.perception import _signal_versions

    package = tmp_path / "package"
    (package / "data").mkdir(parents=True)
    model = package / "data" / "forensic_model.json"
    monkeypatch.setattr(_signal_versions.resources, "files", lambda _name: package)

    model.write_text(json.dumps({"version": 3, "weights": {"copy_move": 0.67}}))
    first = _signal_versions.model_fingerprint()
    model.write_text(json.dumps({"version": 3, "weights": {"copy_move": 0.68}}))
    refit = _signal_versions.model_fingerprint()
    model.write_text(json.dumps({"version": 4, "weights": {"copy_move": 0.68}}))
    newer = _signal_versions.model_fingerprint()
    assert first.startswith("forensic model v3 ") and refit.startswith("forensic model v3 ")
    assert newer.startswith("forensic model v4 ")
    assert len({first, refit, newer}) == 3
    model.unlink()
    assert _signal_versions.model_fingerprint() == "forensic model none"


def _signal_tools_in_a_fresh_process(cache: Path) -> tuple[str, bool]:
    code = (
        "import sys\nfrom semv.perception.signals import signal_tools\n"
        "print(signal_tools())\nprint('cv2' in sys.modules)"
    )
    src = Path(__file__).resolve().parents[1] / "src"
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(src), "SEMV_CACHE_DIR": str(cache)},
    )
    tools, loaded = run.stdout.strip().splitlines()
    return tools, loaded == "True"


def test_opencv_is_imported_for_its_version_once_per_installation(tmp_path: Path) -> None:
    first, imported_first = _signal_tools_in_a_fresh_process(tmp_path / "cache")
    second, imported_second = _signal_tools_in_a_fresh_process(tmp_path / "cache")
    assert (imported_first, imported_second) == (True, False)
    assert first == second
    assert "; OpenCV " in first


def test_a_changed_opencv_installation_is_asked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from semv.perception import _signal_versions

    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delitem(sys.modules, "cv2", raising=False)
    identity = ["cv2 files, first install"]
    monkeypatch.setattr(_signal_versions, "_cv2_identity", lambda: identity[0])
    monkeypatch.setattr(_signal_versions, "_import_version", lambda: "4.0.0")
    assert _signal_versions.opencv_version() == "4.0.0"
    monkeypatch.setattr(_signal_versions, "_import_version", lambda: "5.0.0")
    assert _signal_versions.opencv_version() == "4.0.0"  # the same files: remembered
    identity[0] = "cv2 files, upgraded"
    assert _signal_versions.opencv_version() == "5.0.0"


def test_exiftool_is_probed_unless_this_very_file_answered_as_exiftool(tool: Path) -> None:
    from semv.perception._exiftool import _answered_before

    assert not _answered_before(str(tool))  # nothing kept: the -ver probe runs
    remembered("exiftool", str(tool), lambda: "exiftool missing")  # a failure is not kept
    assert not _answered_before(str(tool))
    remembered("exiftool", str(tool), lambda: "exiftool 12.57")
    assert _answered_before(str(tool))
    tool.write_text("#!/bin/sh\nsleep 1000\n")  # replaced by something else: probed again
    assert not _answered_before(str(tool))


def test_opencv_being_imported_by_another_thread_is_waited_for(tmp_path: Path) -> None:
    """The media node imports OpenCV (the forensic extractors) in one thread while the
    fingerprint thread asks for its version: the version must come from the finished module,
    never from the half-initialised one another thread is still running."""
    code = (
        "import sys, threading\n"
        "from semv.perception._signal_versions import opencv_version\n"
        "threading.Thread(target=lambda: __import__('cv2')).start()\n"
        "while 'cv2' not in sys.modules:\n    pass\n"
        "print(opencv_version())\n"
        "import cv2\nprint(cv2.__version__)"
    )
    src = Path(__file__).resolve().parents[1] / "src"
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(src), "SEMV_CACHE_DIR": str(tmp_path / "c")},
    )
    got, want = run.stdout.split()
    assert got == want
