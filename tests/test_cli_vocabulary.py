"""One CLI vocabulary and feedback where a user expects it: reading
commands never create a store, `runs` has a header, a procedure column, `--json` and `--ids`,
help shows no type on switches, `--resume` says what it continues."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from semv.cli import app
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "lyon-flood"
runner = CliRunner()


def semv(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_reading_an_empty_data_dir_creates_nothing_and_says_what_to_do(tmp_path: Path) -> None:
    data = tmp_path / "nothing-here"
    code, out, err = semv("runs", "--data-dir", str(data))
    assert code == 0 and not out and "no runs yet" in err and "semv verify" in err
    code, out, _ = semv("runs", "--json", "--data-dir", str(data))
    assert code == 0 and json.loads(out) == []
    code, _, err = semv("show", "r2026", "--data-dir", str(data))
    assert code == 2 and "no run matches 'r2026'" in err and "semv runs" in err
    assert not data.exists()


def test_runs_lists_with_a_header_a_procedure_and_json(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    code, out, err = semv("verify", str(EXAMPLE), "--json", "--data-dir", data)
    assert code == 0, err
    run = json.loads(out)["run_id"]
    code, out, _ = semv("runs", "--data-dir", data)
    header, row = out.splitlines()
    assert header.split("\t") == [
        "run",
        "case",
        "procedure",
        "status",
        "label",
        "uncalibrated score",
    ]
    assert row.split("\t")[:4] == [run, "lyon-flood", "semv", "committed"]
    code, out, _ = semv("runs", "--json", "--data-dir", data)
    (entry,) = json.loads(out)
    assert entry["run_id"] == run and entry["procedure"] == "semv" and entry["label"]
    code, out, _ = semv("runs", "--ids", "--data-dir", data)
    assert out == f"{run}\n"
    code, _, err = semv("show", "r-none", "--data-dir", data)
    assert code == 2 and "semv runs --data-dir" in err


def test_help_shows_no_type_on_switches() -> None:
    for command in (["verify"], ["contest"], ["runs"], ["eval", "score"], ["memory", "show"]):
        result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "160"})
        assert result.exit_code == 0
        assert "<bool>" not in result.stdout, command
    result = CliRunner().invoke(app, ["verify", "--help"], env={"COLUMNS": "160"})
    assert re.search(r"--data-dir\s+<path>", result.stdout)  # options with a value keep theirs


def test_the_memory_hash_flag_of_transfer_is_snapshot() -> None:
    result = CliRunner().invoke(app, ["memory", "transfer", "--help"], env={"COLUMNS": "160"})
    assert "--snapshot" in result.stdout and "--memory" not in result.stdout  # hidden alias
