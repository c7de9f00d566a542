"""Tool version answers remembered by the program file's identity (``semv.perception._toolcache``):
the same file is not asked twice, a changed or removed file is, a failed answer is not kept."""

from __future__ import annotations

import os
import stat
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
