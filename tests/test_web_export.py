"""The web API's ClaimReview and PDF of a run, and the links to them on the case page."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from semv.export import check_claim_review
from semv.web import create_app
from tests.test_export_pdf import needs_chromium
from tests.web_helpers import EXAMPLE, LOCAL, wait_job, zip_folder


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with TestClient(
        create_app(tmp_path_factory.mktemp("web-export") / "store"), base_url=LOCAL
    ) as c:
        yield c


@pytest.fixture(scope="module")
def run_id(client: TestClient) -> str:
    client.get("/")
    r = client.post(
        "/api/cases",
        files={"files": ("lyon.zip", zip_folder(EXAMPLE, prefix="lyon-flood/"), "application/zip")},
        headers={"X-CSRF-Token": client.cookies["semv_csrf"]},
    )
    assert r.status_code == 202, r.text
    job = wait_job(client, r.json()["jobs"][0]["job_id"])
    assert job["status"] == "committed", job
    rid: str = job["run_id"]
    return rid


def test_claimreview_endpoint_serves_a_valid_document(client: TestClient, run_id: str) -> None:
    r = client.get(f"/api/runs/{run_id}/claimreview")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/ld+json")
    doc = r.json()
    # no web.public_url and no export.report_base_url: no url rather than the client's Host
    assert check_claim_review(doc) == ["missing url"]
    state = client.app.state.web  # type: ignore[attr-defined]
    web = state.settings.web.model_copy(update={"public_url": "http://127.0.0.1:8000"})
    state.settings = state.settings.model_copy(update={"web": web})
    try:
        doc = client.get(f"/api/runs/{run_id}/claimreview").json()
    finally:
        state.settings = state.settings.model_copy(
            update={"web": web.model_copy(update={"public_url": None})}
        )
    assert check_claim_review(doc) == []
    assert doc["url"] == f"http://127.0.0.1:8000/api/runs/{run_id}/report"
    assert doc["reviewRating"]["alternateName"] == "Missing context"
    assert client.get("/api/runs/r-unknown/claimreview").status_code == 404


def test_the_case_page_links_the_pdf_and_the_claimreview(client: TestClient, run_id: str) -> None:
    page = client.get(f"/runs/{run_id}").text
    assert f'href="/api/runs/{run_id}/pdf"' in page
    assert f'href="/api/runs/{run_id}/claimreview"' in page
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/runs/{run}/pdf" in paths and "/api/runs/{run}/claimreview" in paths


@needs_chromium
def test_pdf_endpoint_prints_the_report(client: TestClient, run_id: str) -> None:
    r = client.get(f"/api/runs/{run_id}/pdf")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/pdf"
    assert r.content.startswith(b"%PDF-")
    assert f'filename="{run_id}.pdf"' in r.headers["content-disposition"]


def test_pdf_without_an_engine_is_503(
    client: TestClient, run_id: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    state = client.app.state.web  # type: ignore[attr-defined]
    cfg = state.settings.export.model_copy(update={"chromium": str(tmp_path / "none")})
    monkeypatch.setattr(state, "settings", state.settings.model_copy(update={"export": cfg}))
    monkeypatch.setattr(state.printer, "cache_dir", tmp_path / "empty-cache")
    r = client.get(f"/api/runs/{run_id}/pdf")
    assert r.status_code == 503
    assert "not found" in r.text


def test_pdf_renders_are_bounded_and_cached(
    client: TestClient, run_id: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Eight requests at once on a cold cache: at most web.pdf_concurrency (2) engines run,
    the others are told to come back (503, Retry-After); then the PDF comes from the cache."""
    import semv.export

    state = client.app.state.web  # type: ignore[attr-defined]
    monkeypatch.setattr(state.printer, "cache_dir", tmp_path / "cache")
    running, peak, calls = [0], [0], [0]
    lock = threading.Lock()

    def slow_engine(html: str, out: Path, cfg: object) -> Path:
        with lock:
            running[0] += 1
            calls[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(1.0)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(b"%PDF-1.7 fake")
        with lock:
            running[0] -= 1
        return out

    monkeypatch.setattr(semv.export, "render_pdf", slow_engine)
    barrier = threading.Barrier(8)
    answers: list[tuple[int, str | None]] = []

    def ask() -> None:
        barrier.wait()
        r = client.get(f"/api/runs/{run_id}/pdf")
        with lock:
            answers.append((r.status_code, r.headers.get("retry-after")))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert state.settings.web.pdf_concurrency == 2
    assert peak[0] <= 2
    assert {code for code, _ in answers} <= {200, 503}
    assert any(code == 200 for code, _ in answers)
    busy = [after for code, after in answers if code == 503]
    assert busy and all(after for after in busy)
    before = calls[0]
    r = client.get(f"/api/runs/{run_id}/pdf")
    assert r.status_code == 200 and r.content == b"%PDF-1.7 fake"
    assert calls[0] == before  # served from the cache, no engine started


def test_the_printed_page_may_load_nothing_and_chromium_resolves_no_name(
    client: TestClient, run_id: str
) -> None:
    from semv.export import chromium_args
    from semv.web import print_html

    state = client.app.state.web  # type: ignore[attr-defined]
    page = print_html(state.store, run_id)
    head = page[: page.index("</head>")]
    assert '<meta http-equiv="Content-Security-Policy"' in head
    assert "default-src 'none'" in head and "img-src data:" in head
    args = chromium_args("chromium", Path("/tmp/r.html"), Path("/tmp/r.pdf"), Path("/tmp/p"))
    assert "--host-resolver-rules=MAP * ~NOTFOUND" in args
