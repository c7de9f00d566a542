"""Every command block of README.md and docs/*.md runs as pasted.

The ``bash`` blocks (and README's ``python`` blocks) are extracted in document order and run,
one file after another, with ``bash -e`` in one temporary workspace: ``.venv/bin/semv`` and
``python3`` there run this checkout's sources with the test's interpreter, ``examples/``,
``docs/``, ``src/``, ``benchmarks/`` and ``scripts/`` link to the repository's (so a block's
``PYTHONPATH=src .venv/bin/python benchmarks/...`` runs this checkout's code), and the data
directory is the workspace's own ``.semv``.
So a block can use what an earlier block of its file made (a verified run, an index), as a
reader following the page would.

The workspace sits beside a ``shared`` link to the repository's ``../shared``, so a block that
reads ``../shared/data/...`` runs as in a checkout next to the shared data; without that folder
(a user's clone) such a block is skipped with that reason. A block marked
``<!-- docs-test: with-server -->`` runs while ``semv serve`` listens on 127.0.0.1 (a free port,
given to the block as ``SEMV_URL``; the tokens of README's ``SEMV_AUTH_TOKEN`` example), and
the server is stopped after it.

A block the test cannot run says why in the line above it:
``<!-- docs-test: skip: REASON -->`` (it needs a data set that is not public, a server that
runs until stopped, root, a network or an API key). A skip marker without a reason, or a
runnable block whose command fails, fails here.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
_FENCE = re.compile(r"^```(\w*)\s*$")
_SKIP = re.compile(r"^<!--\s*docs-test:\s*skip:?\s*(.*?)\s*-->$")
_SERVER = re.compile(r"^<!--\s*docs-test:\s*with-server\s*-->$")
_RUNNABLE = {"bash", "python"}
_TIMEOUT_S = 600
SHARED = ROOT.parent / "shared"
_SHARED_DATA = "../shared/data"
#: the reviewers' tokens of README's ``SEMV_AUTH_TOKEN=... semv serve`` line
_SERVER_TOKENS = "alice:s3cret,bob:t0ken"
_SERVER_START_S = 120.0


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int
    lang: str
    text: str
    skip: str | None
    server: bool = False

    @property
    def name(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def blocks(doc: Path) -> list[Block]:
    """The fenced blocks of ``doc`` in a runnable language, with their skip reasons."""
    found: list[Block] = []
    lines = doc.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        start, lang = i, m.group(1)
        i += 1
        body: list[str] = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        if lang not in _RUNNABLE or (lang == "python" and doc.name != "README.md"):
            continue
        above = next((x.strip() for x in reversed(lines[:start]) if x.strip()), "")
        marker = _SKIP.match(above)
        found.append(
            Block(
                doc,
                start + 1,
                lang,
                "\n".join(body) + "\n",
                marker.group(1) if marker else None,
                server=_SERVER.match(above) is not None,
            )
        )
    return found


ALL = [b for doc in DOCS for b in blocks(doc)]


def test_every_skipped_block_says_why() -> None:
    assert ALL, "no command blocks found"
    unexplained = [b.name for b in ALL if b.skip == ""]
    assert not unexplained, f"skip markers without a reason: {unexplained}"


def test_no_block_uses_shorthand_that_fails_when_pasted() -> None:
    """``a | b | c`` alternatives and ``[--flag]`` optional parts are prose, not commands."""
    shorthand = re.compile(r"\s\|\s*(export|import|thaw|hash)\b|\w\|\w+\|\w|\s\[--")
    bad = [
        f"{b.name}: {line.strip()}"
        for b in ALL
        if b.lang == "bash" and b.skip is None
        for line in b.text.splitlines()
        if shorthand.search(line.split("#", 1)[0])
    ]
    assert not bad, bad


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A folder that looks like the repository root to a reader's shell."""
    root = tmp_path_factory.mktemp("docs-workspace") / "repo"
    root.mkdir()
    if SHARED.is_dir():
        (root.parent / "shared").symlink_to(SHARED)
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, args in (("semv", "-m semv"), ("python3", ""), ("python", "")):
        script = bin_dir / name
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" {args} "$@"\n', encoding="utf-8")
        script.chmod(0o755)
    for name in ("examples", "docs", "src", "benchmarks", "scripts"):
        (root / name).symlink_to(ROOT / name)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SEMV_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(ROOT / "src"),
        HOME=str(root),
        COLUMNS="120",
    )
    return root, env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _serving(root: Path, env: dict[str, str]) -> Iterator[str]:
    """``semv serve`` on 127.0.0.1 in the workspace until the block is done; yields its URL."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    argv = [str(root / ".venv" / "bin" / "semv"), "serve", "--host", "127.0.0.1"]
    log = root / f"serve-{port}.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [*argv, "--port", str(port)],
            cwd=root,
            env={**env, "SEMV_AUTH_TOKEN": _SERVER_TOKENS},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + _SERVER_START_S
        while True:
            if server.poll() is not None:
                pytest.fail(f"semv serve exited {server.returncode}:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{url}/api/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"semv serve not ready after {_SERVER_START_S:g} s")
            time.sleep(0.25)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.mark.slow
@pytest.mark.parametrize("block", ALL, ids=[b.name for b in ALL])
def test_the_block_runs_as_pasted(block: Block, workspace: tuple[Path, dict[str, str]]) -> None:
    if block.skip is not None:
        pytest.skip(block.skip)
    if _SHARED_DATA in block.text and not (SHARED / "data").is_dir():
        pytest.skip(f"reads {_SHARED_DATA}, which is absent (no ../shared beside this checkout)")
    root, env = workspace
    with _serving(root, env) if block.server else nullcontext("") as url:
        done = _run(block, root, {**env, "SEMV_URL": url} if url else env)
    assert done.returncode == 0, (
        f"{block.name} exited {done.returncode}\n--- block\n{block.text}--- stdout (tail)\n"
        f"{done.stdout[-3000:]}\n--- stderr (tail)\n{done.stderr[-3000:]}"
    )


def _run(block: Block, root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    if block.lang == "bash":
        argv = ["bash", "-e", "-o", "pipefail", "-c", block.text]
    else:
        argv = [str(root / ".venv" / "bin" / "python3"), "-c", block.text]
    return subprocess.run(
        argv,
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        check=False,
    )
