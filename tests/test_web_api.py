"""The REST API of ``semv.web`` through FastAPI's test client: uploads (and bad uploads),
background jobs with SSE progress, every read endpoint, contestation (equal to the Python
API's revision for the same batch; concurrent revisions both kept, stale base reported),
auth and CSRF, memory views."""

from __future__ import annotations

import hashlib
import io
import json
import stat
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from semv.config import Settings, WebConfig
from semv.contest import ReviewBatch, batch_schema, contest
from semv.model import TraceKind
from semv.store import Store
from semv.web import create_app
from tests.web_helpers import (
    EXAMPLE,
    HOSTILE_TITLE,
    LOCAL,
    SCRIPT,
    copy_example,
    hostile_case,
    wait_job,
    zip_folder,
)

CONTEXT_ATTACKS = (
    "arg:when:att:1",
    "arg:when:att:2",
    "arg:where:att:1",
    "arg:where:att:2",
    "arg:why:att:1",
)
"""Every attack on the example's context: with all of them rejected, rule 2 no longer fires."""


def _csrf(client: TestClient) -> dict[str, str]:
    client.get("/")
    return {"X-CSRF-Token": client.cookies["semv_csrf"]}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("web") / "store"


@pytest.fixture(scope="module")
def client(data_dir: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir), base_url=LOCAL) as c:
        yield c


@pytest.fixture(scope="module")
def submitted(client: TestClient) -> dict[str, Any]:
    """The example case uploaded as a zip (wrapped in a folder, as `zip -r` makes it)."""
    archive = zip_folder(EXAMPLE, prefix="lyon-flood/")
    r = client.post(
        "/api/cases",
        files={"files": ("lyon-flood.zip", archive, "application/zip")},
        headers=_csrf(client),
    )
    assert r.status_code == 202, r.text
    body: dict[str, Any] = r.json()
    assert [j["case_id"] for j in body["jobs"]] == ["lyon-flood"]
    job = wait_job(client, body["jobs"][0]["job_id"])
    assert job["status"] == "committed", job
    body["job"] = job
    return body


@pytest.fixture(scope="module")
def run_id(submitted: dict[str, Any]) -> str:
    rid: str = submitted["job"]["run_id"]
    return rid


def test_openapi_lists_every_endpoint(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/api/cases",
        "/api/jobs/{job_id}",
        "/api/jobs/{job_id}/events",
        "/api/runs",
        "/api/runs/{run}",
        "/api/runs/{run}/report",
        "/api/runs/{run}/trace",
        "/api/runs/{run}/nodes",
        "/api/runs/{run}/graph",
        "/api/runs/{run}/history",
        "/api/runs/{run}/contest",
        "/api/schema/review-batch",
        "/api/memory",
        "/api/memory/{bank}",
    ):
        assert path in paths, path


def test_job_progress_by_polling_and_sse(client: TestClient, submitted: dict[str, Any]) -> None:
    job = submitted["job"]
    assert job["done"] == job["total"] > 40  # every stage node reported progress
    assert job["label"] and job["links"]["page"] == f"/runs/{job['run_id']}"
    listed = client.get("/api/jobs").json()
    assert job["job_id"] in [j["job_id"] for j in listed]
    events = client.get(f"/api/jobs/{job['job_id']}/events").text
    assert "event: done" in events
    done = json.loads(events.split("event: done", 1)[1].split("data: ", 1)[1].splitlines()[0])
    assert done["run_id"] == job["run_id"]
    assert client.get("/api/jobs/jnope").status_code == 404


def test_result_report_trace_nodes_graph(client: TestClient, run_id: str) -> None:
    result = client.get(f"/api/runs/{run_id}").json()
    assert result["run_id"] == run_id and result["case_id"] == "lyon-flood"
    runs = client.get("/api/runs").json()
    assert {"run_id": run_id, "label": result["label"]}.items() <= runs[0].items()
    html = client.get(f"/api/runs/{run_id}/report?format=html")
    assert html.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in html.headers["content-security-policy"]
    markdown = client.get(f"/api/runs/{run_id}/report?format=markdown").text
    assert result["label"] in markdown
    report = client.get(f"/api/runs/{run_id}/report?format=json").json()
    assert report["final_status"]["label"] == result["label"]
    assert client.get(f"/api/runs/{run_id}/report?format=pdf").status_code == 422
    trace = client.get(f"/api/runs/{run_id}/trace").json()
    assert trace["verified"] and trace["head"] == result["trace_head"]
    nodes = client.get(f"/api/runs/{run_id}/nodes").json()["nodes"]
    assert {"bundle", "claims", "aggregate", "render"} <= {n["key"] for n in nodes}
    graph = client.get(f"/api/runs/{run_id}/graph").json()["subclaims"]
    scores = {s["dimension"]: s["score"] for s in result["subclaims"]}
    assert {g["dimension"]: g["score"] for g in graph} == scores
    for g in graph:
        for a in g["arguments"]:
            assert a["weight"] is None or a["weight"] <= a["strength"] + 1e-12
    assert client.get("/api/runs/rnope").status_code == 404


