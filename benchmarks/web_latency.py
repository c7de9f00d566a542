"""Web API latency: p50/p95 of the result, report and contest endpoints under concurrent
clients on loopback, against ``semv serve`` (a real subprocess) with the offline backend.

A bounded number of requests per endpoint (every contest request is a real revision: a new
run in the store). Clients authenticate with a bearer token, as a desk's tools would.

    python benchmarks/web_latency.py [--clients 20] [--requests 200] [--contests 60]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.web_helpers import EXAMPLE, serve  # noqa: E402

console = Console(width=120)
TOKEN = "bench-token"


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _load(
    base: str, method: str, path: str, body: object, n: int, clients: int
) -> tuple[list[float], float, int]:
    """``n`` requests from ``clients`` concurrent clients; latencies, wall time, failures."""
    latencies: list[float] = []
    failures = 0
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(n):
        queue.put_nowait(i)
    headers = {"Authorization": f"Bearer {TOKEN}"}

    async def client() -> None:
        nonlocal failures
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=300) as http:
            while not queue.empty():
                i = queue.get_nowait()
                payload = body(i) if callable(body) else body
                start = time.perf_counter()
                r = await http.request(method, path, json=payload)
                latencies.append(time.perf_counter() - start)
                failures += r.status_code >= 400

    start = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, time.perf_counter() - start, failures


def _first_run(data_dir: Path) -> str:
    from semv._api import verify

    return verify(EXAMPLE, data_dir=data_dir).run_id


def bench_web(clients: int = 20, requests: int = 200, contests: int = 60) -> None:
    with tempfile.TemporaryDirectory(prefix="semv-web-bench-") as tmp:
        data_dir = Path(tmp) / "store"
        run_id = _first_run(data_dir)
        with serve(data_dir, "--auth-token", f"bench:{TOKEN}") as base:
            targets = ("arg:when:att:1", "arg:when:att:2", "arg:where:att:1", "arg:who:sup:1")

            def batch(i: int) -> dict[str, object]:
                target = targets[i % len(targets)]
                return {"actions": [{"op": "reject", "target": target, "reason": f"bench {i}"}]}

            endpoints = (
                ("result", "GET", f"/api/runs/{run_id}", None, requests),
                ("report (html)", "GET", f"/api/runs/{run_id}/report?format=html", None, requests),
                ("case page", "GET", f"/runs/{run_id}", None, requests),
                ("contest (revision)", "POST", f"/api/runs/{run_id}/contest", batch, contests),
            )
            # warm-up: agents and caches of the server's worker threads
            for _name, method, path, body, _n in endpoints:
                asyncio.run(_load(base, method, path, body, 2, 1))
            table = Table(
                title=f"web API latency: {clients} concurrent clients on loopback, offline backend"
            )
            columns = ("endpoint", "requests", "1 client p50 ms", "p50 ms", "p95 ms", "max ms")
            for col in (*columns, "req/s", "errors"):
                table.add_column(col, justify="left" if col == "endpoint" else "right")
            for name, method, path, body, n in endpoints:
                alone, _, _ = asyncio.run(_load(base, method, path, body, max(5, n // 10), 1))
                lat, wall, failures = asyncio.run(_load(base, method, path, body, n, clients))
                table.add_row(
                    name,
                    str(n),
                    f"{statistics.median(alone) * 1000:.1f}",
                    f"{statistics.median(lat) * 1000:.1f}",
                    f"{_quantile(lat, 0.95) * 1000:.1f}",
                    f"{max(lat) * 1000:.1f}",
                    f"{n / wall:.1f}",
                    str(failures),
                )
    console.print(table)
    console.print(
        "1 client p50: the same endpoint with one sequential client (service time). Contest "
        "requests are real revisions, run one at a time on the contest worker thread "
        "(web.contest_workers = 1): their latency under load is mostly queueing."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--contests", type=int, default=60)
    args = parser.parse_args(argv)
    bench_web(args.clients, args.requests, args.contests)
    return 0


if __name__ == "__main__":
    sys.exit(main())
