"""The server's own defences: a ``Host`` allow-list (DNS rebinding), no write with a bearer
value an open server cannot check, a startup warning for an open server beyond loopback, a
``Secure`` session cookie behind a trusted HTTPS proxy, throttled logins, sessions that
expire, token hashes that are salted and slow, and a ClaimReview ``url`` that never comes
from the client's ``Host`` header."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from semv._api import verify
from semv.config import ExportConfig, Settings, WebConfig
from semv.store import Store
from semv.store import _schema as t
from semv.web import create_app
from tests.web_helpers import EXAMPLE

LOCAL = "http://127.0.0.1"
TOKEN = "alice:s3cret-token"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("web-security") / "store"


@pytest.fixture(scope="module")
def run_id(data_dir: Path) -> str:
    return verify(EXAMPLE, data_dir=data_dir, text_only=True).run_id


@pytest.fixture
def open_client(data_dir: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir), base_url=LOCAL) as client:
        yield client


def _csrf(client: TestClient) -> dict[str, str]:
    client.get("/")
    return {"X-CSRF-Token": client.cookies["semv_csrf"]}


# ---- Host allow-list --------------------------------------------------------------------


def test_a_foreign_host_header_is_refused(open_client: TestClient) -> None:
    assert open_client.get("/api/health").status_code == 200
    for host in ("localhost", "localhost:8000", "127.0.0.1:8000", "[::1]:8000", "LOCALHOST"):
        assert open_client.get("/api/health", headers={"Host": host}).status_code == 200, host
    for host in ("attacker.example", "attacker.example:8000", "127.0.0.1.attacker.example"):
        r = open_client.get("/api/health", headers={"Host": host})
        assert r.status_code == 400, host
        assert "web.allowed_hosts" in r.text
        assert open_client.get("/", headers={"Host": host}).status_code == 400


def test_the_names_given_to_host_and_the_config_are_served(data_dir: Path) -> None:
    settings = Settings(web=WebConfig(allowed_hosts=["review.example.org"]))
    app = create_app(data_dir, settings=settings, hosts=["semv.lan"])
    with TestClient(app, base_url=LOCAL) as client:
        for host in ("review.example.org", "semv.lan:8000", "localhost"):
            assert client.get("/api/health", headers={"Host": host}).status_code == 200, host
        assert client.get("/api/health", headers={"Host": "other.lan"}).status_code == 400
    anything = Settings(web=WebConfig(allowed_hosts=["*"]))
    with TestClient(create_app(data_dir, settings=anything), base_url=LOCAL) as client:
        assert client.get("/api/health", headers={"Host": "other.lan"}).status_code == 200


# ---- writes on an open server ----------------------------------------------------------


def test_an_open_server_refuses_a_bearer_it_cannot_check(
    open_client: TestClient, run_id: str
) -> None:
    batch = {"actions": [{"op": "reject", "target": "arg:where:att:1", "reason": "x"}]}
    r = open_client.post(
        f"/api/runs/{run_id}/contest", json=batch, headers={"Authorization": "Bearer anything"}
    )
    assert r.status_code == 401
    assert "X-Reviewer" in r.json()["detail"]
    r = open_client.post(f"/api/runs/{run_id}/contest", json=batch, headers={"X-Reviewer": "bob"})
    assert r.status_code == 201, r.text  # a script names its reviewer instead


def test_serve_warns_when_it_listens_beyond_loopback_without_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    from semv.cli import app

    calls: list[dict[str, object]] = []
    monkeypatch.setattr(uvicorn, "run", lambda _app, **kw: calls.append(kw))
    monkeypatch.delenv("SEMV_AUTH_TOKEN", raising=False)
    runner = CliRunner()
    data = ["--data-dir", str(tmp_path / "d")]
    wide = runner.invoke(app, ["serve", "--host", "0.0.0.0", *data])
    assert wide.exit_code == 0, wide.output
    assert "warning" in wide.stderr and "without reviewer tokens" in wide.stderr
    local = runner.invoke(app, ["serve", *data])
    assert local.exit_code == 0 and "warning" not in local.stderr
    guarded = runner.invoke(app, ["serve", "--host", "0.0.0.0", "--auth-token", "x", *data])
    assert guarded.exit_code == 0 and "without reviewer tokens" not in guarded.stderr
    assert len(calls) == 3


# ---- sessions ----------------------------------------------------------------------------


def _login(client: TestClient, token: str = "s3cret-token", **headers: str) -> object:
    csrf = _csrf(client)["X-CSRF-Token"]
    form = {"token": token, "csrf_token": csrf, "next": "/"}
    return client.post("/login", data=form, headers=headers, follow_redirects=False)


def test_the_session_cookie_is_secure_behind_a_trusted_https_proxy(data_dir: Path) -> None:
    with TestClient(create_app(data_dir, tokens=[TOKEN]), base_url=LOCAL) as client:
        r = _login(client, **{"X-Forwarded-Proto": "https"})
        assert r.status_code == 303  # type: ignore[attr-defined]
        cookie = r.headers["set-cookie"]  # type: ignore[attr-defined]
        assert "semv_session=" in cookie and "secure" not in cookie.lower()  # untrusted client
    proxied = Settings(web=WebConfig(trusted_proxies=["testclient"]))
    app = create_app(data_dir, settings=proxied, tokens=[TOKEN])
    with TestClient(app, base_url=LOCAL) as client:
        plain = _login(client)
        assert "secure" not in plain.headers["set-cookie"].lower()  # type: ignore[attr-defined]
        r = _login(client, **{"X-Forwarded-Proto": "https"})
        assert "secure" in r.headers["set-cookie"].lower()  # type: ignore[attr-defined]
    with TestClient(create_app(data_dir, tokens=[TOKEN]), base_url="https://127.0.0.1") as client:
        r = _login(client)
        assert "secure" in r.headers["set-cookie"].lower()  # type: ignore[attr-defined]


def test_failed_logins_are_throttled(data_dir: Path, run_id: str) -> None:
    settings = Settings(web=WebConfig(login_attempts=3, login_window_s=60))
    app = create_app(data_dir, settings=settings, tokens=[TOKEN])
    with TestClient(app, base_url=LOCAL) as client:
        for _ in range(3):
            assert _login(client, token="wrong").status_code == 401  # type: ignore[attr-defined]
        blocked = _login(client)  # even the right token waits out the window
        assert blocked.status_code == 429  # type: ignore[attr-defined]
        assert "Retry-After" in blocked.headers  # type: ignore[attr-defined]
        batch = {"actions": [{"op": "reject", "target": "arg:where:att:1", "reason": "x"}]}
        bearer = {"Authorization": "Bearer s3cret-token"}
        r = client.post(f"/api/runs/{run_id}/contest", json=batch, headers=bearer)
        assert r.status_code == 429  # guessing by bearer shares the same budget


def test_bad_bearer_tokens_are_throttled_too(data_dir: Path, run_id: str) -> None:
    settings = Settings(web=WebConfig(login_attempts=2, login_window_s=60))
    app = create_app(data_dir, settings=settings, tokens=[TOKEN])
    batch = {"actions": [{"op": "reject", "target": "arg:where:att:1", "reason": "x"}]}
    with TestClient(app, base_url=LOCAL) as client:
        for guess in ("a", "b"):
            r = client.post(
                f"/api/runs/{run_id}/contest",
                json=batch,
                headers={"Authorization": f"Bearer {guess}"},
            )
            assert r.status_code == 401
        r = client.post(
            f"/api/runs/{run_id}/contest", json=batch, headers={"Authorization": "Bearer c"}
        )
        assert r.status_code == 429


def test_a_session_expires(data_dir: Path) -> None:
    settings = Settings(web=WebConfig(session_hours=1 / 3600))  # one second
    app = create_app(data_dir, settings=settings, tokens=[TOKEN])
    with TestClient(app, base_url=LOCAL) as client:
        r = _login(client)
        assert r.status_code == 303  # type: ignore[attr-defined]
        assert "Max-Age=1" in r.headers["set-cookie"]  # type: ignore[attr-defined]
        state = client.app.state.web  # type: ignore[attr-defined]
        assert state.auth.can_write(_request(client))
        time.sleep(1.3)
        assert not state.auth.can_write(_request(client))


def _request(client: TestClient) -> object:
    from starlette.requests import Request

    cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    return Request({"type": "http", "headers": [(b"cookie", cookie.encode())], "method": "GET"})


def test_stored_token_hashes_are_salted_and_not_plain_sha256(data_dir: Path) -> None:
    with TestClient(create_app(data_dir, tokens=[TOKEN]), base_url=LOCAL) as client:
        _login(client)
        client.cookies.clear()
        _login(client)
    store = Store(data_dir)
    with store.engine.connect() as conn:
        hashes = [row[0] for row in conn.execute(select(t.web_sessions.c.token_hash))]
    store.close()
    plain = hashlib.sha256(b"s3cret-token").hexdigest()
    assert len(hashes) >= 2 and plain not in hashes
    assert len(set(hashes)) == len(hashes)  # one salt per session


def test_a_legacy_plain_sha256_session_is_refused(data_dir: Path) -> None:
    from semv.store import SessionTable

    store = Store(data_dir)
    with store.engine.begin() as conn:
        conn.execute(
            t.web_sessions.insert().values(
                session_hash=hashlib.sha256(b"legacy-cookie").hexdigest(),
                reviewer="alice",
                token_hash=hashlib.sha256(b"s3cret-token").hexdigest(),
                created_at="2099-01-01T00:00:00+00:00",
            )
        )
    ok, _ = SessionTable(store).lookup("legacy-cookie", ["s3cret-token"], max_age_s=3600)
    store.close()
    assert not ok


# ---- ClaimReview url ---------------------------------------------------------------------


def test_the_claimreview_url_never_echoes_the_host_header(data_dir: Path, run_id: str) -> None:
    anything = Settings(web=WebConfig(allowed_hosts=["*"]))
    with TestClient(create_app(data_dir, settings=anything), base_url=LOCAL) as client:
        doc = client.get(
            f"/api/runs/{run_id}/claimreview", headers={"Host": "attacker.example"}
        ).json()
        assert "attacker.example" not in str(doc)
    public = Settings(
        web=WebConfig(allowed_hosts=["*"], public_url="https://semv.example.org/"),
    )
    with TestClient(create_app(data_dir, settings=public), base_url=LOCAL) as client:
        doc = client.get(
            f"/api/runs/{run_id}/claimreview", headers={"Host": "attacker.example"}
        ).json()
        assert doc["url"] == f"https://semv.example.org/api/runs/{run_id}/report"
    published = Settings(
        export=ExportConfig(report_base_url="https://reports.example.org/semv"),
        web=WebConfig(public_url="https://semv.example.org"),
    )
    with TestClient(create_app(data_dir, settings=published), base_url=LOCAL) as client:
        doc = client.get(f"/api/runs/{run_id}/claimreview").json()
        assert doc["url"] == f"https://reports.example.org/semv/{run_id}/report.html"
