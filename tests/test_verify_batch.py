"""``semv verify-batch``: an invalid case folder is reported and the others still run (exit 2
at the end); ``--resume`` after a kill -9 commits no case twice and continues the interrupted
run; the batch speaks ``semv verify``'s vocabulary (``--procedure``, ``--source``,
``--before``, ``--out``)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from semv.model import RunStatus, TraceKind
from semv.store import Store
from tests.web_helpers import ROOT, hostile_case

runner = CliRunner()


def _case(batch: Path, name: str) -> Path:
    folder = hostile_case(batch / name)
    yaml = folder / "case.yaml"
    yaml.write_text(yaml.read_text().replace("id: hostile-markup", f"id: {name}"))
    return folder


def _batch(*args: str) -> tuple[int, str, str]:
    from semv.cli import app

    done = runner.invoke(app, ["verify-batch", *args])
    return done.exit_code, done.stdout, done.stderr


def test_an_invalid_folder_is_reported_and_the_others_run(tmp_path: Path) -> None:
    batch = tmp_path / "batch"
    _case(batch, "good")
    (batch / "broken").mkdir()
    (batch / "broken" / "case.yaml").write_text("id: [unclosed\n")
    (batch / "empty").mkdir()
    data = tmp_path / "s"
    code, out, err = _batch(str(batch), "--text-only", "--json", "--data-dir", str(data))
    assert code == 2, err
    rows = {r["case_id"]: r for r in json.loads(out)}
    assert rows["good"]["status"] == "committed"
    assert rows["broken"]["status"] == "invalid" and "broken" in rows["broken"]["error"]
    assert rows["empty"]["status"] == "invalid"
    store = Store(data)
    assert [r.case_id for r in store.list_runs()] == ["good"]
    code, _, err = _batch(str(batch), "--text-only", "--data-dir", str(data))
    assert code == 2 and "invalid:" in err and "broken" in err


def test_resume_skips_what_was_committed(tmp_path: Path) -> None:
    batch = tmp_path / "batch"
    for name in ("a", "b"):
        _case(batch, name)
    data = tmp_path / "s"
    args = (str(batch), "--text-only", "--json", "--data-dir", str(data))
    code, out, err = _batch(*args)
    assert code == 0, err
    first = {r["case_id"]: r["run_id"] for r in json.loads(out)}
    code, out, err = _batch(*args, "--resume")
    assert code == 0, err
    again = json.loads(out)
    assert [r["status"] for r in again] == ["skipped", "skipped"]
    assert {r["case_id"]: r["run_id"] for r in again} == first
    assert Store(data).count_runs() == 2
    # a changed case is verified again, the unchanged one is not
    yaml = batch / "b" / "case.yaml"
    yaml.write_text(yaml.read_text().replace("Flooding in Paris", "Flooding in Lyon"))
    code, out, err = _batch(*args, "--resume")
    assert code == 0, err
    assert {r["case_id"]: r["status"] for r in json.loads(out)} == {
        "a": "skipped",
        "b": "committed",
    }
    # another procedure is another verification
    code, out, err = _batch(*args, "--resume", "--procedure", "remmd")
    assert code == 0, err
    assert {r["status"] for r in json.loads(out)} == {"committed"}


def test_resume_after_kill_9_commits_no_case_twice(tmp_path: Path) -> None:
    batch = tmp_path / "batch"
    names = [f"k-{i}" for i in range(3)]
    for name in names:
        _case(batch, name)
    data = tmp_path / "s"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-m", "semv", "verify-batch", str(batch), "--text-only"]
    proc = subprocess.Popen(
        [*command, "--data-dir", str(data)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            if (data / "semv.db").exists():
                with sqlite3.connect(data / "semv.db") as conn:
                    try:
                        states = dict(conn.execute("SELECT case_id, status FROM runs").fetchall())
                    except sqlite3.OperationalError:
                        states = {}
                if list(states.values()).count("committed") >= 1 and "running" in states.values():
                    break
            time.sleep(0.02)
        if proc.poll() is not None:
            pytest.skip("the batch finished before it could be killed")
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    store = Store(data)
    before = store.list_runs()
    killed = [r.run_id for r in before if r.status is RunStatus.RUNNING]
    assert killed, "one case was running when the batch was killed"
    done = subprocess.run(
        [*command, "--resume", "--json", "--data-dir", str(data)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout)
    assert sorted(r["case_id"] for r in rows) == names
    assert "skipped" in {r["status"] for r in rows}
    runs = store.list_runs(50)
    committed = Counter(r.case_id for r in runs if r.status is RunStatus.COMMITTED)
    assert committed == Counter(names)  # every case once, none twice
    for run_id in killed:
        assert store.get_run(run_id).status is RunStatus.INTERRUPTED
        resumed_by = [r for r in rows if r.get("resumes") == run_id]
        assert len(resumed_by) == 1
        first = store.trace(resumed_by[0]["run_id"])[0]
        assert first.kind is TraceKind.RUN_STARTED and first.payload["resumes"] == run_id


def test_verify_batch_takes_verifys_procedure_source_before_and_out(tmp_path: Path) -> None:
    batch = tmp_path / "batch"
    _case(batch, "v")
    data, reports = tmp_path / "s", tmp_path / "reports"
    common = (str(batch), "--text-only", "--json", "--data-dir", str(data))
    code, _, err = _batch(*common, "--before", "2024-01-01")
    assert code == 2 and "--before needs at least one --source" in err
    code, _, err = _batch(*common, "--source", "nosuch")
    assert code == 2 and "unknown source" in err
    code, _, err = _batch(*common, "--procedure", "nosuch")
    assert code == 2
    code, out, err = _batch(
        *common,
        "--procedure",
        "remmd",
        "--source",
        "corpus",
        "--before",
        "2024-03-15",
        "--out",
        str(reports),
    )
    assert code == 0, err
    [row] = json.loads(out)
    run_id = row["run_id"]
    assert (reports / run_id / "report.html").is_file()
    started = Store(data).trace(run_id)[0].payload
    assert started["procedure"] == "remmd"
    assert "corpus" in json.dumps(started["retrieval"]) and "2024-03-15" in json.dumps(
        started["retrieval"]
    )
