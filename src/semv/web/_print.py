"""The printable report of a run (``semv export --format pdf``, ``GET /api/runs/{run}/pdf``):
the run's HTML report (MV2026 layout) made self-contained for an HTML-to-PDF engine.

- every image the report links (forensic maps next to the report) is inlined as a data URI,
  eagerly loaded (a lazy image is never printed);
- each dimension section gets its argument graph Q_k (Eq. 15) as inline SVG, drawn by the same
  code as the case page (subclaims without a section of their own get theirs at the end);
- the case summary gets the case's images and the keyframes extracted from its videos;
- every collapsed ``<details>`` section is opened (the report is verdict first, with the
  full argument lists, provenance and hashes collapsed below it; paper shows them all).

Only files inside the run's report folder, the case's own media (still matching its SHA-256)
and the store's keyframe artifacts are read.
"""

from __future__ import annotations

import base64
import hashlib
import json
import mimetypes
import re
import threading
from pathlib import Path
from typing import Final

from markupsafe import escape

from semv.config import ExportConfig
from semv.errors import SemvError, StoreError
from semv.model import Bundle, MediaKind
from semv.perception.artifacts import ArtifactStore
from semv.pipeline import artifacts_root
from semv.store import RunRecord, Store
from semv.web import _views as views
from semv.web._svg import graph_svg

__all__ = ["PRINT_CSP", "PdfBusy", "PdfPrinter", "print_html"]

_IMG: Final = re.compile(r'<img([^>]*?) src="([^"]+)"([^>]*)>')
_DETAILS: Final = re.compile(r"<details(?![^>]*\bopen\b)")
_MAX_INLINE: Final = 8_000_000
"""Largest image inlined into the printable report (bytes)."""
PRINT_CSP: Final = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; "
    "base-uri 'none'; form-action 'none'"
)
"""The printed page's Content-Security-Policy: everything it shows is inlined, so it may load
nothing (no remote image, stylesheet, font or script reaches the network)."""
_CSP_META: Final = f'<meta http-equiv="Content-Security-Policy" content="{PRINT_CSP}">'
_PRINT_CSS: Final = (
    "<style>@page { size: A4; margin: 14mm; } "
    "section, figure { break-inside: auto; } figure { margin: .6rem 0; } "
    "figure svg { max-width: 100%; height: auto; } img { max-width: 100%; } "
    ".keyframes img, .media img { max-width: 48%; margin: 0 .4rem .4rem 0; }</style>"
)


def _data_uri(path: Path) -> str | None:
    kind = mimetypes.guess_type(path.name)[0] or ""
    if not kind.startswith("image/") or not path.is_file():
        return None
    if path.stat().st_size > _MAX_INLINE:
        return None
    return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def _inline_images(html: str, folder: Path | None) -> str:
    def swap(m: re.Match[str]) -> str:
        before, src, after = m.group(1), m.group(2), m.group(3).replace(' loading="lazy"', "")
        if folder is None or src.startswith(("data:", "http:", "https:", "/")):
            return f'<img{before} src="{src}"{after}>'
        target = (folder / src).resolve()
        uri = _data_uri(target) if target.is_relative_to(folder.resolve()) else None
        return f'<img{before} src="{uri or src}"{after}>'

    return _IMG.sub(swap, html)


def _insert_into(html: str, section: str, fragment: str) -> str:
    start = html.find(f'<section id="{section}">')
    if start < 0:
        return html
    end = html.find("</section>", start)
    return html[:end] + fragment + html[end:] if end >= 0 else html


def _media_figures(store: Store, run_id: str) -> str:
    try:
        raw = store.node_value_json(run_id, "bundle")
    except StoreError:  # a run without a bundle node (nothing to show)
        return ""
    # a stored bundle that does not validate is a damaged store: its ValidationError propagates
    bundle = Bundle.model_validate_json(raw)
    parts: list[str] = []
    for asset in bundle.case.media:
        path = Path(asset.path)
        if asset.kind is not MediaKind.IMAGE or not path.is_file():
            continue
        if asset.sha256 and hashlib.sha256(path.read_bytes()).hexdigest() != asset.sha256:
            continue
        uri = _data_uri(path)
        if uri:
            parts.append(f'<img src="{uri}" alt="{escape(asset.id)}">')
    return f'<figure class="media"><h3>Media</h3>{"".join(parts)}</figure>' if parts else ""


