"""PDF reports: the printable HTML report printed by headless Chromium.

The Debian ``chromium`` (``export.chromium``) runs with ``--headless --print-to-pdf`` in a fresh
profile, no sandbox (it runs as the invoking user in a container), no GPU, no background
networking, component updates or first-run work, and no header/footer. Every host name
resolves to nothing (``--host-resolver-rules``): ``--disable-background-networking`` alone
still let it look up accounts.google.com, update.googleapis.com and others (~40 lookups a
PDF), and the printed page needs no network at all. The HTML is a temporary
file: it must be self-contained (``semv.web.print_html`` inlines every image), since Chromium
reads nothing else. The PDF is written atomically (temporary file, then rename): a failed
rendering leaves nothing half-written.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from semv.atomic import umask_mode, write_bytes_atomic
from semv.config import ExportConfig, child_environment
from semv.errors import SemvError

__all__ = ["PdfError", "chromium_args", "render_pdf"]


class PdfError(SemvError):
    """The PDF engine is missing or failed."""


def chromium_args(binary: str, html: Path, pdf: Path, profile: Path) -> list[str]:
    """The command line that prints ``html`` to ``pdf``."""
    return [
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-domain-reliability",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        f"--user-data-dir={profile}",
        "--no-pdf-header-footer",
        "--run-all-compositor-stages-before-draw",
        f"--print-to-pdf={pdf}",
        html.as_uri(),
    ]


def render_pdf(html: str, out: Path, cfg: ExportConfig) -> Path:
    """Print ``html`` to ``out`` with headless Chromium; ``PdfError`` when it cannot."""
    binary = Path(cfg.chromium)
    if not binary.is_file():
        raise PdfError(
            f"export.chromium: {binary} not found (install the Debian package chromium, "
            "see system-packages.txt)"
        )
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="semv-pdf-") as work:
        page = Path(work) / "report.html"
        page.write_text(html, encoding="utf-8")
        printed = Path(work) / "report.pdf"
        args = chromium_args(str(binary), page, printed, Path(work) / "profile")
        try:
            done = subprocess.run(
                args,
                capture_output=True,
                text=True,
                timeout=cfg.pdf_timeout_s,
                check=False,
                env=child_environment(HOME=work),  # a fresh profile home for Chromium
            )
        except subprocess.TimeoutExpired as exc:
            raise PdfError(f"chromium did not finish within {cfg.pdf_timeout_s:g} s") from exc
        if done.returncode != 0 or not printed.is_file() or printed.stat().st_size == 0:
            tail = (done.stderr or "").strip().splitlines()[-3:]
            raise PdfError(f"chromium failed (exit {done.returncode}): {' | '.join(tail)}")
        write_bytes_atomic(out, printed.read_bytes(), prefix=".semv-pdf-", mode=umask_mode())
    return out
