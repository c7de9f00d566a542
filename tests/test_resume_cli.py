"""After ``semv verify --resume RUN`` succeeds, ``semv runs --interrupted`` no longer lists RUN
and resuming it again names the run that resumed it (exit 2); of two processes resuming one
run at the same moment exactly one wins, the other exits 2 having written nothing."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from semv.cli import app
from semv.errors import RunBusy
from semv.model import RunStatus, TraceKind
from semv.store import Store
from tests.web_helpers import EXAMPLE, ROOT

runner = CliRunner()


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def _killed_run(data: Path) -> str:
    """A run of the example whose ``semv verify`` got SIGKILL after a few nodes."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "semv",
            "verify",
            str(EXAMPLE),
            "--text-only",
            "--data-dir",
            str(data),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if (data / "semv.db").exists():
                with sqlite3.connect(data / "semv.db") as conn:
                    try:
                        done = conn.execute("SELECT COUNT(*) FROM nodes").fetchone()[0]
                    except sqlite3.OperationalError:
                        done = 0
                if done >= 2:
                    break
            time.sleep(0.02)
        if proc.poll() is not None:
            pytest.skip("the run finished before it could be killed")
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    [record] = Store(data).list_runs()
    return record.run_id


def _semv(*args: str) -> tuple[int, str, str]:
    done = runner.invoke(app, list(args))
    return done.exit_code, done.stdout, done.stderr


def test_a_resumed_run_leaves_the_interrupted_list(tmp_path: Path) -> None:
    data = tmp_path / "data"
    killed = _killed_run(data)
    code, out, _ = _semv("runs", "--interrupted", "--ids", "--data-dir", str(data))
    assert code == 0 and out.split() == [killed]
    code, out, err = _semv("verify", "--resume", killed, "--json", "--data-dir", str(data))
    assert code == 0, err
    resumed = json.loads(out)["run_id"]
    code, out, err = _semv("runs", "--interrupted", "--ids", "--data-dir", str(data))
    assert code == 0 and out.split() == [], out
    code, out, err = _semv("runs", "--json", "--data-dir", str(data))
    assert {r["run_id"]: r["status"] for r in json.loads(out)}[killed] == "interrupted"
    code, out, err = _semv("verify", "--resume", killed, "--data-dir", str(data))
    assert code == 2
    assert "already been resumed" in err and resumed in err


def test_of_two_concurrent_resumes_one_wins_and_the_other_exits_2(store_url: str) -> None:
    from sqlalchemy import update

    from semv.store import _schema as t

    first = Store(url=store_url)
    run_id = first.create_run(case_id="c", adapter="generic", settings_hash="s", agents="a")
    with first.engine.begin() as conn:
        conn.execute(
            update(t.run_owners).where(t.run_owners.c.run_id == run_id).values(pid=_dead_pid())
        )
    second = Store(url=store_url)
    judged = second.interrupted
    counts: list[int] = []

    def racing(records: object) -> set[str]:
        gone = judged(records)  # type: ignore[arg-type]
        assert gone == {run_id}  # the second process saw it gone too...
        first.mark_interrupted(run_id)  # ...and the first closes it at this very moment
        counts.append(len(first.trace(run_id)))
        return gone

    second.interrupted = racing  # type: ignore[method-assign]
    with pytest.raises(RunBusy) as lost:
        second.mark_interrupted(run_id)
    assert lost.value.exit_code == 2 and "another process" in str(lost.value)
    assert len(first.trace(run_id)) == counts[0]  # the loser wrote nothing
    assert [e.kind for e in first.trace(run_id)].count(TraceKind.RUN_INTERRUPTED) == 1
    assert first.get_run(run_id).status is RunStatus.INTERRUPTED
    assert first.verify_trace(run_id).ok
