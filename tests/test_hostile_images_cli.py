"""Images Pillow refuses stop every image command with one line naming the file, exit 2, and
nothing written: ``semv forensics``, ``semv index images`` and ``semv verify``."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from PIL import Image
from typer.testing import CliRunner

from semv.cli import app
from tests.media_factory import png_bomb

runner = CliRunner()


def _one_line_error(stderr: str, name: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr  # no traceback
    assert lines[0].startswith("error: ") and name in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("size", [(20_000, 20_000), (40_000, 40_000)])
def test_forensics_refuses_a_decompression_bomb(tmp_path: Path, size: tuple[int, int]) -> None:
    bomb = png_bomb(tmp_path / "huge.png", *size)
    result = runner.invoke(app, ["forensics", str(bomb), "--data-dir", str(tmp_path / "d")])
    assert result.exit_code == 2, result.output
    line = _one_line_error(result.stderr, "huge.png")
    assert "decompression bomb" in line
    assert not (tmp_path / "d").exists()


def test_forensics_refuses_a_file_that_is_no_image(tmp_path: Path) -> None:
    fake = tmp_path / "fake.jpg"
    fake.write_bytes(b"<html>not an image</html>")
    result = runner.invoke(app, ["forensics", str(fake), "--data-dir", str(tmp_path / "d")])
    assert result.exit_code == 2
    assert "cannot read image" in _one_line_error(result.stderr, "fake.jpg")


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "photos"
    folder.mkdir()
    Image.new("RGB", (64, 48), "green").save(folder / "ok.png")
    png_bomb(folder / "bomb.png", 20_000, 20_000)
    return folder


def test_index_images_refuses_a_bomb_and_writes_no_index(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    data = tmp_path / "d"
    result = runner.invoke(app, ["index", "images", str(folder), "--data-dir", str(data)])
    assert result.exit_code == 2, result.output
    line = _one_line_error(result.stderr, "bomb.png")
    assert "--skip-unreadable" in line
    assert not (data / "reverse-index").exists()


def test_index_images_skips_refused_images_when_asked(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    data = tmp_path / "d"
    result = runner.invoke(
        app,
        ["index", "images", str(folder), "--skip-unreadable", "--data-dir", str(data)],
    )
    assert result.exit_code == 0, result.output
    assert "indexed 1 image(s)" in result.stdout
    assert "skipped bomb.png" in result.stderr


def test_verify_refuses_a_case_with_a_bomb_before_any_run(tmp_path: Path) -> None:
    case = tmp_path / "case"
    case.mkdir()
    png_bomb(case / "bomb.png", 20_000, 20_000)
    spec = {"id": "bomb", "claim": "Flooding in Lyon.", "media": [{"path": "bomb.png"}]}
    (case / "case.yaml").write_text(yaml.safe_dump(spec))
    data = tmp_path / "d"
    result = runner.invoke(app, ["verify", str(case), "--data-dir", str(data)])
    assert result.exit_code == 2, result.output
    assert "decompression bomb" in _one_line_error(result.stderr, "bomb.png")
    assert not (data / "reports").exists()
