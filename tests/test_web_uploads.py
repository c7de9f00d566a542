"""Case uploads are held to ``semv verify``'s case limits before the server answers 202, are
streamed to disk (an oversized case document is refused before the rest is read), refuse a
repeated file name or a file that is also a folder with a clear 400, and never show an
absolute server path in an error."""

from __future__ import annotations

import asyncio
import io
import zipfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from semv.config import LimitsConfig, Settings, WebConfig
from semv.store import JobTable
from semv.web import create_app
from tests.web_helpers import LOCAL, hostile_case

HEADERS = {"X-Reviewer": "tester"}


def _client(data: Path, **sections: object) -> TestClient:
    return TestClient(create_app(data, settings=Settings(**sections)), base_url=LOCAL)  # type: ignore[arg-type]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "store"


def _leftovers(data: Path) -> list[str]:
    uploads = data / "uploads"
    return sorted(p.name for p in uploads.iterdir()) if uploads.exists() else []


def _case_yaml(claim: str, evidence: int = 0) -> bytes:
    lines = [
        "id: limits-case",
        f'claim: "{claim}"',
        "context:",
        '  date: "2024-03-14"',
    ]
    if evidence:
        lines.append("evidence:")
        lines += [f'  - text: "Item {i} about the flood."' for i in range(evidence)]
    return ("\n".join(lines) + "\n").encode()


def test_a_claim_beyond_the_limit_is_refused_before_202(data: Path) -> None:
    limits = LimitsConfig(max_claim_chars=100)
    with _client(data, limits=limits) as client:
        r = client.post(
            "/api/cases",
            files={"files": ("case.yaml", _case_yaml("Flooding in Paris. " * 20))},
            data={"text_only": "true"},
            headers=HEADERS,
        )
        assert r.status_code == 400, r.text
        detail = r.json()["detail"]
        assert "limits.max_claim_chars" in detail
        assert str(data) not in detail and "/uploads/" not in detail
        assert client.get("/api/jobs").json() == []
    assert _leftovers(data) == []


def test_too_many_evidence_items_are_refused_before_202(data: Path) -> None:
    limits = LimitsConfig(max_evidence_items=5)
    case = _case_yaml("Flooding in Paris on 14 March 2024.", evidence=6)
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("case/case.yaml", case)
    with _client(data, limits=limits) as client:
        r = client.post(
            "/api/cases",
            files={"files": ("case.zip", archive.getvalue(), "application/zip")},
            data={"text_only": "true"},
            headers=HEADERS,
        )
        assert r.status_code == 400, r.text
        assert "limits.max_evidence_items" in r.json()["detail"]
        assert client.get("/api/jobs").json() == []
    assert _leftovers(data) == []


def _body(parts: list[tuple[str, bytes]], boundary: str = "semvboundary") -> bytes:
    out = b""
    for name, content in parts:
        out += (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
                f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
            ).encode()
            + content
            + b"\r\n"
        )
    return out + f"--{boundary}--\r\n".encode()


def test_an_oversized_case_document_is_refused_before_the_rest_is_read(data: Path) -> None:
    """Driven at the ASGI level, counting the body chunks the server pulls: it answers 413
    after about max_case_file_mb and never asks for the rest."""
    web = WebConfig(max_case_file_mb=1.0, max_upload_mb=50.0)
    big = b"id: big\nclaim: '" + b"word " * 1_200_000 + b"'\n"  # 6 MB
    payload = _body([("case.yaml", big)])
    chunks = [payload[i : i + 65536] for i in range(0, len(payload), 65536)]
    pulled = [0]
    sent: list[dict[str, object]] = []

    async def receive() -> dict[str, object]:
        if pulled[0] >= len(chunks):
            return {"type": "http.disconnect"}
        pulled[0] += 1
        more = pulled[0] < len(chunks)
        return {"type": "http.request", "body": chunks[pulled[0] - 1], "more_body": more}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/cases",
        "raw_path": b"/api/cases",
        "query_string": b"",
        "root_path": "",
        "scheme": "http",
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"x-reviewer", b"tester"),
            (b"content-type", b"multipart/form-data; boundary=semvboundary"),
        ],
    }
    app = create_app(data, settings=Settings(web=web))
    try:
        asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    finally:
        app.state.web.workers.close()
        app.state.web.store.close()
    start = next(m for m in sent if m["type"] == "http.response.start")
    assert start["status"] == 413
    body = b"".join(bytes(m.get("body", b"")) for m in sent if m["type"] == "http.response.body")  # type: ignore[arg-type]
    assert b"web.max_case_file_mb" in body
    assert pulled[0] * 65536 < 1.5 * 1024 * 1024 < len(payload) / 3  # stopped at the limit
    assert _leftovers(data) == []


def test_a_repeated_file_name_is_a_clear_400(data: Path) -> None:
    case = hostile_case(data.parent / "case") / "case.yaml"
    with _client(data) as client:
        files = [
            ("files", ("case.yaml", case.read_bytes())),
            ("files", ("case.yaml", case.read_bytes())),
        ]
        r = client.post("/api/cases", files=files, headers=HEADERS)
        assert r.status_code == 400, r.text
        assert "appears twice" in r.json()["detail"]
        files = [
            ("files", ("case.yaml", case.read_bytes())),
            ("files", ("a", b"x")),
            ("files", ("a/b", b"y")),
        ]
        r = client.post("/api/cases", files=files, headers=HEADERS)
        assert r.status_code == 400, r.text
        assert "both a file and the folder" in r.json()["detail"]
        files = [
            ("files", ("case.yaml", case.read_bytes())),
            ("files", ("a/b", b"y")),
            ("files", ("a", b"x")),
        ]
        r = client.post("/api/cases", files=files, headers=HEADERS)
        assert r.status_code == 400, r.text
        assert "both a file and the folder" in r.json()["detail"]
    assert _leftovers(data) == []


def test_a_zip_whose_member_is_a_file_and_a_folder_is_a_clear_400(data: Path) -> None:
    case = hostile_case(data.parent / "case") / "case.yaml"
    for names in (("a", "a/b"), ("a/b", "a")):
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w") as zf:
            zf.writestr("case.yaml", case.read_bytes())
            for name in names:
                zf.writestr(name, b"x")
        with _client(data) as client:
            r = client.post(
                "/api/cases",
                files={"files": ("case.zip", archive.getvalue(), "application/zip")},
                headers=HEADERS,
            )
            assert r.status_code == 400, (names, r.text)
            assert "both a file and a folder" in r.json()["detail"]
    assert _leftovers(data) == []


def test_a_failed_jobs_error_shows_no_server_path(data: Path) -> None:
    with _client(data) as client:
        table = JobTable(client.app.state.web.store)  # type: ignore[attr-defined]
        secret_path = f"{data}/uploads/u0123/case.yaml"
        table.add(
            {
                "job_id": "jlegacy",
                "case_id": "c",
                "upload_id": "u0123",
                "submitted_by": "tester",
                "status": "failed",
                "total": 1,
                "done": 0,
                "reused": 0,
                "run_id": None,
                "label": None,
                "confidence": None,
                "error": f"{secret_path}: claim has 10000000 characters",
                "created_at": "2026-01-01T00:00:00+00:00",
                "finished_at": "2026-01-01T00:00:01+00:00",
                "spec": {"path": None},
            }
        )
        listed = client.get("/api/jobs").text + client.get("/api/jobs/jlegacy").text
        page = client.get("/").text
        for text in (listed, page):
            assert str(data) not in text and "/uploads/" not in text
            assert "case.yaml: claim has 10000000 characters" in text
