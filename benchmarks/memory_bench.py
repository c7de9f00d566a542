"""Module F benchmarks: ``recall:k`` retrieval latency over 10k and 100k active records, and
one consolidation pass over 1,000 staged candidates (real SQLite store). Prints tables.

    python benchmarks/memory_bench.py [--repeats N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from semv.config import Settings
from semv.memory import (
    Action,
    Candidate,
    Diagnosis,
    MemoryIndex,
    MemoryStore,
    MemoryType,
    Record,
    Status,
    consolidate,
)
from semv.model import Dimension, Subclaim
from semv.store import Store

console = Console()

WORDS = [
    "flood",
    "protest",
    "election",
    "caption",
    "photo",
    "video",
    "street",
    "city",
    "crowd",
    "police",
    "fire",
    "storm",
    "earthquake",
    "rally",
    "minister",
    "festival",
    "bridge",
    "river",
    "market",
    "school",
    "hospital",
    "airport",
    "stadium",
    "parade",
    "march",
    "strike",
    "border",
    "ship",
    "train",
    "refugee",
    "soldier",
    "vote",
    "court",
]


def _records(n: int, rng: random.Random) -> list[Record]:
    dims = [d.value for d in Dimension]
    out: list[Record] = []
    for i in range(n):
        words = " ".join(rng.sample(WORDS, 8))
        dim = dims[i % len(dims)]
        out.append(
            Record(
                id=f"mem:fail:{i:06d}",
                type=MemoryType.FAILURE,
                status=Status.ACTIVE,
                key=f"cosmos|{dim}|add-check|k={i}",
                lesson=f"Captions about {words} need an earlier-caption check.",
                task="cosmos",
                dimension=dim,
                trigger={"evidence": rng.choice(["same-media-caption", "fact-check", "news"])},
                action=Action.ADD_CHECK.value,
                checks=(f"check {words}",),
                alpha=1.0 + rng.random() * 3,
                beta=1.0 + rng.random(),
                n_support=rng.randint(1, 6),
                cases=tuple(f"c{j}" for j in range(rng.randint(1, 6))),
            )
        )
    return out


def bench_retrieval(repeats: int) -> None:
    settings = Settings.shipped()
    rng = random.Random(7)
    table = Table(
        "active records",
        "build s",
        "median ms / query",
        "p95 ms",
        "returned (K_m)",
        title="recall:k retrieval latency (one subclaim query)",
    )
    for n in (10_000, 100_000):
        records = _records(n, rng)
        start = time.perf_counter()
        index = MemoryIndex.build(records, settings.memory)
        build = time.perf_counter() - start
        times: list[float] = []
        found = 0
        for q in range(repeats):
            words = " ".join(rng.sample(WORDS, 6))
            sub = Subclaim(
                id="claim:why",
                dimension=Dimension.WHY,
                statement=f"The caption places the {words} in its claimed context",
                claim_type="context",
                asserted=True,
            )
            t0 = time.perf_counter()
            hits = index.search(
                task="cosmos",
                subclaim=sub,
                claim=f"{words} photo {q}",
                pattern={"evidence=same-media-caption"},
            )
            times.append(time.perf_counter() - t0)
            found = max(found, len(hits))
        times.sort()
        table.add_row(
            f"{n:,}",
            f"{build:.2f}",
            f"{1000 * statistics.median(times):.1f}",
            f"{1000 * times[int(0.95 * (len(times) - 1))]:.1f}",
            str(found),
        )
    console.print(table)


def bench_consolidation(n: int = 1000) -> None:
    settings = Settings.shipped()
    rng = random.Random(11)
    table = Table(
        "candidates",
        "keys",
        "stage s",
        "consolidate s",
        "cand. promoted",
        "cand. merged",
        "cand. conflict",
        "records",
        title="consolidation (Eq. 27-29) on a SQLite store",
    )
    with tempfile.TemporaryDirectory() as tmp:
        ms = MemoryStore(Store(Path(tmp) / "s"), "bench")
        keys = 50
        start = time.perf_counter()
        for i in range(n):
            k = i % keys
            edge = 0.3 + 0.1 * (k % 3)
            cand = Candidate(
                id=f"cand:{i:05d}",
                type=MemoryType.FAILURE,
                diagnosis=Diagnosis.LABEL_MISMATCH,
                lesson=f"Lesson {k}: captions of the same media below {edge:.2f} need a check.",
                task="cosmos",
                dimension="why",
                trigger={"evidence": "same-media-caption", "k": str(k)},
                pattern={"similarity": edge - 0.05},
                action=Action.CONTEXT_THRESHOLD.value,
                params={"threshold": edge},
                polarity=-1 if i % 10 == 9 else 1,
                evidence=("ev:sup:caption2",),
                arguments=(),
                source_case=f"learn:{i}",
                source_run=f"r{i}",
                source_fingerprint=f"fp{rng.randint(0, n // 2)}",
                confidence=0.6 + 0.4 * rng.random(),
                supervision="gold",
                reflector="bench",
            )
            ms.stage(cand, "verified", "bench", i)
        staged = time.perf_counter() - start
        start = time.perf_counter()
        counts = consolidate(ms, settings.memory, learn_count=n)
        took = time.perf_counter() - start
        table.add_row(
            f"{n:,}",
            str(keys),
            f"{staged:.2f}",
            f"{took:.2f}",
            str(counts.promoted),
            str(counts.merged),
            str(counts.conflict),
            str(len(ms.records())),
        )
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=25)
    args = parser.parse_args(argv)
    bench_retrieval(args.repeats)
    bench_consolidation()
    return 0


if __name__ == "__main__":
    sys.exit(main())
