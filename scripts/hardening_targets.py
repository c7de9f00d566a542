"""The hardening targets, measured on whatever ``semv`` is first on ``sys.path``.

    PYTHONPATH=src python scripts/hardening_targets.py            # this checkout
    PYTHONPATH=/path/to/old/src python scripts/hardening_targets.py   # an older one: "before"

Prints one row per figure: tracebacks on the hostile corpus (CLI and web), tampering kinds
that pass ``--verify-trace``, the status of a run killed with SIGKILL, poisoned records a
``memory import`` activates, and whether ``semv contest`` silently changes an LLM run's
backend. Everything runs on 127.0.0.1 in temporary folders.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.hostile_corpus import EXAMPLE, ITEMS  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from semv.cli import app  # noqa: E402

runner = CliRunner()
TAMPERING = (
    "trace-payload-not-json",
    "trace-unknown-kind",
    "trace-event-rewritten",
    "trace-event-deleted",
    "trace-tail-truncated",
    "trace-tail-deleted-head-null",
    "forged-label-and-result",
    "forged-result-only",
)
POISONED = ("memory-injected-instruction", "memory-threshold-raised")


def _base(tmp: Path) -> tuple[Path, str]:
    data = tmp / "base"
    result = runner.invoke(
        app, ["verify", str(EXAMPLE), "--text-only", "--json", "--data-dir", str(data)]
    )
    return data, str(json.loads(result.stdout)["run_id"])


def corpus(tmp: Path) -> tuple[set[str], list[str], int]:
    """(traceback kinds, tampering kinds that verified, poisoned records made active)."""
    base, run_id = _base(tmp)
    kinds: set[str] = set()
    passed: list[str] = []
    active = 0
    for n, item in enumerate(ITEMS):
        if item.needs and shutil.which(item.needs) is None:
            continue
        work = tmp / f"i{n}"
        shutil.copytree(base, work / "data")
        try:
            argv = item.build(work, run_id)
        except Exception:  # the item needs a table this version lacks
            continue
        result = runner.invoke(app, [*argv, "--data-dir", str(work / "data")])
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            kinds.add(f"CLI {type(result.exception).__name__}")
        if item.name in TAMPERING and result.exit_code == 0:
            passed.append(item.name)
        if item.name in POISONED:
            with (
                sqlite3.connect(work / "data" / "semv.db") as conn,
                contextlib.suppress(sqlite3.OperationalError),
            ):
                active += conn.execute(
                    "SELECT COUNT(*) FROM memory_records WHERE status='active'"
                ).fetchone()[0]
    kinds |= web_tracebacks(base)
    return kinds, passed, active


def web_tracebacks(base: Path) -> set[str]:
    from fastapi.testclient import TestClient

    from semv.web import create_app

    deep = '{"actions": ' + "[" * 1000 + "]" * 1000 + "}"
    kinds: set[str] = set()
    with TestClient(
        create_app(base, tokens=["t0ken"]),
        raise_server_exceptions=False,
        base_url="http://127.0.0.1",
    ) as client:
        run_id = client.get("/api/runs").json()[0]["run_id"]
        for headers in ({}, {"Authorization": "Bearer t0ken"}):
            response = client.post(f"/api/runs/{run_id}/contest", content=deep, headers=headers)
            if response.status_code >= 500:
                kinds.add(f"web {response.status_code} on a deep review batch")
    return kinds


def killed_run(tmp: Path) -> str:
    """The status ``semv runs`` shows for a run whose process got SIGKILL mid-way."""
    data = tmp / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "semv", "verify", str(EXAMPLE), "--data-dir", str(data)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ.copy(),
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if (data / "semv.db").exists():
            with sqlite3.connect(data / "semv.db") as conn:
                try:
                    if conn.execute("SELECT COUNT(*) FROM nodes").fetchone()[0] >= 2:
                        break
                except sqlite3.OperationalError:
                    pass
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    listed = runner.invoke(app, ["runs", "--data-dir", str(data)]).stdout
    return listed.split("\t")[2] if listed.count("\t") >= 2 else listed.strip()


def backend_change(tmp: Path) -> str:
    """What ``semv contest`` (no backend flags) does to a run made with the LLM backend."""
    from tests.llm_server import ScriptedServer

    data = str(tmp / "llm")
    with ScriptedServer() as server:
        llm = ["--backend", "llm", "--llm-url", server.url, "--llm-model", "scripted"]
        first = runner.invoke(
            app, ["verify", str(EXAMPLE), "--text-only", "--json", "--data-dir", data, *llm]
        )
        parent = json.loads(first.stdout)
        target = next(a["id"] for s in parent["subclaims"] for a in s["arguments"])
        edit = ["--edit", target, "--text", "Only partly backed.", "--reason", "r", "--json"]
        before = len(server.requests)
        revised = runner.invoke(app, ["contest", parent["run_id"], *edit, "--data-dir", data])
        calls = len(server.requests) - before
    if revised.exit_code != 0:
        return f"refused (exit {revised.exit_code})"
    run_id = json.loads(revised.stdout)["run_id"]
    with sqlite3.connect(Path(data) / "semv.db") as conn:
        agents = conn.execute("SELECT agents FROM runs WHERE run_id=?", (run_id,)).fetchone()[0]
    kind = agents.split("/")[0]
    silent = "silently changed to " + kind if kind != "llm" else "kept llm"
    return f"{silent}, {calls} model calls"


def main() -> None:
    width = 48
    print(f"{'figure':<{width}}  value", flush=True)

    def row(figure: str, value: str) -> None:
        print(f"{figure:<{width}}  {value}", flush=True)

    with tempfile.TemporaryDirectory(prefix="semv-targets-") as name:
        tmp = Path(name)
        row("semv contest on an LLM run (no flags)", backend_change(tmp))
        row("status of a run after kill -9", killed_run(tmp))
        kinds, passed, active = corpus(tmp)
        row("tracebacks on the hostile corpus (CLI and web)", f"{len(kinds)} kinds {sorted(kinds)}")
        row(
            "tampering kinds that pass --verify-trace",
            f"{len(passed)} of {len(TAMPERING)} {passed}",
        )
        row("poisoned records activated by memory import", f"{active} of {len(POISONED)}")


if __name__ == "__main__":
    main()
