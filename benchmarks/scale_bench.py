"""Scale-out benchmarks (part of ``make bench``):

- ``semv eval cosmos`` on OOKPIK dev, text-only, offline backend: ``--workers 2`` ÷
  ``--workers 1`` throughput, and ``--ray`` with 2 local workers ÷ ``--workers 1``, each a fresh
  ``semv`` process on an empty store (process start, model loading and Ray start included),
  with a check that every configuration gives the same metrics;
- ``semv serve`` killed (SIGKILL) right after it accepted two jobs, then started again: do the
  jobs finish, and how long after the restart.

The machine may be shared: the ratios assume the two cores are free.

    python benchmarks/scale_bench.py [--cases N] [--skip-ray]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
OOKPIK = ROOT.parent / "shared" / "data" / "ookpik-dev" / "dev_data.json"
sys.path.insert(0, str(ROOT))

console = Console()


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def _eval(tmp: Path, name: str, cases: int, *extra: str) -> tuple[float, dict[str, Any]]:
    command = [
        sys.executable, "-m", "semv", "eval", "cosmos", str(OOKPIK), "--text-only",
        "--limit", str(cases), "--json", "--out", str(tmp / name),
        "--data-dir", str(tmp / f"{name}-store"), *extra,
    ]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(command, env=_env(), capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    metrics = json.loads(done.stdout)
    return seconds, {k: v for k, v in metrics.items() if k != "median_seconds"}


def bench_parallel(cases: int, *, ray: bool = True) -> None:
    if not OOKPIK.is_file():
        console.print(f"[yellow]skipped parallel eval: {OOKPIK} not found[/]")
        return
    table = Table(
        title=f"semv eval cosmos, OOKPIK dev text-only, {cases} cases, {os.cpu_count()} cores "
        "(fresh process and empty store each)"
    )
    for col in ("configuration", "seconds", "cases/s", "÷ 1 worker", "same metrics"):
        table.add_column(col, justify="right" if col != "configuration" else "left")
    configurations = [("--workers 1", ()), ("--workers 2", ("--workers", "2"))]
    if ray:
        configurations.append(("--ray, 2 local workers", ("--ray", "--workers", "2")))
    with tempfile.TemporaryDirectory() as tmp:
        base: tuple[float, dict[str, Any]] | None = None
        for i, (name, extra) in enumerate(configurations):
            seconds, metrics = _eval(Path(tmp), f"c{i}", cases, *extra)
            base = base or (seconds, metrics)
            table.add_row(
                name,
                f"{seconds:.1f}",
                f"{cases / seconds:.2f}",
                f"{base[0] / seconds:.2f}x",
                "yes" if metrics == base[1] else "NO",
            )
    console.print(table)


def bench_restart() -> None:
    from tests.web_helpers import hostile_case, serve, wait_job, zip_folder

    table = Table(title="semv serve killed (SIGKILL) with two jobs accepted, then restarted")
    for col in ("job", "state when killed", "after restart", "seconds after restart"):
        table.add_column(col)
    token = "bench-token"
    auth = {"Authorization": f"Bearer {token}"}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "store"
        ids = []
        with serve(data, "--auth-token", f"bench:{token}") as base:
            for i in range(2):
                folder = hostile_case(Path(tmp) / f"case{i}")
                yaml = folder / "case.yaml"
                yaml.write_text(yaml.read_text().replace("hostile-markup", f"restart-{i}"))
                r = httpx.post(
                    base + "/api/cases",
                    files={"files": ("c.zip", zip_folder(folder), "application/zip")},
                    data={"text_only": "true"},
                    headers=auth,
                    timeout=60,
                )
                r.raise_for_status()
                ids.append(r.json()["jobs"][0]["job_id"])
            before = [httpx.get(f"{base}/api/jobs/{j}").json()["status"] for j in ids]
            _kill(base)
        with serve(data, "--auth-token", f"bench:{token}") as base:
            start = time.perf_counter()
            client = httpx.Client(base_url=base, timeout=30)
            for job_id, state in zip(ids, before, strict=True):
                job = wait_job(client, job_id)
                table.add_row(job_id, state, job["status"], f"{time.perf_counter() - start:.1f}")
    console.print(table)


def _kill(base: str) -> None:
    port = base.rsplit(":", 1)[1].encode()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"serve" in cmd and port in cmd:
                os.kill(int(pid), 9)
                time.sleep(0.5)
                return
    raise RuntimeError(f"no semv serve on port {port!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=145)
    parser.add_argument("--skip-ray", action="store_true")
    args = parser.parse_args(argv)
    bench_parallel(args.cases, ray=not args.skip_ray)
    bench_restart()
    return 0


if __name__ == "__main__":
    sys.exit(main())
