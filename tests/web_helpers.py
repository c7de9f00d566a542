"""Helpers for the web tests and the web benchmark: case zips, hostile cases, job polling and
``semv serve`` as a real subprocess on a free 127.0.0.1 port."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"
LOCAL = "http://127.0.0.1"
"""The base URL of a test client: a name the server's Host allow-list accepts."""
SCRIPT = "<script>document.body.dataset.pwned=1</script>"
HOSTILE_TITLE = "<img src=x onerror=document.body.dataset.pwned=2>"


def zip_folder(folder: Path, *, prefix: str = "") -> bytes:
    """The folder's files as a zip (members under ``prefix``)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, prefix + path.relative_to(folder).as_posix())
    return buf.getvalue()


def hostile_case(dest: Path) -> Path:
    """A text-only copy of the example case whose supplied evidence carries markup and script
    (as a scraped page or caption may)."""
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "case.yaml").write_text(
        "id: hostile-markup\n"
        "claim: Flooding in Paris on 14 March 2024 near the Ile de la Cite.\n"
        "context:\n"
        '  date: "2024-03-14"\n'
        "  location: Paris, France\n"
        "evidence:\n"
        "  - id: scraped-page\n"
        "    url: https://news.example.org/flood\n"
        f"    title: '{HOSTILE_TITLE}'\n"
        "    publisher: Example News\n"
        '    published: "2024-03-14"\n'
        "    source_type: news\n"
        "    reliability: 0.7\n"
        f'    text: "Heavy rain flooded Paris on 14 March 2024. {SCRIPT}"\n',
        encoding="utf-8",
    )
    return dest


def copy_example(dest: Path) -> Path:
    shutil.copytree(EXAMPLE, dest)
    return dest


def wait_job(client: Any, job_id: str, timeout: float = 240.0) -> dict[str, Any]:
    """Poll ``/api/jobs/<id>`` until the job finishes (``client``: TestClient or httpx)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job: dict[str, Any] = client.get(f"/api/jobs/{job_id}").json()
        if job["status"] in ("committed", "failed"):
            return job
        time.sleep(0.2)
    raise TimeoutError(f"job {job_id} did not finish in {timeout}s")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def serve(data_dir: Path, *args: str, timeout: float = 60.0) -> Iterator[str]:
    """``semv serve`` in a subprocess on a free loopback port; yields its base URL."""
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    log = (data_dir.parent / f"serve-{port}.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            *("-m", "semv", "serve", "--port", str(port), "--data-dir", str(data_dir)),
            *args,
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"semv serve exited with {proc.returncode}: see {log.name}")
            try:
                if httpx.get(base + "/api/health", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"semv serve did not start in {timeout}s")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
