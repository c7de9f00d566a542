"""Web jobs and sessions live in the store: a restarted server runs the jobs left queued, a
killed server's running job is queued again, two servers on one store never run a job twice,
and revisions run on more than one contest worker."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import text
from starlette.requests import Request

from semv._api import load_cases
from semv.config import Settings
from semv.contest import ReviewBatch
from semv.model import RunStatus
from semv.store import JobTable, SessionTable, Store
from semv.web._auth import Auth, parse_tokens
from semv.web._jobs import Workers
from tests.web_helpers import hostile_case


def _settings(workers: int = 1, contest_workers: int = 1) -> Settings:
    base = Settings()
    web = base.web.model_copy(update={"workers": workers, "contest_workers": contest_workers})
    return base.model_copy(update={"web": web})


def _cases(tmp_path: Path, n: int) -> list[Path]:
    folders = []
    for i in range(n):
        folder = hostile_case(tmp_path / f"case{i}")
        yaml = folder / "case.yaml"
        yaml.write_text(yaml.read_text().replace("id: hostile-markup", f"id: case-{i}"))
        folders.append(folder)
    return folders


def _submit(workers: Workers, folder: Path) -> str:
    contract, loaded = load_cases(folder, text_only=True)
    job = workers.submit(loaded, contract, "u-test", source=folder, text_only=True)[0]
    return job.job_id


def _wait(store: Store, job_ids: list[str], timeout: float = 300.0) -> dict[str, dict[str, object]]:
    table = JobTable(store)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = {j: table.get(j) for j in job_ids}
        if all(r is not None and r["status"] in ("committed", "failed") for r in rows.values()):
            return {j: r for j, r in rows.items() if r is not None}
        time.sleep(0.2)
    raise TimeoutError(f"jobs not finished in {timeout}s: {rows}")


def test_a_restarted_server_runs_the_jobs_left_queued(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    folders = _cases(tmp_path, 3)
    first = Workers(store, _settings())
    ids = [_submit(first, f) for f in folders]
    first.close()  # stops at once: the first job may finish, the others stay queued
    table = JobTable(store)
    left = [j for j in ids if table.get(j)["status"] == "queued"]  # type: ignore[index]
    assert len(left) >= 2
    second = Workers(Store(tmp_path / "store"), _settings())  # the restart: cases read again
    try:
        rows = _wait(store, ids)
    finally:
        second.close()
    assert all(r["status"] == "committed" for r in rows.values()), rows
    runs = [store.get_run(str(r["run_id"])) for r in rows.values()]
    assert sorted(r.case_id for r in runs) == ["case-0", "case-1", "case-2"]
    assert all(store.verify_trace(r.run_id).ok for r in runs)


def test_a_dead_servers_running_job_is_queued_again(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    table = JobTable(store)
    folder = _cases(tmp_path, 1)[0]
    row = {
        "job_id": "jdead",
        "case_id": "case-0",
        "upload_id": "u",
        "submitted_by": "r",
        "status": "running",  # claimed by a server process that no longer exists
        "total": 1,
        "done": 0,
        "reused": 0,
        "created_at": "2026-01-01T00:00:00+00:00",
        "owner": f"{socket.gethostname()}:999999999:abcd",
        "heartbeat_at": time.time(),
        "spec": {"path": str(folder), "adapter": None, "text_only": True, "contract": "cosmos"},
    }
    contract, _ = load_cases(folder, text_only=True)
    row["spec"]["contract"] = contract  # type: ignore[index]
    table.add(row)
    workers = Workers(store, _settings())
    try:
        rows = _wait(store, ["jdead"])
    finally:
        workers.close()
    assert rows["jdead"]["status"] == "committed"
    assert rows["jdead"]["owner"] is None


def test_two_servers_on_one_store_run_each_job_once(store_url: str, tmp_path: Path) -> None:
    folders = _cases(tmp_path, 6)
    data = tmp_path / "files"
    servers = [Workers(Store(data, url=store_url), _settings(workers=2)) for _ in range(2)]
    try:
        ids = [_submit(servers[i % 2], f) for i, f in enumerate(folders)]
        store = Store(data, url=store_url)
        rows = _wait(store, ids)
    finally:
        for server in servers:
            server.close()
    assert all(r["status"] == "committed" for r in rows.values()), rows
    runs = store.list_runs(100)
    assert Counter(r.case_id for r in runs) == {f"case-{i}": 1 for i in range(6)}  # never twice
    assert {str(r["run_id"]) for r in rows.values()} == {r.run_id for r in runs}


def test_two_contest_workers_revise_two_runs_at_once(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    workers = Workers(store, _settings(contest_workers=2))
    try:
        ids = [_submit(workers, f) for f in _cases(tmp_path, 2)]
        rows = _wait(store, ids)
        runs = [str(rows[j]["run_id"]) for j in ids]
        targets = []
        for run in runs:
            graph = store.get_run(run)
            assert graph.status is RunStatus.COMMITTED
            result = json.loads(graph.result_json or "{}")
            targets.append(result["evidence"][0]["id"])  # a reviewer rejects an evidence item
        batches = [
            ReviewBatch.model_validate(
                {
                    "actions": [
                        {
                            "op": "reject",
                            "target": t,
                            "reason": "wrong scene",
                            "meta": {"reviewer": "alice"},
                        }
                    ]
                }
            )
            for t in targets
        ]

        async def both() -> list[object]:
            return list(
                await asyncio.gather(
                    *(workers.contest(run, b, None) for run, b in zip(runs, batches, strict=True))
                )
            )

        revisions = asyncio.run(both())
    finally:
        workers.close()
    assert len(revisions) == 2
    children = [r for r in store.list_runs(100) if r.parent_run_id in runs]
    assert sorted(c.parent_run_id or "" for c in children) == sorted(runs)
    assert all(
        c.status is RunStatus.COMMITTED and store.verify_trace(c.run_id).ok for c in children
    )


def test_login_sessions_survive_a_restart(store_url: str) -> None:
    tokens = parse_tokens(["alice:s3cret"])
    session = Auth(tokens, sessions=SessionTable(Store(url=store_url))).login("s3cret")
    assert session is not None
    restarted = Auth(tokens, sessions=SessionTable(Store(url=store_url)))
    assert restarted.session_name(_request(session)) == (True, "alice")
    revoked = Auth(parse_tokens(["bob:other"]), sessions=SessionTable(Store(url=store_url)))
    assert revoked.session_name(_request(session)) == (False, None)  # alice's token is gone
    restarted.logout(session)
    assert restarted.session_name(_request(session)) == (False, None)
    with Store(url=store_url).engine.connect() as conn:  # neither cookie nor token is stored
        stored = " ".join(map(str, conn.execute(text("SELECT * FROM web_sessions")).all()))
    assert session not in stored and "s3cret" not in stored


def _request(cookie: str) -> Request:
    scope = {"type": "http", "headers": [(b"cookie", f"semv_session={cookie}".encode())]}
    return Request(scope)


@pytest.fixture(autouse=True)
def _quick_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    """Idle job threads look for queued jobs every 0.1 s here (1 s by default)."""
    original = Workers.__init__

    def init(self: Workers, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("poll_seconds", 0.1)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Workers, "__init__", init)
