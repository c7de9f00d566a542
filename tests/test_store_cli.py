"""Commands on a shared store: ``--store URL`` / ``SEMV_STORE_URL``, two ``semv verify``
processes and one ``semv serve`` on one PostgreSQL store, ``semv verify-batch``, and a
restarted ``semv serve`` finishing the job it had queued."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from semv.model import RunStatus
from semv.store import JobTable, Store
from tests.web_helpers import ROOT, hostile_case, serve, wait_job, zip_folder

_TOKEN = "t0ken-for-tests"
_AUTH = {"Authorization": f"Bearer {_TOKEN}"}


def _semv(*args: str) -> list[str]:
    return [sys.executable, "-m", "semv", *args]


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), **extra}


def _case(tmp_path: Path, name: str) -> Path:
    folder = hostile_case(tmp_path / name)
    yaml = folder / "case.yaml"
    yaml.write_text(yaml.read_text().replace("id: hostile-markup", f"id: {name}"))
    return folder


@pytest.mark.postgres
def test_two_verify_processes_and_a_server_share_one_postgres_store(
    pg_url: str, tmp_path: Path
) -> None:
    files = tmp_path / "files"
    with serve(files, "--store", pg_url, "--auth-token", f"alice:{_TOKEN}") as base:
        verifies = [
            subprocess.Popen(
                _semv(
                    "verify",
                    str(_case(tmp_path, f"cli-{i}")),
                    "--text-only",
                    "--json",
                    "--data-dir",
                    str(files),
                ),
                env=_env(SEMV_STORE_URL=pg_url),  # the environment variable, not --store
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i in range(2)
        ]
        web_case = _case(tmp_path, "web-0")
        r = httpx.post(
            base + "/api/cases",
            files={"files": ("case.zip", zip_folder(web_case), "application/zip")},
            data={"text_only": "true"},
            headers=_AUTH,
            timeout=60,
        )
        assert r.status_code in (200, 201, 202), r.text
        job = wait_job(httpx.Client(base_url=base, timeout=30), r.json()["jobs"][0]["job_id"])
        outputs = [p.communicate(timeout=600) for p in verifies]
    assert [p.returncode for p in verifies] == [0, 0], [o[1][-2000:] for o in outputs]
    assert job["status"] == "committed", job
    store = Store(files, url=pg_url)
    runs = store.list_runs(20)
    assert sorted(r.case_id for r in runs) == ["cli-0", "cli-1", "web-0"]
    assert all(r.status is RunStatus.COMMITTED for r in runs)
    assert all(store.verify_trace(r.run_id).ok for r in runs)
    assert not (files / "semv.db").exists()  # nothing went to a SQLite file


def test_verify_batch_runs_every_folder_once_in_two_processes(tmp_path: Path) -> None:
    batch = tmp_path / "batch"
    for i in range(3):
        _case(batch, f"b-{i}")
    done = subprocess.run(
        _semv(
            "verify-batch",
            str(batch),
            "--text-only",
            "--workers",
            "2",
            "--json",
            "--data-dir",
            str(tmp_path / "s"),
        ),
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout)
    assert [r["case_id"] for r in rows] == ["b-0", "b-1", "b-2"]
    store = Store(tmp_path / "s")
    assert {r["run_id"] for r in rows} == {r.run_id for r in store.list_runs(10)}
    assert all(store.verify_trace(r["run_id"]).ok for r in rows)


def test_verify_batch_reports_a_malformed_folder_and_runs_the_others(tmp_path: Path) -> None:
    batch = tmp_path / "batch"
    _case(batch, "good")
    (batch / "broken").mkdir()
    (batch / "broken" / "case.yaml").write_text("id: [unclosed\n")
    done = subprocess.run(
        _semv("verify-batch", str(batch), "--data-dir", str(tmp_path / "s")),
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2
    assert "broken" in done.stderr
    assert [r.case_id for r in Store(tmp_path / "s").list_runs()] == ["good"]


def test_a_killed_server_restarted_finishes_its_queued_job(tmp_path: Path) -> None:
    """SIGKILL ``semv serve`` right after it accepted two jobs; a new ``semv serve`` on the
    same data directory runs whatever was left (queued, or running when it died)."""
    data = tmp_path / "store"
    with serve(data, "--auth-token", f"alice:{_TOKEN}") as base:
        ids = []
        for name in ("restart-0", "restart-1"):
            r = httpx.post(
                base + "/api/cases",
                files={"files": ("c.zip", zip_folder(_case(tmp_path, name)), "application/zip")},
                data={"text_only": "true"},
                headers=_AUTH,
                timeout=60,
            )
            assert r.status_code in (200, 201, 202), r.text
            ids.append(r.json()["jobs"][0]["job_id"])
        _kill_server_on(base)
    table = JobTable(Store(data))
    assert any(table.get(j)["status"] != "committed" for j in ids)  # type: ignore[index]
    with serve(data) as base:
        client = httpx.Client(base_url=base, timeout=30)
        jobs = [wait_job(client, j) for j in ids]
    assert [j["status"] for j in jobs] == ["committed", "committed"], jobs
    store = Store(data)
    assert all(store.verify_trace(j["run_id"]).ok for j in jobs)


def _kill_server_on(base: str) -> None:
    port = base.rsplit(":", 1)[1]
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in cmd and port.encode() in cmd:
            os.kill(int(pid), 9)
            time.sleep(0.5)
            return
    raise AssertionError(f"no semv serve process on port {port}")
