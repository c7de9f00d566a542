"""Benchmarks: QBAF solve time, offline ``verify`` throughput, ..., and the whole-process
start-up, cold-verify, memory and LLM critical-path figures (``startup.py``). Prints tables.

Run with ``make bench``. The machines are shared and noisy, so every number is a median over
repeats, and the tables report ratios next to absolute times.

    python benchmarks/run.py [--repeats N] [--cases N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from semv.model import Relation, RelationKind, Stance
from semv.reasoning import Qbaf, claim_score, propagate

sys.path.insert(0, str(Path(__file__).resolve().parent))
import memory_bench
from forensics import main as bench_forensics

ROOT = Path(__file__).resolve().parents[1]
OOKPIK = ROOT.parent / "shared" / "data" / "ookpik-dev" / "dev_data.json"

console = Console()


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def star(n: int, rng: random.Random) -> tuple[Qbaf, list[float], list[float]]:
    q = Qbaf()
    q.add_argument("claim", 0.5)
    sups: list[float] = []
    atts: list[float] = []
    for i in range(n):
        w = rng.random()
        q.add_argument(f"a{i}", w)
        if i % 2:
            q.attack(f"a{i}", "claim")
            atts.append(w)
        else:
            q.support(f"a{i}", "claim")
            sups.append(w)
    return q, sups, atts


def layered_dag(n: int, rng: random.Random) -> Qbaf:
    """n arguments in layers of 10; each argument gets ≤ 3 edges from the layer below."""
    q = Qbaf()
    for i in range(n):
        q.add_argument(f"a{i}", rng.random())
    for i in range(10, n):
        layer = i // 10
        for j in rng.sample(range((layer - 1) * 10, layer * 10), k=3):
            (q.support if rng.random() < 0.5 else q.attack)(f"a{j}", f"a{i}")
    return q


def cyclic(n: int, rng: random.Random) -> Qbaf:
    """A ring of n arguments (alternating support/attack) plus random chords."""
    q = Qbaf()
    for i in range(n):
        q.add_argument(f"a{i}", rng.random())
    for i in range(n):
        (q.support if i % 2 else q.attack)(f"a{i}", f"a{(i + 1) % n}", 0.5)
    for i in range(n):
        j = rng.randrange(n)
        if j not in (i, (i + 1) % n, (i - 1) % n):
            with contextlib.suppress(ValueError):
                q.attack(f"a{i}", f"a{j}", 0.3)
    return q


def subclaim_graphs() -> list[tuple[str, tuple[Relation, ...]]]:
    """A six-argument subclaim as a star, with a metadata attack (acyclic, one forward pass)
    and with a corroboration (mutual: a 2-cycle, RK4), as ``qbaf:k`` solves it."""

    def rel(kind: RelationKind, src: int, dst: int) -> Relation:
        side = {0: "att", 1: "sup"}
        return Relation(
            id=f"rel:when:{kind.code}:1",
            subclaim="claim:when",
            kind=kind,
            src=f"arg:when:{side[src % 2]}:{src}",
            dst=f"arg:when:{side[dst % 2]}:{dst}",
            evidence=(),
            fact="benchmark",
        )

    return [
        ("subclaim star", ()),
        ("subclaim + metadata attack", (rel(RelationKind.METADATA_CONTRADICTION, 0, 1),)),
        ("subclaim + corroboration (RK4)", (rel(RelationKind.CORROBORATION, 1, 3),)),
    ]


def bench_qbaf(repeats: int) -> None:
    rng = random.Random(7)
    table = Table(title=f"QBAF solve time (median of {repeats})")
    for col in ("graph", "arguments", "semantics", "median ms", "× star-10"):
        table.add_column(col, justify="right" if col != "graph" else "left")
    base: float | None = None
    for n in (10, 100, 1000):
        q, sups, atts = star(n, rng)
        t = median_seconds(lambda q=q: q.solve(semantics="quadratic-energy"), repeats)
        base = base or t
        assert abs(q.solve()["claim"] - claim_score(sups, atts, 0.5)) < 1e-9
        table.add_row("star", str(n), "quadratic-energy", f"{t * 1e3:.3f}", f"{t / base:.1f}")
    for n in (100, 1000):
        q = layered_dag(n, rng)
        for sem in ("quadratic-energy", "df-quad", "euler"):
            t = median_seconds(lambda q=q, sem=sem: q.solve(semantics=sem), repeats)
            table.add_row("layered DAG", str(n), sem, f"{t * 1e3:.3f}", f"{t / base:.1f}")
    for name, relations in subclaim_graphs():
        weights = {f"arg:when:{'sup' if i % 2 else 'att'}:{i}": 0.3 + 0.1 * i for i in range(6)}
        stances = {k: Stance.SUPPORT if ":sup:" in k else Stance.ATTACK for k in weights}
        t = median_seconds(
            lambda w=weights, st=stances, r=relations: propagate("claim:when", 0.5, w, st, r),
            repeats,
        )
        table.add_row(name, "6", "quadratic-energy", f"{t * 1e3:.3f}", f"{t / base:.1f}")
    for n in (10, 100):
        q = cyclic(n, rng)
        t = median_seconds(lambda q=q: q.solve(semantics="quadratic-energy"), max(3, repeats // 5))
        table.add_row(
            "cyclic (RK4)", str(n), "quadratic-energy", f"{t * 1e3:.3f}", f"{t / base:.1f}"
        )
    console.print(table)


def bench_verify(cases: int) -> None:
    if not OOKPIK.is_file():
        console.print(f"[yellow]skipped verify throughput: {OOKPIK} not found[/]")
        return
    from semv.adapters import COSMOS_CONTRACT, get_adapter
    from semv.agents.offline import OfflineAgents
    from semv.config import Settings
    from semv.eval import evaluate
    from semv.store import Store

    loaded = list(get_adapter("cosmos").load(OOKPIK, text_only=True, limit=cases))
    settings = Settings.shipped()
    agents = OfflineAgents(settings)
    table = Table(title=f"offline verify throughput, OOKPIK dev text-only ({len(loaded)} cases)")
    for col in ("pass", "cases", "seconds", "cases/s", "stages run", "stages reused"):
        table.add_column(col, justify="right" if col != "pass" else "left")
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "store")
        for name in ("cold (empty cache)", "warm (identical rerun)"):
            start = time.perf_counter()
            outcomes = asyncio.run(
                evaluate(
                    loaded,
                    store=store,
                    settings=settings,
                    agents=agents,
                    contract=COSMOS_CONTRACT,
                    reports_dir=Path(tmp) / "reports",
                )
            )
            secs = time.perf_counter() - start
            table.add_row(
                name,
                str(len(outcomes)),
                f"{secs:.2f}",
                f"{len(outcomes) / secs:.1f}",
                str(sum(o.executed for o in outcomes)),
                str(sum(o.reused for o in outcomes)),
            )
        store.close()
    console.print(table)


def bench_contest(repeats: int) -> None:
    """Module E: a single-argument scoped revision against a global rerun of the same case."""
    from semv._api import load_cases
    from semv.agents.offline import OfflineAgents
    from semv.config import Settings
    from semv.contest import Policy, revise
    from semv.model import Reject
    from semv.pipeline import run_case
    from semv.store import Store

    example = ROOT / "examples" / "lyon-flood"
    settings = Settings.shipped()
    agents = OfflineAgents(settings)
    action = [Reject(target="arg:when:att:2", reason="benchmark: reject one argument")]
    table = Table(title=f"contestation: one rejected argument, median of {repeats}")
    for col in (
        "policy",
        "median s",
        "× global time",
        "stage transitions",
        "avoided",
        "stage compute s",
    ):
        table.add_column(col, justify="right" if col != "policy" else "left")
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "store")
        contract, cases = load_cases(example)
        first = asyncio.run(
            run_case(
                cases[0].case,
                store=store,
                settings=settings,
                agents=agents,
                contract=contract,
                reports_dir=Path(tmp) / "reports",
            )
        )
        rows: dict[Policy, tuple[float, int, float, float]] = {}
        for policy in (Policy.GLOBAL, Policy.CAUSAL, Policy.SCOPED):
            times: list[float] = []
            computes: list[float] = []
            executed, avoided = 0, 0.0
            for _ in range(repeats):
                start = time.perf_counter()
                rev = asyncio.run(
                    revise(
                        store,
                        first.result.run_id,
                        action,
                        settings=settings,
                        agents=agents,
                        policy=policy,
                        reports_dir=Path(tmp) / "reports",
                    )
                )
                times.append(time.perf_counter() - start)
                executed, avoided = len(rev.locality.executed), rev.locality.avoided
                computes.append(sum(n.seconds for n in store.run_nodes(rev.run_id) if not n.reused))
            rows[policy] = (
                statistics.median(times),
                executed,
                avoided,
                statistics.median(computes),
            )
        store.close()
    base = rows[Policy.GLOBAL][0]
    for policy, (secs, executed, avoided, compute) in rows.items():
        table.add_row(
            policy.value,
            f"{secs:.3f}",
            f"{secs / base:.2f}",
            str(executed),
            f"{avoided:.0%}",
            f"{compute:.3f}",
        )
    console.print(table)
    console.print(
        "  wall time includes the store writes every node makes (executed or reused); the "
        "stage compute column is the time spent inside the executed stages"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=25)
    parser.add_argument("--cases", type=int, default=145)
    parser.add_argument("--media-repeats", type=int, default=3)
    args = parser.parse_args(argv)
    bench_qbaf(args.repeats)
    bench_verify(args.cases)
    bench_forensics([])
    memory_bench.main(["--repeats", str(args.repeats)])
    bench_contest(max(3, args.repeats // 5))
    from media import bench_media  # benchmarks/media.py (this folder is on sys.path)

    bench_media(args.media_repeats)
    from eval_bench import bench_runner, bench_scoring  # benchmarks/eval_bench.py

    bench_scoring(max(1, args.repeats // 5))
    bench_runner(min(args.cases, 40))
    from eval_bench import bench_remmd_procedures

    bench_remmd_procedures(5)
    from retrieval import bench as bench_retrieval  # benchmarks/retrieval.py

    bench_retrieval([10_000, 100_000], n_queries=200, rerank_queries=0)
    from llm_latency import bench_llm_latency  # benchmarks/ is on sys.path when run as a script

    bench_llm_latency()
    from llm_tokens import bench_llm_tokens  # benchmarks/llm_tokens.py

    bench_llm_tokens()
    from web_latency import bench_web  # benchmarks/web_latency.py

    bench_web()
    import startup  # benchmarks/startup.py: whole-process start-up figures

    startup.main(["--repeats", str(max(3, args.repeats // 8))])
    import scale_bench  # benchmarks/scale_bench.py: workers, Ray, restart

    scale_bench.main(["--cases", str(args.cases)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