def _keyframes(view_json: dict[str, object], artifacts: ArtifactStore) -> str:
    parts: list[str] = []
    summary = view_json.get("case_summary")
    media = summary.get("media", []) if isinstance(summary, dict) else []
    for m in media if isinstance(media, list) else []:
        for artifact in m.get("artifacts", []) if isinstance(m, dict) else []:
            # recorded relative to the data directory (artifacts/ab/<sha256>.png), or by an
            # older report as an absolute path: either way only the artifact store is read
            found = artifacts.local(Path(str(artifact.get("path", ""))).name)
            uri = _data_uri(found) if found is not None else None
            if uri:
                label = escape(str(artifact.get("label", "")))
                parts.append(f'<img src="{uri}" alt="{label}" title="{label}">')
    return f'<figure class="keyframes"><h3>Keyframes</h3>{"".join(parts)}</figure>' if parts else ""


def print_html(store: Store, run: str) -> str:
    """The run's HTML report, self-contained and with its argument graphs, for printing."""
    record = store.get_run(run)
    html = views.report_text(store, run, "html")
    paths = json.loads(record.result_json or "{}").get("report_paths", {})
    folder = Path(paths["html"]).parent if paths.get("html") else None
    html = _inline_images(html, folder if folder is not None and folder.is_dir() else None)
    unplaced: list[str] = []
    for graph in views.argument_graphs(store, run):
        figure = (
            f'<figure class="graph"><h3>Argument graph of {escape(graph.dimension)}</h3>'
            f"{graph_svg(graph)}</figure>"
        )
        placed = _insert_into(html, graph.dimension, figure)
        if placed == html:
            unplaced.append(figure)
        html = placed
    if unplaced:  # dimensions without a section of their own (what, authenticity)
        block = (
            '<section id="argument_graphs"><h2>Argument graphs of the other subclaims</h2>'
            + "".join(unplaced)
            + "</section>\n"
        )
        html = html.replace("</body>", block + "</body>", 1)
    view_json = json.loads(views.report_text(store, run, "json"))
    artifacts = ArtifactStore(artifacts_root(store, folder.parent if folder else None))
    extra = _media_figures(store, record.run_id) + _keyframes(view_json, artifacts)
    html = _insert_into(html, "case_summary", extra)
    html = _DETAILS.sub("<details open", html)  # paper cannot expand a collapsed section
    html = re.sub(r"<head(\s[^>]*)?>", lambda m: f"{m.group(0)}\n{_CSP_META}", html, count=1)
    return html.replace("</head>", f"{_PRINT_CSS}\n</head>", 1)


class PdfBusy(SemvError):
    """Every PDF slot is printing (``web.pdf_concurrency``): answered 503 with Retry-After."""

    retry_after_s = 5


class PdfPrinter:
    """The server's PDF reports: at most ``concurrency`` Chromium processes at once (a request
    beyond them is refused at once with ``PdfBusy``, never queued on a thread), and each run's
    PDF kept in ``cache_dir`` under its run id and trace head. A committed run never changes,
    so its PDF is printed once; a revision is a new run with its own PDF."""

    def __init__(self, concurrency: int, cache_dir: Path) -> None:
        self._slots = threading.BoundedSemaphore(concurrency)
        self.cache_dir = cache_dir

    def _cached(self, record: RunRecord) -> Path:
        head = (record.trace_head or "unsealed")[:16]
        return self.cache_dir / f"{record.run_id}-{head}.pdf"

    def pdf(self, store: Store, run: str, cfg: ExportConfig) -> bytes:
        """The PDF of committed run ``run``: from the cache, else printed in a free slot."""
        from semv.export import render_pdf

        record = store.get_run(run)
        cached = self._cached(record)
        if cached.is_file():
            return cached.read_bytes()
        if not self._slots.acquire(blocking=False):
            raise PdfBusy(
                "every PDF slot is printing (web.pdf_concurrency); try again in a few seconds"
            )
        try:
            if cached.is_file():  # printed by the request that held the slot before
                return cached.read_bytes()
            page = print_html(store, record.run_id)
            return render_pdf(page, cached, cfg).read_bytes()
        finally:
            self._slots.release()
