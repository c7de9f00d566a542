"""`semv index corpus` hygiene: semv's own source tree and hidden folders are not
indexed by default, and the command reports what it read and what it skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from semv.cli import app
from semv.retrieval import LocalCorpus, scan_documents
from semv.store import Store
from tests.conftest import ROOT

runner = CliRunner()


def semv(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture()
def archive(tmp_path: Path) -> Path:
    """A desk archive holding two notes, a hidden folder, a stray binary and a semv checkout."""
    root = tmp_path / "archive"
    (root / "2024").mkdir(parents=True)
    (root / "2024" / "flood.md").write_text("# Seine flood\n\nThe Seine rose in Paris.\n")
    (root / "notes.txt").write_text("Lyon photo blog, June 2019.\n")
    (root / "photo.jpg").write_bytes(b"\xff\xd8\xff")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD.txt").write_text("ref: refs/heads/main\n")
    checkout = root / "semv-checkout"
    (checkout / "docs").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text('[project]\nname = "semv"\n')
    (checkout / "docs" / "architecture.md").write_text("# semv architecture\n")
    return root


def test_index_reports_types_and_skips_hidden_and_semv_trees(archive: Path, data_dir: Path) -> None:
    code, out, err = semv("index", "corpus", str(archive), "--data-dir", str(data_dir), "--json")
    assert code == 0, err
    stats = json.loads(out)
    assert stats["files"] == {".md": 1, ".txt": 1}
    assert stats["by_source_type"] == {"web": 2}
    skipped = {s["path"]: s["reason"] for s in stats["skipped"]}
    assert skipped == {
        ".git": "hidden",
        "photo.jpg": "unsupported type .jpg",
        "semv-checkout": "semv's own source tree",
    }
    corpus = LocalCorpus(Store(data_dir).url)
    assert corpus.count() == 2
    assert not corpus.search("semv architecture", k=5)
    # the human summary names the counts and the reasons
    code, out, err = semv("index", "corpus", str(archive), "--data-dir", str(data_dir))
    assert code == 0
    assert "files read: 1 .md, 1 .txt" in out
    assert "semv's own source tree" in err and "hidden" in err


def test_flags_lift_the_hygiene_rules(archive: Path) -> None:
    scan = scan_documents(archive, include_hidden=True, allow_project=True)
    names = {p.name for p in scan.files}
    assert names == {"flood.md", "notes.txt", "HEAD.txt", "architecture.md"}


@pytest.mark.parametrize("target", ["docs", ".", "src/semv"])
def test_semv_own_source_tree_is_refused(target: str, data_dir: Path) -> None:
    code, _out, err = semv("index", "corpus", str(ROOT / target), "--data-dir", str(data_dir))
    assert code == 2
    assert "semv's own source tree" in err and "--allow-semv-source" in err
    assert not (data_dir / "semv.db").exists()  # nothing half-written


def test_a_hidden_folder_named_explicitly_is_refused(archive: Path, data_dir: Path) -> None:
    code, _out, err = semv("index", "corpus", str(archive / ".git"), "--data-dir", str(data_dir))
    assert code == 2 and "--include-hidden" in err
    code, out, err = semv(
        "index",
        "corpus",
        str(archive / ".git"),
        "--include-hidden",
        "--data-dir",
        str(data_dir),
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["added"] == 1
