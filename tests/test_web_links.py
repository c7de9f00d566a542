""" "verify a link" in the web UI: ``POST /api/cases/from-url`` builds the case as
``semv case from-url`` does and queues it; the server refuses its own network by default."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from semv.config import RetrievalConfig, Settings
from semv.web import create_app
from tests.recorded_server import RecordedServer, Reply, recorded_server
from tests.test_links import ARTICLE, HTML, JPEG
from tests.web_helpers import EXAMPLE, LOCAL, wait_job


def _csrf(client: TestClient) -> dict[str, str]:
    client.get("/")
    return {"X-CSRF-Token": client.cookies["semv_csrf"]}


@pytest.fixture()
def news() -> Iterator[RecordedServer]:
    with recorded_server() as server:
        server.route("/news/seine", Reply(200, ARTICLE, HTML))
        server.route("/img/lead.jpg", Reply(200, (EXAMPLE / "photo.jpg").read_bytes(), JPEG))
        yield server


def test_a_link_to_a_loopback_address_is_refused_by_default(
    tmp_path: Path, news: RecordedServer
) -> None:
    with TestClient(create_app(tmp_path / "store"), base_url=LOCAL) as client:
        r = client.post(
            "/api/cases/from-url", json={"url": news.url + "/news/seine"}, headers=_csrf(client)
        )
        uploads = tmp_path / "store" / "uploads"
        assert r.status_code == 400
        assert "non-public address 127.0.0.1" in r.json()["detail"]
        assert news.log == []
        assert not uploads.exists() or not any(uploads.iterdir())


def test_a_file_link_is_refused(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "store"), base_url=LOCAL) as client:
        page = tmp_path / "page.html"
        page.write_text(ARTICLE, encoding="utf-8")
        r = client.post("/api/cases/from-url", json={"url": page.as_uri()}, headers=_csrf(client))
        assert r.status_code == 400
        assert "reads no local files" in r.json()["detail"]


def test_a_link_is_verified_as_a_job(tmp_path: Path, news: RecordedServer) -> None:
    settings = Settings(retrieval=RetrievalConfig(allow_private=True, backoff_s=0.0))
    with TestClient(create_app(tmp_path / "store", settings=settings), base_url=LOCAL) as client:
        page = client.get("/")
        assert 'id="link-form"' in page.text
        assert client.get("/static/links.js").status_code == 200
        r = client.post(
            "/api/cases/from-url", json={"url": news.url + "/news/seine"}, headers=_csrf(client)
        )
        assert r.status_code == 202, r.text
        body = r.json()
        assert body["case"]["claim"].startswith("The quays near")
        assert body["case"]["media"] == ["image-1.jpg"]
        job = wait_job(client, body["jobs"][0]["job_id"])
        assert job["status"] == "committed", job
        result = client.get(f"/api/runs/{job['run_id']}").json()
    assert result["case_id"] == body["case"]["case_id"]
    folder = tmp_path / "store" / "uploads" / body["upload_id"] / "case"
    record = json.loads((folder / "provenance.json").read_text(encoding="utf-8"))
    assert record["page"]["sha256"] == body["case"]["page"]["sha256"]


def test_a_write_without_csrf_is_refused(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "store"), base_url=LOCAL) as client:
        client.get("/")
        r = client.post("/api/cases/from-url", json={"url": "https://news.example.org/a"})
        assert r.status_code == 403


CHROMIUM = Path("/usr/bin/chromium")


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed")
def test_the_link_field_queues_a_job_in_a_browser(tmp_path: Path, news: RecordedServer) -> None:
    from playwright.sync_api import sync_playwright

    from tests.web_helpers import serve

    config = tmp_path / "semv.toml"
    config.write_text("[retrieval]\nallow_private = true\nbackoff_s = 0.0\n", encoding="utf-8")
    with serve(tmp_path / "store", "--config", str(config)) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page()
            page.goto(base + "/")
            page.fill("#link-url", news.url + "/news/seine")
            page.click("#link-form button[type=submit]")
            page.locator("#link-status", has_text="queued").wait_for(timeout=60_000)
            status = page.inner_text("#link-status")
            page.wait_for_selector("table.jobs tr[data-job]", timeout=60_000)
        finally:
            browser.close()
    assert "claim: The quays near" in status
    assert news.hits("/news/seine") == 1 and news.hits("/img/lead.jpg") == 1