def test_media_and_files(client: TestClient, run_id: str) -> None:
    photo = client.get(f"/api/runs/{run_id}/media/asset:1")
    assert photo.status_code == 200 and photo.headers["content-type"] == "image/jpeg"
    original = (EXAMPLE / "photo.jpg").read_bytes()
    assert hashlib.sha256(photo.content).digest() == hashlib.sha256(original).digest()
    report = client.get(f"/api/runs/{run_id}/report?format=json").json()
    maps = [e["image"] for e in report["case_summary"]["media"][0]["evidence"] if e["image"]]
    assert maps, "the example's forensic maps are listed"
    png = client.get(f"/api/runs/{run_id}/files/{maps[0]}")
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    # the HTML report's own relative links (maps/<sha>.png) resolve under /api/runs/<run>/
    assert client.get(f"/api/runs/{run_id}/{maps[0]}").content == png.content
    for bad in ("../../semv.db", "maps/../../../semv.db", "%2e%2e/semv.db"):
        assert client.get(f"/api/runs/{run_id}/files/{bad}").status_code in (400, 404)
    assert client.get(f"/api/runs/{run_id}/media/asset:9").status_code == 404


# ---- bad uploads: 4xx with a clear message, nothing stored -----------------------------------


def _zip(members: dict[str, bytes], *, links: tuple[str, ...] = ()) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members.items():
            zf.writestr(name, content)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return buf.getvalue()


_CASE = (EXAMPLE / "case.yaml").read_bytes()
_PHOTO = (EXAMPLE / "photo.jpg").read_bytes()


@pytest.mark.parametrize(
    ("name", "payload", "status", "message"),
    [
        ("zip slip", _zip({"case.yaml": _CASE, "../evil.txt": b"x"}), 400, "unsafe path"),
        ("absolute", _zip({"case.yaml": _CASE, "/tmp/evil.txt": b"x"}), 400, "unsafe path"),
        ("symlink", _zip({"case.yaml": _CASE}, links=("photo.jpg",)), 400, "link"),
        ("malformed", _zip({"case.json": b'{"id": "x", "claim": '}), 400, "case.json"),
        ("not a zip", b"PK\x03\x04 definitely not a zip", 400, "not a readable zip"),
        (
            "media outside",
            _zip({"case.yaml": b"id: out\nclaim: c\nmedia:\n  - path: /etc/hostname\n"}),
            400,
            "",
        ),
    ],
)
def test_bad_zip_upload_is_refused_and_nothing_stored(
    client: TestClient, data_dir: Path, name: str, payload: bytes, status: int, message: str
) -> None:
    before_runs = len(client.get("/api/runs?limit=1000").json())
    before_jobs = len(client.get("/api/jobs").json())
    r = client.post(
        "/api/cases",
        files={"files": ("case.zip", payload, "application/zip")},
        headers=_csrf(client),
    )
    assert r.status_code == status, (name, r.text)
    assert message in r.json()["detail"], (name, r.json())
    assert len(client.get("/api/runs?limit=1000").json()) == before_runs
    assert len(client.get("/api/jobs").json()) == before_jobs
    leftovers = [p.name for p in (data_dir / "uploads").iterdir() if p.name.startswith(".")]
    assert leftovers == [], name
    assert not (data_dir / "evil.txt").exists() and not (data_dir.parent / "evil.txt").exists()


def test_bad_file_names_and_empty_uploads(client: TestClient) -> None:
    headers = _csrf(client)
    r = client.post("/api/cases", files={"files": ("../case.yaml", _CASE)}, headers=headers)
    assert r.status_code == 400 and "unsafe path" in r.json()["detail"]
    r = client.post("/api/cases", data={"adapter": "generic"}, headers=headers)
    assert r.status_code == 400 and "no files uploaded" in r.json()["detail"]
    r = client.post(
        "/api/cases",
        files={"files": ("case.yaml", _CASE)},
        data={"adapter": "nope"},
        headers=headers,
    )
    assert r.status_code == 400 and "nope" in r.json()["detail"]


