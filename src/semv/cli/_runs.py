"""``semv verify``, ``semv show`` and ``semv runs``: verify cases, inspect committed runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from semv._procedure_names import DEFAULT_PROCEDURE, PROCEDURE_NAMES
from semv.cli._case import AllowPrivateFlag, build_link_case, is_link, link_case_folder
from semv.cli._common import (
    DEFAULT_DATA_DIR,
    BackendOpt,
    BeforeOpt,
    ConfigFile,
    CorpusDb,
    DataDir,
    InputAdapterOpt,
    JsonFlag,
    LlmModelOpt,
    LlmUrlOpt,
    ProcedureOpt,
    ReplayFlag,
    ReportsOut,
    RunIdArg,
    SourceOpt,
    StoreUrl,
    TextOnlyFlag,
    err,
    fail,
    open_store,
    out,
    progress,
    settings_from,
)
from semv.cli._lazy import usage
from semv.errors import InputError, SemvError

if TYPE_CHECKING:
    from rich.progress import Progress

    from semv.adapters import LoadedCase
    from semv.config import Settings
    from semv.model import Case

__all__ = ["runs", "show", "verify"]


def _refuse_bombs(cases: list[LoadedCase], settings: Settings) -> None:
    """Raise ``InputError`` naming the first image of ``cases`` whose header declares more
    pixels than ``media.max_pixels`` (a decompression bomb), before any run starts. Other
    unreadable media stay what the run reports them as: uncertainty items."""
    from semv.model import MediaKind
    from semv.perception.readable import refuse_bomb

    for loaded in cases:
        for asset in loaded.case.media:
            if asset.kind is MediaKind.IMAGE and asset.loaded:
                refuse_bomb(Path(asset.path), settings.media.max_pixels)


@usage("CASE | --resume RUN")
def verify(
    case: Annotated[
        str | None,
        typer.Argument(
            metavar="CASE",
            help="A case folder (case.yaml/json), a dataset file, or a link (http(s)://… or "
            "file:///… of a saved page: its case is built under DATA_DIR/cases/ first). "
            "Required unless --resume RUN.",
            show_default=False,
        ),
    ] = None,
    adapter: InputAdapterOpt = None,
    json_out: JsonFlag = False,
    out_dir: ReportsOut = None,
    text_only: TextOnlyFlag = False,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most N cases.")] = None,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    config: ConfigFile = None,
    source: SourceOpt = None,
    before: BeforeOpt = None,
    before_claim_date: Annotated[
        bool,
        typer.Option("--before-claim-date", help="Use each case's claimed date as --before."),
    ] = False,
    endpoint: Annotated[
        list[str] | None,
        typer.Option("--endpoint", help="NAME=URL: another endpoint for a web source."),
    ] = None,
    corpus_db: CorpusDb = None,
    backend: BackendOpt = None,
    llm_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
    replay: ReplayFlag = False,
    procedure: ProcedureOpt = DEFAULT_PROCEDURE,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            help="Continue an interrupted run (see `semv runs --interrupted`): its case again, "
            "reusing every node it committed.",
        ),
    ] = None,
    allow_private: AllowPrivateFlag = False,
) -> None:
    """Verify a case (a folder, a dataset file or a link): print the verdict and where the
    report is."""
    # only what reading the case and sending the decomposer's first request needs: the
    # pipeline, the stages and the procedures load while the model answers
    from semv.adapters import load_cases
    from semv.agents.backends import probe_llm, with_llm_overrides

    retrieval = None
    try:
        if procedure not in PROCEDURE_NAMES:
            from semv.procedures import get_procedure

            get_procedure(procedure)  # the error naming the valid procedures
        settings = with_llm_overrides(
            settings_from(config), backend=backend, url=llm_url, model=llm_model
        )
        if (case is None) == (resume is None):
            raise InputError("give a CASE to verify, or --resume RUN (not both)")
        resumes: str | None = None
        if case is not None and is_link(case):
            store = open_store(data_dir, store_url)  # the dated cache the page is recorded in
            try:
                made = build_link_case(
                    case,
                    link_case_folder(data_dir, case),
                    settings=settings,
                    store_url=store.url,
                    allow_private=allow_private,
                    replay=replay,
                    replace=True,
                    console=err,
                )
                contract, cases = load_cases(made.folder, adapter="generic", text_only=text_only)
                _refuse_bombs(cases, settings)
            except SemvError:
                store.close()
                raise
        elif case is not None:
            contract, cases = load_cases(
                Path(case), adapter=adapter, text_only=text_only, limit=limit
            )
            _refuse_bombs(cases, settings)
            store = open_store(data_dir, store_url)
        else:
            from semv.adapters import LoadedCase
            from semv.resume import claim_interrupted

            store = open_store(data_dir, store_url)
            claimed = claim_interrupted(store, str(resume))
            contract, cases, resumes = claimed.contract, [LoadedCase(claimed.case)], claimed.run_id
            procedure = claimed.procedure
            committed = len(store.run_nodes(claimed.run_id))
            err.print(
                f"resuming interrupted run {claimed.run_id}: case {claimed.case.id}, procedure "
                f"{claimed.procedure}; its {committed} committed node(s) are reused, the rest "
                "runs as a new run",
                highlight=False,
            )
        if source:
            from semv.cli._retrieval import open_sources

            retrieval = open_sources(
                settings,
                store,
                source,
                before=before,
                before_claim_date=before_claim_date,
                replay=replay,
                endpoint=endpoint or [],
                corpus_db=corpus_db,
            )
        elif before or before_claim_date:
            raise InputError("--before needs at least one --source")
        llm = settings.agents.backend != "offline"
        if replay and not llm and not any(s != "corpus" for s in source or ()):
            raise InputError("--replay needs --backend llm or a web --source to replay")
        # --replay answers web queries from the dated cache and model calls from the
        # response cache: one flag, one meaning (no request leaves the machine)
        if llm and not replay:
            probe_llm(settings)  # fail fast: no run whose every role falls back
            if procedure == DEFAULT_PROCEDURE and resumes is None:  # a resumed run may reuse it
                from semv.agents.llm import start_decompose

                # with the plan calls its answer lets start: verify runs with memory off
                start_decompose(settings, enforced(cases[0].case, settings), store, plans=True)
        from semv._aio import run as run_quietly
        from semv.agents.backends import build_agents, executor_concurrency
        from semv.pipeline import run_case
        from semv.procedures import get_procedure

        chosen_procedure = get_procedure(procedure)
        agents = build_agents(settings, store=store, replay=replay and llm)
    except SemvError as exc:
        _discard_prefetched()
        fail(exc)
    try:
        for loaded in cases:
            with progress(json_out) as bar:
                total = len(
                    chosen_procedure.graph(loaded.case, contract=contract, retrieval=retrieval)
                )
                task = bar.add_task(f"verify {loaded.case.id}", total=total)

                def tick(_key: str, _reused: bool, bar: Progress = bar, task: Any = task) -> None:
                    bar.advance(task)

                outcome = run_quietly(
                    run_case(
                        loaded.case,
                        store=store,
                        settings=settings,
                        agents=agents,
                        contract=contract,
                        reports_dir=out_dir,
                        progress=tick,
                        retrieval=retrieval,
                        max_concurrency=executor_concurrency(settings),
                        procedure=chosen_procedure.name,
                        released=loaded.released,
                        resumes=resumes,
                    )
                )
            result = outcome.result
            if json_out:
                sys.stdout.write(result.model_dump_json() + "\n")
                continue
            out.print(
                f"[bold]{result.case_id}[/]: [bold cyan]{result.label}[/] ({result.shown})",
                highlight=False,
                soft_wrap=True,
            )
            if result.veracity is not None:
                out.print(
                    f"  L1 {result.veracity}; L2 {', '.join(result.distortions) or 'none'}",
                    highlight=False,
                    soft_wrap=True,
                )
            for sub in result.subclaims:
                out.print(
                    f"  {sub.dimension:<13} {sub.score:.3f}  {sub.decision}",
                    highlight=False,
                    soft_wrap=True,
                )
            out.print(
                f"  run {result.run_id}: {outcome.executed} stages run, {outcome.reused} reused"
                + (f" (resumes {resumes})" if resumes else ""),
                highlight=False,
                soft_wrap=True,
            )
            # one line each however long the path, so `| grep report:` finds the path
            out.print(
                f"  report: {result.report_paths.get('markdown')}",
                highlight=False,
                soft_wrap=True,
            )
            out.print(
                f"  html:   {result.report_paths.get('html')}", highlight=False, soft_wrap=True
            )
            if result.usage is not None:
                u = result.usage
                ratio = u.wall_s / u.critical_path_s if u.critical_path_s > 0 else 0.0
                out.print(
                    f"  model: {u.calls} calls ({u.cached} cached), "
                    f"{u.prompt_tokens}+{u.completion_tokens} tokens, {u.retries} retries; "
                    f"wall {u.wall_s:.2f}s, critical path {u.critical_path_s:.2f}s "
                    f"(ratio {ratio:.2f})",
                    highlight=False,
                    soft_wrap=True,
                )
    except SemvError as exc:
        fail(exc)
    finally:
        _discard_prefetched()
        if retrieval is not None:
            retrieval.close()
        store.close()


def enforced(case: Case, settings: Settings) -> Case:
    """``case`` as the run will verify it (``semv.limits``: long texts truncated); a case the
    limits refuse is returned as is (the run refuses it and sends nothing)."""
    from semv.limits import enforce_limits

    try:
        return enforce_limits(case, settings.limits)[0]
    except SemvError:
        return case


def _discard_prefetched() -> None:
    """Forget an early request no call took (``semv.agents.llm._prefetch``), if one was sent."""
    prefetch = sys.modules.get("semv.agents.llm._prefetch")
    if prefetch is not None:
        prefetch.discard()


def show(
    run: RunIdArg,
    json_out: JsonFlag = False,
    verify_trace: Annotated[
        bool, typer.Option("--verify-trace", help="Recompute the trace's hash chain.")
    ] = False,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
) -> None:
    """Show a run: its verdict, nodes and trace; optionally verify the trace."""
    from semv.errors import RunNotFound

    hint = f"list the runs with `semv runs --data-dir {data_dir}`"
    if store_url is None and not store_exists(data_dir):  # reading must not create a store
        fail(RunNotFound(f"no run matches '{run}': {data_dir} holds no store yet; {hint}"))
    try:
        store = open_store(data_dir, store_url)
    except SemvError as exc:
        fail(exc)
    try:
        record = store.get_run(run)
    except RunNotFound as exc:
        store.close()
        fail(RunNotFound(f"{exc}; {hint}"))
    try:
        check = store.verify_trace(record.run_id) if verify_trace else None
        if json_out:
            payload: dict[str, Any] = (
                json.loads(record.result_json)
                if record.result_json
                else {"run_id": record.run_id, "status": record.status.value, "error": record.error}
            )
            if check is not None:
                payload = {
                    "result": payload,
                    "trace": {
                        "ok": check.ok,
                        "events": check.events,
                        "head": check.head,
                        "problem": check.problem,
                    },
                }
            sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
        else:
            nodes = store.run_nodes(record.run_id)
            out.print(
                f"[bold]run {record.run_id}[/] case {record.case_id} ({record.adapter})",
                highlight=False,
            )
            out.print(f"  status: {record.status.value}", highlight=False)
            if record.parent_run_id:
                out.print(f"  revises: {record.parent_run_id}", highlight=False)
            if record.label is not None:
                out.print(
                    f"  label: [bold cyan]{record.label}[/] uncalibrated score "
                    f"{(record.confidence or 0):.2f}",
                    highlight=False,
                )
            if record.error:
                out.print(f"  error: {record.error}", highlight=False)
            reused = sum(n.reused for n in nodes)
            out.print(
                f"  nodes: {len(nodes)} ({len(nodes) - reused} run, {reused} reused)",
                highlight=False,
            )
            out.print(f"  trace head: {record.trace_head}", highlight=False)
            if check is not None:
                verdict = "[green]verified[/]" if check.ok else f"[red]FAILED[/]: {check.problem}"
                out.print(f"  trace: {check.events} events, {verdict}", highlight=False)
        if check is not None and not check.ok:
            if not json_out:
                err.print(f"[bold red]trace verification failed:[/] {check.problem}")
            raise typer.Exit(1)
    finally:
        store.close()


def runs(
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most N runs.")] = 20,
    interrupted: Annotated[
        bool,
        typer.Option(
            "--interrupted",
            help="Only runs whose process is gone and that no run resumed yet (resume one with "
            "`semv verify --resume`).",
        ),
    ] = False,
    json_out: JsonFlag = False,
    ids: Annotated[
        bool,
        typer.Option(
            "--ids", help="Print only run ids, one per line: RUN=$(semv runs --limit 1 --ids)."
        ),
    ] = False,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
) -> None:
    """List the most recent runs, newest first (tab-separated with a header line when not
    printing to a terminal). A run whose process died before it finished is shown
    ``interrupted``."""
    from rich.markup import escape
    from rich.table import Column, Table

    from semv.store import display_url

    stored = 0
    if store_url is None and not store_exists(data_dir):  # listing must not create a store
        records, gone, procedures = [], set(), {}
    else:
        try:
            store = open_store(data_dir, store_url)
        except SemvError as exc:
            fail(exc)
        try:
            records = store.list_runs(10_000 if interrupted else limit)
            stored = len(records)
            gone = set(store.interrupted(records))
            if interrupted:  # what `semv verify --resume` can still continue
                records = [r for r in records if r.run_id in gone][:limit]
            procedures = {r.run_id: _procedure(store, r.run_id) for r in records}
        finally:
            store.close()
    entries: list[dict[str, Any]] = [
        {
            "run_id": r.run_id,
            "case_id": r.case_id,
            "procedure": procedures.get(r.run_id, DEFAULT_PROCEDURE),
            "status": "interrupted" if r.run_id in gone else r.status.value,
            "label": r.label,
            "confidence": r.confidence,
            "parent_run_id": r.parent_run_id,
            "created_at": r.created_at,
        }
        for r in records
    ]
    if json_out:
        sys.stdout.write(json.dumps(entries, ensure_ascii=False) + "\n")
        return
    where = data_dir if store_url is None else display_url(store_url)
    if ids:
        sys.stdout.write("".join(f"{e['run_id']}\n" for e in entries))
        if not entries:
            err.print(f"no runs in {where}", highlight=False)
        return
    if not entries:
        if stored:  # --interrupted, in a store that holds finished runs
            many = "10,000 or more" if stored >= 10_000 else str(stored)
            err.print(
                f"no interrupted runs in {where}: none of its {many} runs was cut short "
                f"(list them with `semv runs --data-dir {data_dir}`)",
                highlight=False,
            )
        else:
            what = "no interrupted runs" if interrupted else "no runs yet"
            err.print(
                f"{what} in {where} (verify a case with `semv verify CASE --data-dir {data_dir}`)",
                highlight=False,
            )
        return
    header = ("run", "case", "procedure", "status", "label", "uncalibrated score")
    rows = [
        tuple(
            printable(value)
            for value in (
                e["run_id"],
                e["case_id"],
                e["procedure"],
                e["status"],
                e["label"] or "",
                f"{e['confidence']:.2f}" if e["confidence"] is not None else "",
            )
        )
        for e in entries
    ]
    if not out.is_terminal:
        for row in (header, *rows):
            sys.stdout.write("\t".join(row) + "\n")
        return
    table = Table(*header[1:])
    table.columns.insert(0, Column(header[0], no_wrap=True, min_width=28))
    for row in rows:
        table.add_row(*(escape(cell) for cell in row))
    out.print(table)


def store_exists(data_dir: Path) -> bool:
    """Whether ``data_dir`` already holds a SQLite store (reading commands never create one)."""
    return (data_dir / "semv.db").exists()


def _procedure(store: Any, run_id: str) -> str:
    from semv.model import TraceKind

    for event in store.trace(run_id):
        if event.kind is TraceKind.RUN_STARTED:
            return str(event.payload.get("procedure", DEFAULT_PROCEDURE))
    return DEFAULT_PROCEDURE


def printable(value: str) -> str:
    """``value`` with control and other non-printable characters escaped (``\\n``, ``\\t``,
    ``\\x00``), so that one run is always one line of tab-separated output."""
    if value.isprintable():
        return value
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in value)
