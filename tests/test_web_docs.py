"""The API page (``/docs``) is served by semv itself and renders under the server's own
Content-Security-Policy with no other host reachable: in-process checks of the page and its
assets, and Swagger UI driven in the Debian Chromium against ``semv serve``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from semv.web import create_app
from tests.web_helpers import LOCAL, serve

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "store"), base_url=LOCAL) as c:
        yield c


def test_docs_page_names_no_other_host_and_has_no_inline_script(client: TestClient) -> None:
    r = client.get("/docs")
    assert r.status_code == 200
    assert "script-src 'self'" in r.headers["content-security-policy"]
    html = r.text
    assert not re.search(r"https?://", html)  # every asset from this server
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.DOTALL)
    assert len(scripts) == html.count("<script") == 2
    assert all('src="/' in attributes and not body.strip() for attributes, body in scripts)
    for src in re.findall(r'(?:src|href)="([^"]+)"', html):
        asset = client.get(src)
        assert asset.status_code == 200, src
        assert len(asset.content) > 100, src
    bundle = client.get("/docs/assets/swagger-ui-bundle.js")
    assert "javascript" in bundle.headers["content-type"]
    assert b"SwaggerUIBundle" in bundle.content


def test_the_cdn_pages_of_fastapi_are_gone(client: TestClient) -> None:
    assert client.get("/redoc").status_code == 404
    assert "cdn.jsdelivr.net" not in client.get("/docs").text


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed")
def test_docs_render_in_a_browser_under_the_csp_with_no_network(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    with serve(tmp_path / "store") as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page()
            elsewhere: list[str] = []
            console: list[str] = []

            def only_this_server(route: Any) -> None:
                url = route.request.url
                if url.startswith(base) or urlsplit(url).scheme == "data":
                    route.continue_()
                else:
                    elsewhere.append(url)
                    route.abort()

            page.route("**/*", only_this_server)
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            page.goto(base + "/docs")
            page.wait_for_selector(".opblock-summary", timeout=30_000)
            title = page.inner_text(".information-container .title")
            operations = page.locator(".opblock-summary-path").all_inner_texts()
        finally:
            browser.close()
    assert title.startswith("semv")
    assert any(path.startswith("/api/runs") for path in operations)
    assert elsewhere == []
    assert not [line for line in console if "Content Security Policy" in line]
