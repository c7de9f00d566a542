"""Target: the first 1,000 px of the example's HTML report, 1,300 px wide, show the
label, the confidence, the reason, the strongest arguments on each side and the review items
(Playwright driving the Debian Chromium on the written ``report.html``; skipped without it).

A screenshot of that first screen goes to ``tests/artifacts/report-first-screen.png``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from semv import verify

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
WIDTH, FIRST_SCREEN = 1300, 1000

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian chromium not installed (/usr/bin/chromium)"
)


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data = tmp_path_factory.mktemp("report-browser") / "data"
    result = verify(EXAMPLE, data_dir=data)
    report = json.loads(Path(result.report_paths["json"]).read_text(encoding="utf-8"))
    return {"html": Path(result.report_paths["html"]), "result": result, "report": report}


@pytest.fixture(scope="module")
def page(written: dict[str, Any]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            p = browser.new_page(viewport={"width": WIDTH, "height": FIRST_SCREEN})
            p.goto(written["html"].as_uri())
            ARTIFACTS.mkdir(exist_ok=True)
            p.screenshot(path=str(ARTIFACTS / "report-first-screen.png"))
            yield p
        finally:
            browser.close()


def _on_first_screen(page: Any, selector: str) -> Any:
    """The element, after checking it is rendered and lies wholly in the first screen."""
    element = page.locator(selector)
    assert element.count() >= 1, selector
    first = element.first
    assert first.is_visible(), selector
    box = first.bounding_box()
    assert box is not None and box["y"] >= 0, selector
    assert box["y"] + box["height"] <= FIRST_SCREEN, (selector, box)
    return first


def test_label_confidence_and_reason_are_on_the_first_screen(
    page: Any, written: dict[str, Any]
) -> None:
    result = written["result"]
    assert _on_first_screen(page, "#verdict-label").inner_text().lower() == result.label
    assert _on_first_screen(page, "#verdict-confidence").inner_text() == f"{result.confidence:.2f}"
    reason = _on_first_screen(page, "#verdict-reason").inner_text()
    assert "aggregation rule 2 of 7" in reason
    assert "where, when and why are refuted" in reason.lower()


def test_the_strongest_arguments_of_each_side_are_on_the_first_screen(
    page: Any, written: dict[str, Any]
) -> None:
    summary = written["report"]["summary"]
    for side, key in (("#strongest-for", "for_claim"), ("#strongest-against", "against_claim")):
        expected = summary[key]
        assert len(expected) == 3
        items = page.locator(f"{side} li")
        assert items.count() == len(expected)
        for index, top in enumerate(expected):
            item = _on_first_screen(page, f"{side} li >> nth={index}")
            assert top["argument"]["text"][:60] in " ".join(item.inner_text().split())
            sources = [e for e in top["argument"]["evidence"] if e["found"]]
            assert sources and item.locator(".sources").is_visible()
    against = " ".join(page.locator("#strongest-against").inner_text().split())
    assert "Lyon" in against  # the GPS and the fact-check that refute the claimed place


def test_the_review_items_are_on_the_first_screen(page: Any, written: dict[str, Any]) -> None:
    review = written["report"]["summary"]["review"]
    # the photo's EXIF contradicts the claimed place and date; the news report of the event is
    # outweighed by it (directness), so no clash of two strong arguments is left to review
    codes = {item["code"] for item in review}
    assert "metadata-claim-conflict" in codes and "major-factual-conflict" not in codes
    items = page.locator("#needs-review li")
    assert items.count() == len(review)
    for index, item in enumerate(review):
        shown = _on_first_screen(page, f"#needs-review li >> nth={index}").inner_text()
        assert item["code"] in shown and item["meaning"] in shown


def test_hashes_and_provenance_are_collapsed_below(page: Any) -> None:
    hashes = page.locator("#case_summary table").first
    assert not hashes.is_visible()  # in a closed <details>
    top = page.locator("#case_summary").bounding_box()
    assert top is not None and top["y"] > FIRST_SCREEN
