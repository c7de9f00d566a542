"""Runs the hostile-input corpus (``tests/hostile_corpus.py``) through the ``semv`` command and
the web service: exit code (HTTP status), message and store state for every item, and never a
traceback."""

from __future__ import annotations

import json
import re
import shutil
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from semv.cli import app
from semv.memory import MemoryStore
from semv.store import Store
from semv.web import create_app
from tests.hostile_corpus import EXAMPLE, ITEMS, NO_RUN, Item
from tests.web_helpers import LOCAL

runner = CliRunner()
TOKEN = "alice:s3cret-token"


def _files(data: Path) -> set[str]:
    """Every file under a data directory (relative paths), the store's own files aside."""
    return {
        str(f.relative_to(data))
        for f in data.rglob("*")
        if f.is_file() and not f.name.startswith("semv.db")
    }


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A data directory with one committed (text-only) run of the example case."""
    data = tmp_path_factory.mktemp("hostile-base") / "data"
    result = runner.invoke(
        app, ["verify", str(EXAMPLE), "--text-only", "--json", "--data-dir", str(data)]
    )
    assert result.exit_code == 0, result.stderr
    return data, str(json.loads(result.stdout)["run_id"])


def _statuses(store: Store) -> dict[str, int]:
    counts: dict[str, int] = {}
    for record in store.list_runs(1000):
        counts[record.status.value] = counts.get(record.status.value, 0) + 1
    return counts


@pytest.mark.parametrize("item", ITEMS, ids=[i.name for i in ITEMS])
def test_hostile_cli_input(item: Item, base: tuple[Path, str], tmp_path: Path) -> None:
    if item.needs and shutil.which(item.needs) is None:
        pytest.skip(f"{item.needs} is not installed")
    base_data, run_id = base
    data = tmp_path / "data"
    shutil.copytree(base_data, data)
    argv = item.build(tmp_path, run_id)
    files_before = _files(data)
    result = runner.invoke(app, [*argv, "--data-dir", str(data)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        pytest.fail(
            "traceback: " + "".join(traceback.format_exception(result.exception)).splitlines()[-1]
        )
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    assert result.exit_code == item.code, output[-2000:]
    assert re.search(item.message, output, re.DOTALL), output[-2000:]
    if item.code == 2 and item.runs == NO_RUN:
        # refused before any run: nothing half-written (no report folder, no artifact, no upload)
        assert _files(data) - files_before <= {"semv.db-shm", "semv.db-wal"}, sorted(
            _files(data) - files_before
        )
    store = Store(data)
    try:
        if item.runs is not None:
            assert store.count_runs() == item.runs
        for status, n in item.statuses.items():
            assert _statuses(store).get(status, 0) == n
        if item.memory_records is not None:
            assert len(MemoryStore(store).records()) == item.memory_records
    finally:
        store.close()


# ---- the web service ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def web(base: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    data = tmp_path_factory.mktemp("hostile-web") / "data"
    shutil.copytree(base[0], data)
    with TestClient(create_app(data, tokens=[TOKEN]), base_url=LOCAL) as client:
        yield client


DEEP_BATCH = '{"actions": ' + "[" * 1000 + "]" * 1000 + "}"


def _runs(client: TestClient) -> int:
    return len(client.get("/api/runs").json())


def test_web_deep_body_without_credentials_is_401(web: TestClient, base: tuple[Path, str]) -> None:
    before = _runs(web)
    response = web.post(f"/api/runs/{base[1]}/contest", content=DEEP_BATCH)
    assert response.status_code == 401 and "reviewer token is required" in response.text
    assert _runs(web) == before


def test_web_deep_body_with_credentials_is_400(web: TestClient, base: tuple[Path, str]) -> None:
    before = _runs(web)
    response = web.post(
        f"/api/runs/{base[1]}/contest",
        content=DEEP_BATCH,
        headers={"Authorization": "Bearer s3cret-token"},
    )
    assert response.status_code == 400
    assert response.json()["detail"] == "review batch: nested more than 64 levels deep"
    assert _runs(web) == before


def test_web_404_names_no_server_path(web: TestClient, base: tuple[Path, str]) -> None:
    response = web.get("/api/runs/zz..")
    assert response.status_code == 404
    detail = response.json()["detail"]
    assert detail == "no run matches 'zz..'", detail
    assert str(base[0].parent.parent) not in response.text and "sqlite" not in response.text


def test_web_write_without_credentials_is_401_and_bad_csrf_is_403(web: TestClient) -> None:
    files = {"files": ("case.json", b'{"claim": "x"}', "application/json")}
    assert web.post("/api/cases", files=files).status_code == 401
    web.cookies.set("semv_csrf", "a" * 32)
    login = web.post(
        "/login", data={"token": "s3cret-token", "csrf_token": "a" * 32}, follow_redirects=False
    )
    assert login.status_code == 303, login.text
    try:
        response = web.post("/api/cases", files=files, headers={"X-CSRF-Token": "b" * 32})
        assert response.status_code == 403 and "CSRF" in response.text
    finally:
        web.cookies.clear()


def test_web_contest_of_a_run_from_another_backend_is_refused(
    web: TestClient, base: tuple[Path, str]
) -> None:
    import sqlite3

    data = Path(web.app.state.web.data_dir)  # type: ignore[attr-defined]
    with sqlite3.connect(data / "semv.db") as conn:
        conn.execute(f"UPDATE runs SET agents='llm/1/model:m-7b' WHERE run_id='{base[1]}'")
    before = _runs(web)
    batch = {"actions": [{"op": "reject", "target": "ev:sup:factcheck-lyon-2019", "reason": "r"}]}
    response = web.post(
        f"/api/runs/{base[1]}/contest",
        json=batch,
        headers={"Authorization": "Bearer s3cret-token"},
    )
    assert response.status_code == 409
    assert "was made with the llm (model m-7b) backend" in response.json()["detail"]
    assert _runs(web) == before
