"""semv.atomic: a target is its old content or its new content, never half-written."""

from __future__ import annotations

from pathlib import Path

import pytest

from semv.atomic import atomic_target, write_bytes_atomic, write_text_atomic


def test_writes_new_content_and_creates_parents(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "report.md"
    write_text_atomic(target, "verdict: ✓\n")
    assert target.read_text(encoding="utf-8") == "verdict: ✓\n"
    write_bytes_atomic(target, b"second")
    assert target.read_bytes() == b"second"
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.md"]


def test_failure_keeps_old_content_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "map.png"
    target.write_bytes(b"old")

    class Boom(Exception):
        pass

    with pytest.raises(Boom), atomic_target(target, prefix=".map-") as tmp:
        tmp.write_bytes(b"half")
        raise Boom
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["map.png"]


def test_temp_file_lives_beside_the_target(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "index.bin"
    with atomic_target(target) as tmp:
        assert tmp.parent == target.parent
        assert tmp.name.startswith(".index.bin.")
        tmp.write_bytes(b"x")
    assert target.read_bytes() == b"x"


def test_the_new_file_is_private_unless_a_mode_is_asked_for(tmp_path: Path) -> None:
    private, shared = tmp_path / "report.md", tmp_path / "model.json"
    write_text_atomic(private, "a")
    write_text_atomic(shared, "b", mode=0o644)
    assert private.stat().st_mode & 0o777 == 0o600
    assert shared.stat().st_mode & 0o777 == 0o644
