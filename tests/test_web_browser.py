"""The reviewer UI in a real browser: Playwright driving the Debian Chromium (never a browser
download) against ``semv serve`` started as a subprocess on 127.0.0.1.

Screenshots of the case page and of the contest diff go to ``tests/artifacts/`` (not
committed). Skipped only when ``/usr/bin/chromium`` is absent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web_helpers import EXAMPLE, ROOT, SCRIPT, hostile_case, serve, wait_job

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian chromium not installed (/usr/bin/chromium)"
)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("browser") / "store"


@pytest.fixture(scope="module")
def server(data_dir: Path) -> Iterator[str]:
    with serve(data_dir) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    p = context.new_page()
    p.set_default_timeout(30_000)
    try:
        yield p
    finally:
        context.close()


def _cli_contest(data_dir: Path, run_id: str, target: str, reason: str) -> dict[str, Any]:
    """What ``semv contest`` computes for the same action on the same run."""
    out = subprocess.run(
        [
            sys.executable,
            *("-m", "semv", "contest", run_id, "--reject", target, "--reason", reason),
            *("--json", "--data-dir", str(data_dir)),
        ],
        env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
        capture_output=True,
        text=True,
        check=True,
    )
    payload: dict[str, Any] = json.loads(out.stdout)
    return payload


def _upload_example(page: Any, server: str) -> str:
    """Submit the example case through the upload form; follow the job to its run page."""
    page.goto(server + "/")
    page.set_input_files("#upload-files", [str(EXAMPLE / "case.yaml"), str(EXAMPLE / "photo.jpg")])
    page.click("#upload button[type=submit]")
    link = page.locator("td.job-run a").first
    link.wait_for(timeout=180_000)
    run_id: str = link.inner_text()
    link.click()
    page.wait_for_url(f"**/runs/{run_id}")
    return run_id


def test_reject_an_argument_and_see_the_diff(page: Any, server: str, data_dir: Path) -> None:
    run_id = _upload_example(page, server)
    ARTIFACTS.mkdir(exist_ok=True)
    label_before = page.inner_text("#verdict-label")
    when = page.locator("#sec-when h2 .band")
    score_before = when.get_attribute("data-score")
    assert page.locator("svg.qbaf").count() == 6
    assert page.locator(".needs-review").count() > 0
    page.screenshot(path=str(ARTIFACTS / "case-page.png"), full_page=False)
    page.locator("#sec-when").screenshot(path=str(ARTIFACTS / "case-page-when.png"))

    target, reason = "arg:when:att:1", "The fact-check confuses this photo with another one."
    page.click(f'li[data-arg="{target}"] button[data-op="reject"]')
    page.fill("#action-form textarea[name=reason]", reason)
    page.click("#action-ok")
    page.locator("#pending li").first.wait_for(timeout=10_000)  # the dialog's close event is async
    assert page.locator("#pending li").count() == 1
    page.click("#apply")
    page.wait_for_url(lambda url: f"/runs/{run_id}" not in url, timeout=120_000)
    page.locator("#diff").wait_for()
    revision_id = page.url.split("/runs/")[1].split("#")[0]
    page.screenshot(path=str(ARTIFACTS / "contest-diff.png"), full_page=False)
    page.locator("#revision").screenshot(path=str(ARTIFACTS / "contest-diff-panel.png"))

    # the same action through the CLI gives the same recomputed decision
    cli = _cli_contest(data_dir, run_id, target, reason)
    when_cli = next(s for s in cli["delta"]["subclaims"] if s["dimension"] == "when")
    row = page.locator('#diff tr[data-row="when"] td')
    assert row.nth(0).inner_text().startswith(score_before or "?")
    assert row.nth(1).inner_text() == f"{when_cli['score_after']:.3f} {when_cli['band_after']}"
    assert when_cli["score_after"] != when_cli["score_before"]
    assert "changed" in (page.locator('#diff tr[data-row="when"]').get_attribute("class") or "")
    assert page.inner_text("#verdict-label") == cli["delta"]["label_after"]
    assert page.locator("#scope").inner_text().count("when") >= 1
    assert "A (argumentation)" in page.locator("table.plan").inner_text()
    assert page.locator(f'#sec-when li[data-arg="{target}"]').count() == 0  # rejected: gone

    # the parent run is still viewable, unchanged, and says it was revised
    page.click("#parent-link")
    page.wait_for_url(f"**/runs/{run_id}")
    assert page.inner_text("#verdict-label") == label_before
    assert page.locator("#sec-when h2 .band").get_attribute("data-score") == score_before
    assert revision_id in page.inner_text("#revised-notice")


def test_script_in_evidence_renders_as_text(page: Any, server: str, tmp_path: Path) -> None:
    folder = hostile_case(tmp_path / "hostile")
    with httpx.Client(base_url=server) as client:
        client.get("/")
        r = client.post(
            "/api/cases",
            files={"files": ("case.yaml", (folder / "case.yaml").read_bytes())},
            headers={"X-CSRF-Token": client.cookies["semv_csrf"]},
        )
        assert r.status_code == 202, r.text
        job = wait_job(client, r.json()["jobs"][0]["job_id"])
    assert job["status"] == "committed", job
    page.goto(f"{server}/runs/{job['run_id']}")
    card = page.locator('article[data-evidence="ev:sup:scraped-page"]').first
    assert SCRIPT in card.inner_text()
    assert page.evaluate("document.body.dataset.pwned") is None
    assert page.locator("article.evidence img[src=x]").count() == 0


def test_write_without_token_is_refused(page: Any, data_dir: Path, server: str) -> None:
    runs = httpx.get(server + "/api/runs").json()
    run_id = next(
        r["run_id"] for r in runs if r["case_id"] == "lyon-flood" and not r["parent_run_id"]
    )
    with serve(data_dir, "--auth-token", "alice:tok-123") as guarded:
        page.goto(f"{guarded}/runs/{run_id}")
        assert page.locator("#apply").count() == 0  # no controls without a session
        status = page.evaluate(
            """async (run) => {
                const csrf = document.querySelector('meta[name="csrf-token"]').content;
                const r = await fetch('/api/runs/' + run + '/contest', {method: 'POST',
                  headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf},
                  body: JSON.stringify({actions: [{op: 'reject', target: 'arg:where:att:1',
                    reason: 'no token'}]})});
                return r.status;
            }""",
            run_id,
        )
        assert status == 401
        page.click("text=log in to review")
        page.fill("input[name=token]", "tok-123")
        page.click("form.login button")
        page.wait_for_url(f"**/runs/{run_id}")
        page.click('li[data-arg="arg:where:sup:1"] button[data-op="accept"]')
        page.fill("#action-form textarea[name=reason]", "checked the place")
        page.click("#action-ok")
        page.click("#apply")
        page.locator("#diff").wait_for(timeout=120_000)
        assert "alice" in page.locator("table.plan").inner_text()
