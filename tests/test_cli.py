"""The `semv` command end to end on the offline backend: verdicts, exit codes, bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from semv.cli import app
from semv.store import Store
from tests.conftest import ROOT, shared_data

EXAMPLE = ROOT / "examples" / "lyon-flood"
runner = CliRunner()


def semv(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def runs_in(data_dir: Path) -> int:
    return Store(data_dir).count_runs() if (data_dir / "semv.db").exists() else 0


def test_verify_example_is_false_context(data_dir: Path) -> None:
    code, out, err = semv("verify", str(EXAMPLE), "--json", "--data-dir", str(data_dir))
    assert code == 0, err
    result = json.loads(out)
    assert result["case_id"] == "lyon-flood"
    assert result["label"] == "false-context"  # EXIF says Lyon, 2019: see examples/README.md
    when = next(s for s in result["subclaims"] if s["dimension"] == "when")
    assert when["decision"] in ("refuted", "weakly-refuted")
    assert any("ev:exif:asset:1" in a["evidence"] for a in when["arguments"])
    assert Path(result["report_paths"]["html"]).is_file()


def test_show_verifies_the_trace_and_detects_tampering(data_dir: Path) -> None:
    code, out, _ = semv("verify", str(EXAMPLE), "--json", "--data-dir", str(data_dir))
    run_id = json.loads(out)["run_id"]
    code, out, _ = semv("show", run_id, "--verify-trace", "--data-dir", str(data_dir))
    assert code == 0 and "verified" in out
    engine = create_engine(f"sqlite:///{data_dir / 'semv.db'}")
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE trace SET payload='{}' WHERE seq = 3 AND run_id = :r"), {"r": run_id}
        )
    engine.dispose()
    code, out, err = semv("show", run_id, "--verify-trace", "--data-dir", str(data_dir))
    assert code == 1
    assert "event 3" in out + err


def test_second_identical_verify_runs_zero_stages(data_dir: Path) -> None:
    semv("verify", str(EXAMPLE), "--data-dir", str(data_dir))
    code, out, _ = semv("verify", str(EXAMPLE), "--data-dir", str(data_dir))
    assert code == 0 and " 0 stages run" in out


def _case(tmp_path: Path) -> Path:
    folder = tmp_path / "case"
    shutil.copytree(EXAMPLE, folder)
    return folder


@pytest.mark.parametrize(
    ("breakage", "expected"),
    [
        ("missing-media", "photo.jpg"),
        ("symlink-outside", "outside the case folder"),
        ("malformed-yaml", "case.yaml"),
        ("missing-claim", "claim"),
    ],
)
def test_bad_input_exits_2_names_the_problem_and_leaves_no_run(
    tmp_path: Path, data_dir: Path, breakage: str, expected: str
) -> None:
    folder = _case(tmp_path)
    yaml_path = folder / "case.yaml"
    if breakage == "missing-media":
        (folder / "photo.jpg").unlink()
    elif breakage == "symlink-outside":
        # hostile: the media file is a link out of the case folder (refused, never read)
        outside = tmp_path / "secret.jpg"
        (folder / "photo.jpg").rename(outside)
        (folder / "photo.jpg").symlink_to(outside)
    elif breakage == "malformed-yaml":
        yaml_path.write_text("id: x\nclaim: [unclosed\n")
    else:
        yaml_path.write_text(yaml_path.read_text().replace("claim:", "claimed:", 1))
    code, _, err = semv("verify", str(folder), "--data-dir", str(data_dir))
    assert code == 2
    assert expected in err
    assert runs_in(data_dir) == 0


def test_unknown_adapter_lists_the_valid_ones(data_dir: Path) -> None:
    code, _, err = semv("verify", str(EXAMPLE), "--adapter", "nope", "--data-dir", str(data_dir))
    assert code == 2 and "nope" in err and "generic" in err and "cosmos" in err
    assert runs_in(data_dir) == 0


def test_unknown_run_is_bad_input(data_dir: Path) -> None:
    code, _, err = semv("show", "r000", "--data-dir", str(data_dir))
    assert code == 2 and "r000" in err


@pytest.mark.shared_data
def test_eval_cosmos_public_sample_with_images(data_dir: Path) -> None:
    data = shared_data("cosmos-public", "test_data.json")
    code, out, err = semv("eval", "cosmos", str(data), "--json", "--data-dir", str(data_dir))
    assert code == 0, err
    metrics = json.loads(out)
    assert metrics["n"] == 21 and metrics["failed"] == 0
    for key in ("accuracy", "precision", "recall", "f1", "balanced_accuracy", "ece", "brier"):
        assert 0.0 <= metrics[key] <= 1.0
    lo, hi = metrics["accuracy_ci95"]
    assert lo <= metrics["accuracy"] <= hi
    c = metrics["confusion"]
    assert c["tp"] + c["fn"] == 6 and c["tn"] + c["fp"] == 15  # the sample's 6 OOC / 15 NOOC


def test_python_dash_m_is_the_same_command() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "semv", "--help"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0
    for command in ("verify", "show", "eval"):
        assert command in proc.stdout


def test_two_processes_can_share_a_data_dir(data_dir: Path) -> None:
    cmd = [sys.executable, "-m", "semv", "verify", str(EXAMPLE), "--json"]
    procs = [
        subprocess.Popen(
            [*cmd, "--data-dir", str(data_dir)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [e.decode()[-500:] for _, e in outputs]
    results = [json.loads(out) for out, _ in outputs]
    assert results[0]["run_id"] != results[1]["run_id"]
    assert results[0]["label"] == results[1]["label"]
    store = Store(data_dir)
    assert store.count_runs() == 2
    assert all(store.verify_trace(r["run_id"]).ok for r in results)
