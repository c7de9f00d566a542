"""The report templates' compiled form is kept on disk: a later process renders the same bytes
without compiling them again, and a cache that cannot be used never fails a report."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jinja2 import Environment

from semv.report import render_report
from semv.report._render import _environment
from tests.test_report import _context


@pytest.fixture(autouse=True)
def fresh_environments() -> Iterator[None]:
    _environment.cache_clear()
    yield
    _environment.cache_clear()


def _compiled_names(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the loader's templates Jinja compiles from source from now on."""
    names: list[str] = []
    real = Environment.compile

    def spy(self: Environment, source: Any, name: str | None = None, *a: Any, **k: Any) -> Any:
        if name is not None:
            names.append(name)
        return real(self, source, name, *a, **k)

    monkeypatch.setattr(Environment, "compile", spy)
    return names


def test_a_later_process_renders_the_same_report_without_compiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path))
    compiled = _compiled_names(monkeypatch)
    first = render_report(_context())
    assert "report.md.j2" in compiled and "report.html.j2" in compiled
    assert any((tmp_path / "templates-html-finalize").iterdir())
    assert any((tmp_path / "templates-text-finalize").iterdir())
    _environment.cache_clear()  # as a new process: nothing compiled in memory
    compiled.clear()
    again = render_report(_context())
    assert compiled == []
    assert again == first


def test_an_unusable_cache_directory_only_costs_the_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv("SEMV_CACHE_DIR", str(blocked))
    without = render_report(_context())
    _environment.cache_clear()
    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path / "ok"))
    assert render_report(_context()) == without
