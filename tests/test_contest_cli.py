"""`semv contest`: batch files, the published schema, shorthand actions, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from semv.cli import app
from semv.contest import SCHEMA_FILE, batch_schema, load_batch
from semv.errors import InputError
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "lyon-flood"
runner = CliRunner()


def semv(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_the_published_schema_file_matches_the_model() -> None:
    assert json.loads(SCHEMA_FILE.read_text()) == batch_schema()
    code, out, _ = semv("contest", "--schema")
    assert code == 0 and json.loads(out) == batch_schema()
    ops = json.dumps(batch_schema())
    assert all(op in ops for op in ('"accept"', '"reject"', '"edit"', '"add"'))


def test_bad_batch_files_name_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(InputError, match=r"broken\.json"):
        load_batch(broken)
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"actions": []}))
    with pytest.raises(InputError, match=r"empty\.json.*actions"):
        load_batch(empty)
    unknown = tmp_path / "op.json"
    unknown.write_text(json.dumps({"actions": [{"op": "delete", "target": "x", "reason": "r"}]}))
    with pytest.raises(InputError, match=r"op\.json"):
        load_batch(unknown)


def test_contest_a_run_from_a_file_and_with_shorthand_flags(data_dir: Path, tmp_path: Path) -> None:
    code, out, err = semv("verify", str(EXAMPLE), "--json", "--data-dir", str(data_dir))
    assert code == 0, err
    run = json.loads(out)["run_id"]
    batch = tmp_path / "review.json"
    batch.write_text(
        json.dumps(
            {"actions": [{"op": "reject", "target": "arg:when:att:2", "reason": "bad clock"}]}
        )
    )
    code, out, err = semv(
        "contest", run, "--file", str(batch), "--json", "--data-dir", str(data_dir)
    )
    assert code == 0, err
    rev = json.loads(out)
    assert rev["parent_run_id"] == run and rev["plan"]["restart"] == "A"
    assert rev["locality"]["value"] == 1.0 and rev["policy"] == "scoped"
    code, out, err = semv(
        "contest",
        run,
        "--accept",
        "arg:what:sup:1",
        "--reason",
        "checked",
        "--policy",
        "causal",
        "--data-dir",
        str(data_dir),
    )
    assert code == 0, err
    assert "decision diff" in out and "route Q = re-enters at QBAF" in out
    assert "restart stage u* = " in out and "recomputed from there on" in out
    assert "stale base" in err  # the run had already been revised by the batch above
    witness = tmp_path / "witness.txt"
    witness.write_text("A witness saw the Seine flood Paris on 14 March 2024.")
    code, out, err = semv(
        "contest",
        run,
        "--add-evidence",
        str(witness),
        "--to",
        "claim:when",
        "--reason",
        "witness",
        "--json",
        "--data-dir",
        str(data_dir),
    )
    assert code == 0, err
    assert json.loads(out)["plan"]["restart"] == "R"


def test_contest_refuses_bad_input_with_exit_2(data_dir: Path, tmp_path: Path) -> None:
    code, _, err = semv(
        "contest", "r-nope", "--reject", "x", "--reason", "r", "--data-dir", str(data_dir)
    )
    assert code == 2 and "r-nope" in err
    code, _, err = semv("contest", "r-nope", "--reject", "x", "--data-dir", str(data_dir))
    assert code == 2 and "--reason" in err
    code, _, err = semv("contest", "r-nope", "--data-dir", str(data_dir))
    assert code == 2 and "nothing to apply" in err
    code, _, err = semv(
        "contest", "r", "--file", str(tmp_path / "missing.json"), "--data-dir", str(data_dir)
    )
    assert code == 2 and "missing.json" in err


def test_the_example_review_batch_is_valid() -> None:
    batch = load_batch(ROOT / "examples" / "review-lyon-flood.json")
    assert [a.op for a in batch.actions] == ["reject", "accept"]
    assert batch.actions[0].meta.reviewer == "alice"