def test_oversized_uploads_are_refused(tmp_path: Path) -> None:
    small = Settings(web=WebConfig(max_upload_mb=0.02, max_unpacked_mb=0.05))
    with TestClient(create_app(tmp_path / "store", settings=small), base_url=LOCAL) as c:
        headers = _csrf(c)
        big = c.post(
            "/api/cases",
            files={"files": ("lyon.zip", zip_folder(EXAMPLE), "application/zip")},
            headers=headers,
        )
        assert big.status_code == 413 and "max_upload_mb" in big.json()["detail"]
        bomb = _zip({"case.yaml": _CASE, "zeros.bin": b"\0" * 200_000})
        assert len(bomb) < 20_000
        r = c.post(
            "/api/cases", files={"files": ("b.zip", bomb, "application/zip")}, headers=headers
        )
        assert r.status_code == 413 and "max_unpacked_mb" in r.json()["detail"]
        # refused by its declared length before anything is read, and while it streams
        declared = c.post(
            "/api/cases",
            files={"files": ("big.bin", b"\0" * 200_000)},
            headers=headers,
        )
        assert declared.status_code == 413 and "max_upload_mb" in declared.json()["detail"]

        def chunks() -> Iterator[bytes]:
            yield b"--xx\r\nContent-Disposition: form-data; name=files; filename=a.zip\r\n\r\n"
            for _ in range(20):
                yield b"\0" * 10_000

        streamed = c.post(
            "/api/cases",
            content=chunks(),
            headers=headers | {"content-type": "multipart/form-data; boundary=xx"},
        )
        assert streamed.status_code == 413 and "max_upload_mb" in streamed.json()["detail"]
        assert c.get("/api/runs").json() == []
        assert [p for p in (tmp_path / "store" / "uploads").iterdir()] == []


# ---- pages escape content --------------------------------------------------------------------


def test_multipart_files_and_escaped_content(client: TestClient, tmp_path: Path) -> None:
    folder = hostile_case(tmp_path / "hostile")
    r = client.post(
        "/api/cases",
        files=[("files", ("case.yaml", (folder / "case.yaml").read_bytes()))],
        data={"text_only": "true"},
        headers=_csrf(client),
    )
    assert r.status_code == 202, r.text
    job = wait_job(client, r.json()["jobs"][0]["job_id"])
    assert job["status"] == "committed", job
    page = client.get(f"/runs/{job['run_id']}").text
    assert SCRIPT not in page and HOSTILE_TITLE not in page
    assert "&lt;script&gt;document.body.dataset.pwned=1&lt;/script&gt;" in page
    assert (
        "script-src 'self'"
        in client.get(f"/runs/{job['run_id']}").headers["content-security-policy"]
    )


def test_case_page_shows_graphs_evidence_and_review_codes(client: TestClient, run_id: str) -> None:
    page = client.get(f"/runs/{run_id}").text
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="qbaf"') == 6
    assert "needs review" in page and 'data-op="reject"' in page
    assert 'id="review-panel"' in page and "first pass" in page
    index = client.get("/").text
    assert run_id in index and "lyon-flood" in index


# ---- contestation ----------------------------------------------------------------------------


def _batch(*targets: str, reviewer: str = "alice") -> dict[str, Any]:
    return {
        "actions": [
            {"op": "reject", "target": t, "reason": "wrong scene", "meta": {"reviewer": reviewer}}
            for t in targets
        ]
    }


