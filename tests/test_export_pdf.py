"""PDF reports: the example printed by the Debian Chromium has every section of the HTML report,
its argument graphs and its images (checked with pypdf and poppler's pdftoppm)."""

from __future__ import annotations

import asyncio
import html as html_lib
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
from pypdf import PdfReader

from semv._api import load_cases
from semv.agents.offline import OfflineAgents
from semv.config import ExportConfig, Settings
from semv.export import PdfError, render_pdf
from semv.pipeline import run_case
from semv.store import Store
from semv.web import print_html

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path(ExportConfig().chromium)
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.is_file(), reason="Debian chromium not installed (/usr/bin/chromium)"
)


def _example_run(data_dir: Path) -> tuple[Store, str]:
    contract, cases = load_cases(ROOT / "examples" / "lyon-flood")
    store = Store(data_dir)
    settings = Settings()
    outcome = asyncio.run(
        run_case(
            cases[0].case,
            store=store,
            settings=settings,
            agents=OfflineAgents(settings),
            contract=contract,
        )
    )
    return store, outcome.result.run_id


def _flat(text: str) -> str:
    """One-spaced text with ligatures (ﬁ, ﬂ) decomposed, as both sides are compared."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


@needs_chromium
def test_the_example_pdf_has_every_section_graph_and_image(data_dir: Path, tmp_path: Path) -> None:
    store, run_id = _example_run(data_dir)
    page = print_html(store, run_id)
    written = Path(store.data_dir or data_dir, "reports", run_id, "report.html").read_text()
    headings = [html_lib.unescape(h) for h in re.findall(r"<h2[^>]*>(.*?)</h2>", written)]
    assert len(headings) >= 9
    maps = len(re.findall(r'<img class="map"', written))
    assert maps >= 1
    out = render_pdf(page, tmp_path / "out" / "report.pdf", ExportConfig())
    reader = PdfReader(out)
    text = _flat(" ".join(p.extract_text() or "" for p in reader.pages))
    for heading in headings:
        assert _flat(heading) in text, heading
    # one argument graph per dimension, with its title
    for dim in ("where", "when", "who", "why", "authenticity"):
        assert f"Argument graph of {dim}" in text
    assert "Flooding in Paris on 14 March 2024" in text
    # verdict first, and every collapsed section printed open
    assert re.search(r"<details(?![^>]*\bopen\b)", page) is None
    verdict = text.index("Strongest arguments against the claim")
    assert verdict < text.index("Needs review") < text.index("Case summary")
    # the photo and every forensic map are embedded images
    images = sum(len(p.images) for p in reader.pages)
    assert images == maps + 1
    # poppler renders the first page: not blank
    if shutil.which("pdftoppm"):
        subprocess.run(
            ["pdftoppm", "-r", "40", "-png", "-f", "1", "-l", "1", str(out), str(tmp_path / "p")],
            check=True,
        )
        from PIL import Image

        (png,) = tmp_path.glob("p-*.png")
        lo, hi = Image.open(png).convert("L").getextrema()
        assert hi - lo > 100


def test_a_missing_engine_is_a_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    cfg = ExportConfig(chromium=str(tmp_path / "no-chromium"))
    with pytest.raises(PdfError, match="no-chromium not found"):
        render_pdf("<html></html>", tmp_path / "r.pdf", cfg)
    assert not (tmp_path / "r.pdf").exists()


def test_a_failing_engine_leaves_nothing_half_written(tmp_path: Path) -> None:
    fake = tmp_path / "fake-chromium"
    fake.write_text("#!/bin/sh\necho 'cannot print' >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(PdfError, match=r"exit 3\): cannot print"):
        render_pdf("<html></html>", tmp_path / "r.pdf", ExportConfig(chromium=str(fake)))
    assert list(tmp_path.iterdir()) == [fake]
