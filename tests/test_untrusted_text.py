"""Untrusted text and links in what semv publishes: a YAML case that repeats a key is refused;
bidi overrides, zero-width characters and NUL in a claim are shown, not obeyed, in the HTML
and Markdown reports; an index's source URL on a private, loopback or link-local address is
never published as a link or a ClaimReview appearance."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from semv.cli import app
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "lyon-flood"
runner = CliRunner()


def _case(folder: Path, claim_yaml: str, extra: str = "") -> Path:
    folder.mkdir(parents=True)
    (folder / "case.yaml").write_text(
        f'id: hidden-chars\nclaim: {claim_yaml}\ncontext:\n  date: "2024-03-14"\n{extra}',
        encoding="utf-8",
    )
    return folder


def test_a_yaml_case_with_a_repeated_key_is_refused(tmp_path: Path) -> None:
    case = _case(tmp_path / "dup", '"Flooding in Paris"', extra="claim: Something else\n")
    done = runner.invoke(app, ["verify", str(case), "--data-dir", str(tmp_path / "d")])
    assert done.exit_code == 2, done.output
    assert "case.yaml" in done.stderr and "duplicate key 'claim'" in done.stderr
    assert "line 5" in done.stderr
    assert not (tmp_path / "d" / "reports").exists()


def test_yaml_merge_keys_may_still_be_overridden(tmp_path: Path) -> None:
    from semv.safeload import loads_yaml

    value = loads_yaml("base: &b {x: 1, y: 2}\nitem:\n  <<: *b\n  x: 3\n", "t.yaml")
    assert value["item"] == {"x": 3, "y": 2}


def test_hidden_characters_in_a_claim_are_shown_in_the_reports(tmp_path: Path) -> None:
    claim = r'"Flooding in Paris\u202e4202 hcraM\u202c on\u200b 14 March\0 2024"'
    case = _case(tmp_path / "case", claim)
    data = tmp_path / "d"
    done = runner.invoke(app, ["verify", str(case), "--json", "--data-dir", str(data)])
    assert done.exit_code == 0, done.stderr
    paths = json.loads(done.stdout)["report_paths"]
    for kind in ("html", "markdown"):
        text = Path(paths[kind]).read_text(encoding="utf-8")
        for hidden in ("\u202e", "\u202c", "\u200b", "\x00"):
            assert hidden not in text, (kind, hex(ord(hidden)))
        assert "[U+202E]" in text and "[U+200B]" in text and "[U+0000]" in text, kind


@pytest.mark.parametrize(
    ("url", "published"),
    [
        ("https://archive.example.org/2016/lyon", True),
        ("http://169.254.169.254/latest/meta-data/", False),
        ("http://10.0.0.7/photo", False),
        ("http://192.168.1.1/", False),
        ("http://127.0.0.1:8000/x", False),
        ("http://[::1]/x", False),
        ("http://[fe80::1]/x", False),
        ("http://localhost/x", False),
        ("http://printer.local/x", False),
        ("http://0.0.0.0/", False),
        ("http://user:pw@example.org/", False),
        ("ftp://example.org/x", False),
        ("javascript:alert(1)", False),
    ],
)
def test_publishable_url(url: str, published: bool) -> None:
    from semv.links import publishable_url

    assert publishable_url(url) is published


def test_a_link_local_source_url_in_the_image_index_is_not_published(tmp_path: Path) -> None:
    pytest.importorskip("faiss")
    pytest.importorskip("cv2")
    data = tmp_path / "data"
    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copy(EXAMPLE / "photo.jpg", archive / "copy.jpg")
    metadata = tmp_path / "meta.json"
    secret = "http://169.254.169.254/latest/meta-data/iam"
    metadata.write_text(
        json.dumps([{"file": "copy.jpg", "source_url": secret, "first_seen": "2016-06-01"}])
    )
    done = runner.invoke(
        app, ["index", "images", str(archive), "--meta", str(metadata), "--data-dir", str(data)]
    )
    assert done.exit_code == 0, done.stderr
    done = runner.invoke(app, ["verify", str(EXAMPLE), "--json", "--data-dir", str(data)])
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    matches = [e for e in result["evidence"] if e["id"].startswith("ev:rsearch:")]
    assert matches, "the indexed copy is found"
    assert all(e["url"] is None for e in matches)
    html = Path(result["report_paths"]["html"]).read_text(encoding="utf-8")
    assert 'href="http://169.254' not in html
    done = runner.invoke(app, ["export", result["run_id"], "--data-dir", str(data)])
    assert done.exit_code == 0, done.stderr
    assert "169.254.169.254" not in done.stdout