def test_contest_matches_the_python_api(client: TestClient, run_id: str, data_dir: Path) -> None:
    r = client.post(
        f"/api/runs/{run_id}/contest", json=_batch(*CONTEXT_ATTACKS), headers=_csrf(client)
    )
    assert r.status_code == 201, r.text
    web = r.json()
    assert web["parent_run_id"] == run_id
    assert web["plan"]["restart"] == "A" and set(web["plan"]["subclaims"]) == {
        "when",
        "where",
        "why",
    }
    expected = contest(
        run_id, ReviewBatch.model_validate(_batch(*CONTEXT_ATTACKS)), data_dir=data_dir
    )
    assert web["delta"] == expected.delta.model_dump(mode="json")
    assert web["delta"]["label_before"] != web["delta"]["label_after"]
    assert expected.stale_base  # the web revision came first: the later one is told
    page = client.get(f"/runs/{web['run_id']}").text
    assert 'id="diff"' in page and f'href="/runs/{run_id}"' in page
    assert client.get(f"/runs/{run_id}").status_code == 200
    history = client.get(f"/api/runs/{run_id}/history").json()
    assert {web["run_id"], expected.run_id} <= {r["run_id"] for r in history["revisions"]}
    events = client.get(f"/api/runs/{web['run_id']}/trace").json()["events"]
    applied = next(e for e in events if e["kind"] == TraceKind.CONTEST_APPLIED.value)
    assert {a["meta"]["reviewer"] for a in applied["payload"]["batch"]} == {"alice"}


def test_the_case_page_is_verdict_first(client: TestClient, run_id: str) -> None:
    """The case page has the report's order: verdict, reason, strongest arguments
    and review items, then the decisions, the subclaims, and the case's media, sources and
    glossary last."""
    page = client.get(f"/runs/{run_id}").text
    anchors = (
        'id="verdict-label"',
        'id="verdict-reason"',
        'id="strongest-for"',
        'id="strongest-against"',
        'id="needs-review"',
        'id="final-status"',
        'id="sec-where"',
        'id="case-summary"',
        'id="source"',
        'id="glossary"',
    )
    positions = [page.index(anchor) for anchor in anchors]
    assert positions == sorted(positions)
    assert page.count('id="verdict-label"') == 1
    assert "where, when and why are refuted" in page.lower()


def test_api_responses_name_no_machine_path(
    client: TestClient, run_id: str, data_dir: Path
) -> None:
    """Report paths relative to the data directory; no absolute server path in the
    result or the JSON report."""
    response = client.get(f"/api/runs/{run_id}")
    paths = response.json()["report_paths"]
    assert paths["markdown"] == f"reports/{run_id}/report.md"
    assert paths["html"] == f"reports/{run_id}/report.html"
    report = client.get(f"/api/runs/{run_id}/report?format=json").text
    for text in (response.text, report):
        assert str(data_dir.resolve()) not in text and str(data_dir) not in text


