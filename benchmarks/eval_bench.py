"""Benchmarks of the evaluation harness: scoring published predictions, the cluster bootstrap,
and runner throughput with 1 and 2 workers, and seconds per case of each procedure on the
published ReMMD runs. Prints tables (part of ``make bench``).

    python benchmarks/eval_bench.py [--repeats N] [--cases N] [--remmd-cases N]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from semv.eval._harness import EvalPlan

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
REMMD_RUNS = SHARED / "remmd-agent-runs" / "qwen3.5-9b"
OOKPIK = SHARED / "ookpik-dev" / "dev_data.json"

console = Console()


def _median(fn: object, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_scoring(repeats: int) -> None:
    from semv.config import Settings
    from semv.eval import cluster_bootstrap, get_task, read_predictions

    table = Table(title=f"evaluation scoring (median of {repeats})")
    for col in ("step", "items", "median s"):
        table.add_column(col, justify="right" if col != "step" else "left")
    if REMMD_RUNS.is_dir():
        found = read_predictions(REMMD_RUNS, "remmd-results")
        no_bootstrap = Settings.shipped().eval.model_copy(update={"bootstrap_replicates": 1})
        t_read = _median(lambda: read_predictions(REMMD_RUNS, "remmd-results"), repeats)
        t_score = _median(lambda: get_task("remmd").score(found.records, no_bootstrap), repeats)
        table.add_row(
            "read ReMMD-Agent result.json files", str(len(found.records)), f"{t_read:.3f}"
        )
        table.add_row("ReMMD L1 + L2 metrics", str(len(found.records)), f"{t_score:.4f}")
    else:
        console.print(f"[yellow]skipped ReMMD scoring: {REMMD_RUNS} not found[/]")
    outcomes = [i % 3 != 0 for i in range(500)]
    clusters = [str(i // 5) for i in range(500)]
    t_boot = _median(
        lambda: cluster_bootstrap(
            outcomes, clusters, lambda xs: sum(xs) / len(xs), replicates=10_000
        ),
        max(1, repeats // 5),
    )
    table.add_row("cluster bootstrap, 10,000 replicates (100 clusters)", "500", f"{t_boot:.2f}")
    console.print(table)


def _timed_plan(plan: EvalPlan, *, workers: int = 1) -> tuple[float, int]:
    """Seconds to run ``plan`` through the harness on a fresh store (every stage executes)
    with the offline backend, and how many cases it ran."""
    from semv.agents.offline import OfflineAgents
    from semv.config import Settings
    from semv.eval._harness import load_plan_cases, open_results, run_plan
    from semv.store import Store

    settings = Settings.shipped()
    task, contract, loaded = load_plan_cases(plan)
    with tempfile.TemporaryDirectory() as tmp:
        agents = OfflineAgents(settings)
        out = Path(tmp) / "out"
        log, _ = open_results(out, plan, settings, agents, resume=False)
        store = Store(Path(tmp) / "store")
        start = time.perf_counter()
        try:
            asyncio.run(
                run_plan(
                    loaded,
                    task=task,
                    contract=contract,
                    store=store,
                    settings=settings,
                    agents=agents,
                    log=log,
                    done=set(),
                    out_dir=out,
                    workers=workers,
                    procedure=plan.procedure,
                )
            )
            return time.perf_counter() - start, len(loaded)
        finally:
            log.close()
            store.close()


def _timed_fresh(plan: EvalPlan) -> tuple[float, int]:
    """``_timed_plan`` in a fresh process: the encoder and the spaCy pipeline are loaded first,
    untimed, so only the verification is measured."""
    from semv.nlp.embeddings import embed
    from semv.nlp.parsing import parse

    embed("warm-up")
    parse("warm-up")
    return _timed_plan(plan)


def bench_runner(cases: int) -> None:
    if not OOKPIK.is_file():
        console.print(f"[yellow]skipped runner throughput: {OOKPIK} not found[/]")
        return
    from semv.eval._harness import EvalPlan

    plan = EvalPlan("cosmos", OOKPIK, limit=cases, text_only=True)
    table = Table(title=f"eval runner throughput, OOKPIK text-only ({cases} cases, empty store)")
    for col in ("workers", "seconds", "cases/s"):
        table.add_column(col, justify="right")
    # 0: an untimed pass over the same cases first, so that model loading and the in-process
    # text-extraction caches do not favour whichever timed pass runs second; every timed pass
    # has a fresh store, so all stages execute
    for workers in (0, 1, 2):
        secs, n = _timed_plan(plan, workers=max(1, workers))
        if workers == 0:
            continue
        table.add_row(str(workers), f"{secs:.2f}", f"{n / secs:.1f}")
    console.print(table)


def bench_remmd_procedures(cases: int) -> None:
    """Per registered procedure: seconds per case of ``semv eval remmd`` on N published
    ReMMD-Agent samples (text-only, evenly spaced, empty store each), and what the 500 take."""
    if not REMMD_RUNS.is_dir():
        console.print(f"[yellow]skipped ReMMD procedures: {REMMD_RUNS} not found[/]")
        return
    from semv.eval._harness import EvalPlan
    from semv.procedures import procedure_names

    table = Table(title=f"semv eval remmd, published runs text-only ({cases} cases, empty store)")
    for col in ("procedure", "seconds", "s/case", "500 cases (min)"):
        table.add_column(col, justify="right")
    # each procedure in a fresh process: the in-process caches (embeddings, parses of the same
    # texts) would otherwise favour every procedure that runs after another on the same cases
    spawn = multiprocessing.get_context("spawn")
    for name in procedure_names():
        plan = EvalPlan("remmd", REMMD_RUNS, text_only=True, procedure=name, sample=cases)
        with ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool:
            secs, ran = pool.submit(_timed_fresh, plan).result()
        per_case = secs / ran
        table.add_row(name, f"{secs:.1f}", f"{per_case:.2f}", f"{per_case * 500 / 60:.0f}")
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--remmd-cases", type=int, default=5)
    args = parser.parse_args(argv)
    bench_scoring(args.repeats)
    bench_runner(args.cases)
    bench_remmd_procedures(args.remmd_cases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
