"""What a reviewer can trust about a revision's scope (items 4-5): an id that
resolves to nothing is refused with the valid ids; a revision evaluates against the parent's
reverse-image index unless `--refresh-sources`, and says which it did; locality figures
never exceed their totals."""

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

pytest.importorskip("faiss")
pytest.importorskip("cv2")


def semv(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def indexed_after_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A verified example, then an image index built after it holding an earlier copy of the
    example photo (new reverse-image evidence the parent never saw)."""
    root = tmp_path_factory.mktemp("scope")
    data = root / "data"
    code, out, err = semv("verify", str(EXAMPLE), "--json", "--data-dir", str(data))
    assert code == 0, err
    run = json.loads(out)["run_id"]
    archive = root / "archive"
    archive.mkdir()
    shutil.copy(EXAMPLE / "photo.jpg", archive / "copy.jpg")
    meta = root / "meta.json"
    meta.write_text(
        json.dumps(
            [
                {
                    "file": "copy.jpg",
                    "source_url": "https://archive.example.org/2016/lyon",
                    "first_seen": "2016-06-01",
                    "caption": "Flooded street in Lyon, June 2016",
                }
            ]
        )
    )
    code, _, err = semv(
        "index", "images", str(archive), "--meta", str(meta), "--data-dir", str(data)
    )
    assert code == 0, err
    return data, run


def _changed(payload: dict[str, object]) -> set[str]:
    delta = payload["delta"]
    assert isinstance(delta, dict)
    return {
        s["dimension"]
        for s in delta["subclaims"]
        if s["band_before"] != s["band_after"] or abs(s["score_before"] - s["score_after"]) > 1e-9
    }


def _locality_is_bounded(payload: dict[str, object]) -> None:
    loc = payload["locality"]
    assert isinstance(loc, dict)
    assert 0.0 <= loc["value"] <= 1.0
    assert 0 <= len(loc["executed"]) <= loc["global_transitions"]
    assert len(loc["changed_outside"]) <= loc["outside"]
    assert 0.0 <= loc["avoided"] <= 1.0


def test_an_unknown_target_exits_2_with_the_valid_ids(indexed_after_run: tuple[Path, str]) -> None:
    data, run = indexed_after_run
    code, out, err = semv(
        "contest", run, "--reject", "arg:when:att:9", "--reason", "x", "--data-dir", str(data)
    )
    assert code == 2 and not out
    assert "arg:when:att:9" in err and "Did you mean arg:when:att:" in err
    assert "claim:when" in err and "arg:when:att:2" in err
    code, out, _ = semv("runs", "--data-dir", str(data), "--json")
    assert code == 0 and len(json.loads(out)) == 1  # no revision was made


def test_a_revision_holds_the_parents_index_unless_refreshed(
    indexed_after_run: tuple[Path, str],
) -> None:
    data, run = indexed_after_run
    args = ("contest", run, "--reject", "arg:when:att:2", "--reason", "clock", "--json")
    code, out, err = semv(*args, "--data-dir", str(data))
    assert code == 0, err
    held = json.loads(out)
    assert _changed(held) == {"when"}
    assert held["sources_changed"] == ["media:asset:1"] and not held["sources_refreshed"]
    assert held["locality"]["changed_outside"] == []
    _locality_is_bounded(held)

    code, out, err = semv(*args, "--refresh-sources", "--data-dir", str(data))
    assert code == 0, err
    fresh = json.loads(out)
    assert fresh["sources_refreshed"] and fresh["sources_changed"] == ["media:asset:1"]
    assert _changed(fresh) - {"when"}, "the new reverse-image match reaches other subclaims"
    assert "media:asset:1" in fresh["locality"]["executed"]
    _locality_is_bounded(fresh)

    code, out, err = semv(
        "contest", run, "--reject", "arg:when:att:2", "--reason", "clock", "--data-dir", str(data)
    )
    assert code == 0, err
    assert "sources held" in out and "--refresh-sources" in out