def test_concurrent_revisions_are_both_kept(client: TestClient, run_id: str) -> None:
    headers = _csrf(client)
    out: list[dict[str, Any]] = []

    def post(target: str) -> None:
        r = client.post(f"/api/runs/{run_id}/contest", json=_batch(target), headers=headers)
        out.append(r.json() | {"status": r.status_code})

    threads = [
        threading.Thread(target=post, args=(t,)) for t in ("arg:when:att:1", "arg:where:sup:1")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [o["status"] for o in out] == [201, 201]
    assert out[0]["run_id"] != out[1]["run_id"]
    assert all(o["stale_base"] for o in out)  # the parent had other revisions already
    later = max(out, key=lambda o: o["run_id"])
    earlier = min(out, key=lambda o: o["run_id"])
    assert earlier["run_id"] in {s["run_id"] for s in later["siblings"]}
    page = client.get(f"/runs/{later['run_id']}").text
    assert 'id="stale-base"' in page and earlier["run_id"] in page


def test_contest_errors(client: TestClient, run_id: str) -> None:
    headers = _csrf(client)
    no_reason = {"actions": [{"op": "reject", "target": "arg:when:att:1", "reason": ""}]}
    r = client.post(f"/api/runs/{run_id}/contest", json=no_reason, headers=headers)
    assert r.status_code == 422 and "reason" in r.json()["detail"]
    r = client.post(f"/api/runs/{run_id}/contest", json={"actions": []}, headers=headers)
    assert r.status_code == 422
    r = client.post("/api/runs/rnope/contest", json=_batch("arg:when:att:1"), headers=headers)
    assert r.status_code == 404
    r = client.post(
        f"/api/runs/{run_id}/contest",
        content=b"{not json",
        headers=headers | {"content-type": "application/json"},
    )
    assert r.status_code == 400 and "not valid JSON" in r.json()["detail"]
    r = client.post(
        f"/api/runs/{run_id}/contest?policy=bogus", json=_batch("arg:when:att:1"), headers=headers
    )
    assert r.status_code == 422 and "policy" in r.json()["detail"]
    wrong_base = _batch("arg:when:att:1") | {"base_run": "r0000"}
    r = client.post(f"/api/runs/{run_id}/contest", json=wrong_base, headers=headers)
    assert r.status_code == 409 and "r0000" in r.json()["detail"]
    assert client.get("/api/schema/review-batch").json() == batch_schema()


def test_add_with_minimal_reviewer_evidence(client: TestClient, run_id: str) -> None:
    batch = {
        "actions": [
            {
                "op": "add",
                "target": "claim:when",
                "stance": "att",
                "text": "The photo was published on a Lyon blog on 2 June 2019.",
                "reason": "found the original post",
                "evidence_added": [{"content": "Photo posted 2 June 2019, Lyon.", "url": None}],
            }
        ]
    }
    r = client.post(f"/api/runs/{run_id}/contest", json=batch, headers=_csrf(client))
    assert r.status_code == 201, r.text
    evidence = {e["id"]: e for e in r.json()["result"]["evidence"]}
    human = [e for e in evidence.values() if e["id"].startswith("ev:human:")]
    assert human and human[0]["source_type"] == "human"


# ---- auth and CSRF ---------------------------------------------------------------------------


def test_writes_need_a_token_when_auth_is_on(data_dir: Path, run_id: str, tmp_path: Path) -> None:
    with TestClient(
        create_app(data_dir, tokens=["alice:s3cret", "plain-token"]), base_url=LOCAL
    ) as c:
        assert c.get(f"/api/runs/{run_id}").status_code == 200  # reads stay open
        jobs_before = c.get("/api/jobs").json()  # earlier servers' jobs live in the store
        headers = _csrf(c)
        batch = _batch("arg:where:att:1", reviewer="mallory")
        r = c.post(f"/api/runs/{run_id}/contest", json=batch, headers=headers)
        assert r.status_code == 401 and "token" in r.json()["detail"]
        r = c.post(
            f"/api/runs/{run_id}/contest", json=batch, headers={"Authorization": "Bearer nope"}
        )
        assert r.status_code == 401
        r = c.post("/api/cases", files={"files": ("case.yaml", _CASE)}, headers=headers)
        assert r.status_code == 401
        assert c.get("/api/jobs").json() == jobs_before  # the refused upload queued nothing
        r = c.post(
            f"/api/runs/{run_id}/contest", json=batch, headers={"Authorization": "Bearer s3cret"}
        )
        assert r.status_code == 201, r.text
        case = hostile_case(tmp_path / "case")
        up = c.post(
            "/api/cases",
            files={"files": ("case.yaml", (case / "case.yaml").read_bytes())},
            headers={"Authorization": "Bearer s3cret", "X-Reviewer": "mallory"},
        )
        assert up.status_code == 202 and up.json()["jobs"][0]["submitted_by"] == "alice"
        events = c.get(f"/api/runs/{r.json()['run_id']}/trace").json()["events"]
        applied = next(e for e in events if e["kind"] == TraceKind.CONTEST_APPLIED.value)
        assert applied["payload"]["batch"][0]["meta"]["reviewer"] == "alice"  # not "mallory"

        # browser: log in (CSRF-checked form), then writes need the CSRF header too
        form = {"token": "s3cret", "csrf_token": "forged", "next": "/"}
        assert c.post("/login", data=form, follow_redirects=False).status_code == 403
        form["csrf_token"] = headers["X-CSRF-Token"]
        r = c.post("/login", data=form | {"token": "bad"}, follow_redirects=False)
        assert r.status_code == 401
        r = c.post("/login", data=form | {"next": "//evil.example"}, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/"  # no open redirect
        r = c.post("/login", data=form | {"next": f"/runs/{run_id}"}, follow_redirects=False)
        assert r.headers["location"] == f"/runs/{run_id}" and "semv_session" in r.cookies
        r = c.post(f"/api/runs/{run_id}/contest", json=batch)
        assert r.status_code == 403 and "CSRF" in r.json()["detail"]
        r = c.post(f"/api/runs/{run_id}/contest", json=batch, headers=headers)
        assert r.status_code == 201


def test_reviewer_id_is_validated_without_auth(client: TestClient, run_id: str) -> None:
    r = client.post(
        f"/api/runs/{run_id}/contest",
        json=_batch("arg:why:att:1", reviewer="<b>x</b>"),
        headers=_csrf(client),
    )
    assert r.status_code == 422 and "reviewer" in r.json()["detail"]


# ---- memory (read-only) ----------------------------------------------------------------------


def test_memory_views_are_read_only(client: TestClient, data_dir: Path) -> None:
    from semv.memory import MemoryStore

    assert client.get("/api/memory/ghost").status_code == 404
    assert "ghost" not in [b["bank"] for b in client.get("/api/memory").json()]
    store = Store(data_dir)
    try:
        MemoryStore(store, "desk")
    finally:
        store.close()
    banks = {b["bank"]: b for b in client.get("/api/memory").json()}
    assert banks["desk"]["frozen"] is None and len(banks["desk"]["long_term_hash"]) == 64
    bank = client.get("/api/memory/desk?all=true&trace=5").json()
    assert bank["records"] == [] and bank["bank"] == "desk"


def test_upload_of_a_case_with_media_keeps_the_files(client: TestClient, tmp_path: Path) -> None:
    folder = copy_example(tmp_path / "lyon")
    r = client.post(
        "/api/cases",
        files=[
            ("files", ("case.yaml", (folder / "case.yaml").read_bytes())),
            ("files", ("photo.jpg", _PHOTO, "image/jpeg")),
        ],
        headers=_csrf(client),
    )
    assert r.status_code == 202, r.text
    upload = r.json()["upload_id"]
    assert (client.app.state.web.uploads / upload / "photo.jpg").read_bytes() == _PHOTO  # type: ignore[attr-defined]


def test_run_without_an_mv2026_report_gets_a_page_from_its_result(
    client: TestClient, run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another procedure's report has its own layout: the page falls back to the result."""
    from semv.errors import StoreError
    from semv.web import _views

    def other_layout(_store: Store, _run: str) -> Any:
        raise StoreError("not an MV2026 report")

    monkeypatch.setattr(_views, "report_view", other_layout)
    page = client.get(f"/runs/{run_id}").text
    result = client.get(f"/api/runs/{run_id}").json()
    assert 'id="plain-view"' in page and 'id="review-panel"' in page
    for sub in result["subclaims"]:
        for arg in sub["arguments"]:
            assert f'data-arg="{arg["id"]}"' in page
    assert all(f'data-evidence="{e["id"]}"' in page for e in result["evidence"])


def test_dataset_file_upload_queues_one_job_per_case(client: TestClient) -> None:
    rows = [
        {
            "img_local_path": f"images/{n}.jpg",
            "caption1": f"Flooding in Paris on {n} March 2024.",
            "caption2": f"A protest in Lyon on {n} June 2019.",
            "context_label": n % 2,
        }
        for n in (1, 2)
    ]
    lines = "\n".join(json.dumps(r) for r in rows).encode()
    r = client.post(
        "/api/cases",
        files={"files": ("dev_data.json", lines)},
        data={"text_only": "true"},
        headers=_csrf(client),
    )
    assert r.status_code == 202, r.text
    jobs = r.json()["jobs"]
    assert [j["case_id"] for j in jobs] == ["dev_data:1", "dev_data:2"]
    done = [wait_job(client, j["job_id"]) for j in jobs]
    assert [d["status"] for d in done] == ["committed", "committed"]
    adapters = {client.get(f"/api/runs/{d['run_id']}/summary").json()["adapter"] for d in done}
    assert adapters == {"cosmos"}


def test_relations_are_drawn_listed_and_rejectable(client: TestClient, run_id: str) -> None:
    # the example's EXIF contradicts the news report's date and place (A-QBAF MV2026 §2.5)
    page = client.get(f"/runs/{run_id}").text
    for rel in ("rel:when:meta:1", "rel:where:meta:1"):
        assert f'<g class="relation relation-metadata-contradiction" data-relation="{rel}">' in page
        assert f'data-op="reject" data-target="{rel}" data-kind="relation"' in page
    graph = client.get(f"/api/runs/{run_id}/graph").json()
    when = next(g for g in graph["subclaims"] if g["dimension"] == "when")
    assert [r["id"] for r in when["relations"]] == ["rel:when:meta:1"]
    r = client.post(
        f"/api/runs/{run_id}/contest", json=_batch("rel:when:meta:1"), headers=_csrf(client)
    )
    assert r.status_code == 201, r.text
    assert r.json()["plan"]["restart"] == "A" and r.json()["plan"]["subclaims"] == ["when"]
    revised = client.get(f"/runs/{r.json()['run_id']}").text
    assert 'data-relation="rel:when:meta:1"' not in revised
    assert 'data-relation="rel:where:meta:1"' in revised
