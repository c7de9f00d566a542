"""Wall time vs critical path of ``semv verify`` on the LLM backend, against the scripted
OpenAI-compatible server (tests/llm_server.py) answering every call after a fixed latency.

The critical path is implied by the measured per-call latencies and the stage graph
(``semv.usage``): with independent calls running concurrently, wall / critical should stay
close to 1 (the issue's target: within 1.2×). Prints a table.

    python benchmarks/llm_latency.py [--latency 0.2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from semv._api import load_cases  # noqa: E402
from semv.agents.llm import LlmAgents  # noqa: E402
from semv.config import BackendConfig, LlmConfig, Settings  # noqa: E402
from semv.model import Usage  # noqa: E402
from semv.pipeline import run_case  # noqa: E402
from semv.store import Store  # noqa: E402

console = Console()
EXAMPLE = ROOT / "examples" / "lyon-flood"


def one_run(url: str, text_only: bool, concurrency: int) -> Usage:
    settings = Settings.shipped().model_copy(
        update={
            "agents": BackendConfig(backend="llm"),
            "llm": LlmConfig(url=url, model="scripted", concurrency=concurrency),
        }
    )
    contract, cases = load_cases(EXAMPLE, text_only=text_only)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp))
        try:
            outcome = asyncio.run(
                run_case(
                    cases[0].case,
                    store=store,
                    settings=settings,
                    agents=LlmAgents(settings, store=store),
                    contract=contract,
                    reports_dir=Path(tmp) / "reports",
                    max_concurrency=concurrency,
                )
            )
        finally:
            store.close()
    assert outcome.result.usage is not None
    return outcome.result.usage


@contextlib.contextmanager
def scripted_server(latency: float) -> Iterator[str]:
    """tests/llm_server.py in its own process (so it does not share this interpreter's GIL)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.llm_server", "--port", str(port), "--latency", str(latency)],
        cwd=ROOT,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("scripted server did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def bench_llm_latency(latency: float = 0.2, repeats: int = 3) -> None:
    table = Table(
        "case", "concurrency", "calls/case", "Σ latency s", "model path s", "critical path s",
        "wall s", "wall/critical",
        title=f"LLM backend, scripted server with {latency * 1000:.0f} ms per call "
        f"(median of {repeats})",
    )  # fmt: skip
    with scripted_server(latency) as url:
        one_run(url, True, 16)  # warm-up: NLP resources load once per process
        for text_only, concurrency in ((True, 16), (False, 16), (True, 8), (True, 1)):
            runs = [one_run(url, text_only, concurrency) for _ in range(repeats)]
            med = {
                "calls": statistics.median(u.calls for u in runs),
                "serial": statistics.median(
                    sum(r.latency_s for r in u.roles.values()) for u in runs
                ),
                "model": statistics.median(u.model_critical_path_s for u in runs),
                "crit": statistics.median(u.critical_path_s for u in runs),
                "wall": statistics.median(u.wall_s for u in runs),
                "ratio": statistics.median(u.wall_s / u.critical_path_s for u in runs),
            }
            table.add_row(
                "lyon-flood" + (" (text only)" if text_only else " (with photo)"),
                str(concurrency),
                f"{med['calls']:.0f}",
                f"{med['serial']:.2f}",
                f"{med['model']:.2f}",
                f"{med['crit']:.2f}",
                f"{med['wall']:.2f}",
                f"{med['ratio']:.2f}",
            )
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    bench_llm_latency(args.latency, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
