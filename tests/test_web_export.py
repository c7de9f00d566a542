"""The web API's ClaimReview and PDF of a run, and the links to them on the case page."""

from __future__ import annotations

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
    r = client.get(f"/api/runs/{run_id}/pdf")
    assert r.status_code == 503
    assert "not found" in r.text
