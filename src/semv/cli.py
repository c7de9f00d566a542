"""The ``semv`` command (``python -m semv`` is the same).

Exit codes: 0 success, 2 bad input (unknown adapter, malformed case, missing media, unknown
run), 1 internal error (a failed stage, a broken trace).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Column, Table

from semv import __version__
from semv._api import load_cases
from semv.adapters import COSMOS_CONTRACT, get_adapter
from semv.agents.backends import build_agents, executor_concurrency, with_llm_overrides
from semv.config import Settings, load_settings
from semv.errors import InputError, SemvError
from semv.eval import CaseOutcome, binary_report, evaluate
from semv.pipeline import run_case
from semv.stages import build_graph
from semv.store import Store

app = typer.Typer(
    name="semv",
    help="Contestable multimedia verification: verify cases, inspect runs, evaluate datasets.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
eval_app = typer.Typer(help="Evaluate semv on a dataset.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")

err = Console(stderr=True, soft_wrap=True)
out = Console()

DataDir = Annotated[
    Path, typer.Option("--data-dir", help="Store directory (SQLite database, reports).")
]
ConfigFile = Annotated[
    Path | None, typer.Option("--config", help="TOML file overriding configuration constants.")
]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON only.")]
BackendOpt = Annotated[
    str | None,
    typer.Option("--backend", help="Agent backend: offline or llm (default: config, offline)."),
]
LlmUrlOpt = Annotated[
    str | None, typer.Option("--llm-url", help="OpenAI-compatible base URL (…/v1).")
]
LlmModelOpt = Annotated[str | None, typer.Option("--llm-model", help="Model name for all roles.")]
ReplayFlag = Annotated[
    bool,
    typer.Option("--replay", help="LLM backend: answer from the response cache, no HTTP calls."),
]


def _fail(exc: SemvError) -> NoReturn:
    err.print(f"[bold red]error:[/] {exc}", markup=True, highlight=False)
    raise typer.Exit(exc.exit_code)


def _settings(config: Path | None) -> Settings:
    return load_settings(config)


def _progress(total: int, label: str, quiet: bool) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        disable=quiet or not err.is_terminal,
        transient=True,
    )


@app.command()
def verify(
    case: Annotated[Path, typer.Argument(help="A case folder (case.yaml/json) or dataset file.")],
    adapter: Annotated[
        str | None, typer.Option("--adapter", help="Input adapter (default: detected).")
    ] = None,
    json_out: JsonFlag = False,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Write reports under DIR/<run id>/.")
    ] = None,
    text_only: Annotated[bool, typer.Option("--text-only", help="Do not read media.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most N cases.")] = None,
    data_dir: DataDir = Path(".semv"),
    config: ConfigFile = None,
    backend: BackendOpt = None,
    llm_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
    replay: ReplayFlag = False,
) -> None:
    """Verify a case: print the verdict and where the report is."""
    try:
        settings = with_llm_overrides(
            _settings(config), backend=backend, url=llm_url, model=llm_model
        )
        contract, cases = load_cases(case, adapter=adapter, text_only=text_only, limit=limit)
        store = Store(data_dir)
        agents = build_agents(settings, store=store, replay=replay)
    except SemvError as exc:
        _fail(exc)
    try:
        for loaded in cases:
            with _progress(0, "verify", json_out) as bar:
                total = len(build_graph(loaded.case, contract=contract))
                task = bar.add_task(f"verify {loaded.case.id}", total=total)

                def tick(_key: str, _reused: bool, bar: Progress = bar, task: Any = task) -> None:
                    bar.advance(task)

                outcome = asyncio.run(
                    run_case(
                        loaded.case,
                        store=store,
                        settings=settings,
                        agents=agents,
                        contract=contract,
                        reports_dir=out_dir,
                        progress=tick,
                        max_concurrency=executor_concurrency(settings),
                    )
                )
            result = outcome.result
            if json_out:
                sys.stdout.write(result.model_dump_json() + "\n")
                continue
            out.print(
                f"[bold]{result.case_id}[/]: [bold cyan]{result.label}[/] "
                f"(confidence {result.confidence:.2f})",
                highlight=False,
            )
            for sub in result.subclaims:
                out.print(f"  {sub.dimension:<13} {sub.score:.3f}  {sub.decision}", highlight=False)
            out.print(
                f"  run {result.run_id}: {outcome.executed} stages run, {outcome.reused} reused",
                highlight=False,
            )
            out.print(f"  report: {result.report_paths.get('markdown')}", highlight=False)
            out.print(f"  html:   {result.report_paths.get('html')}", highlight=False)
            if result.usage is not None:
                u = result.usage
                ratio = u.wall_s / u.critical_path_s if u.critical_path_s > 0 else 0.0
                out.print(
                    f"  model: {u.calls} calls ({u.cached} cached), "
                    f"{u.prompt_tokens}+{u.completion_tokens} tokens, {u.retries} retries; "
                    f"wall {u.wall_s:.2f}s, critical path {u.critical_path_s:.2f}s "
                    f"(ratio {ratio:.2f})",
                    highlight=False,
                )
    except SemvError as exc:
        _fail(exc)
    finally:
        store.close()


@app.command()
def show(
    run: Annotated[str, typer.Argument(help="Run id (or a unique prefix).")],
    json_out: JsonFlag = False,
    verify_trace: Annotated[
        bool, typer.Option("--verify-trace", help="Recompute the trace's hash chain.")
    ] = False,
    data_dir: DataDir = Path(".semv"),
) -> None:
    """Show a run: its verdict, nodes and trace; optionally verify the trace."""
    try:
        store = Store(data_dir)
        record = store.get_run(run)
    except SemvError as exc:
        _fail(exc)
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
            if record.label is not None:
                out.print(
                    f"  label: [bold cyan]{record.label}[/] confidence "
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


@app.command()
def runs(
    limit: Annotated[int, typer.Option("--limit", min=1)] = 20,
    data_dir: DataDir = Path(".semv"),
) -> None:
    """List the most recent runs (tab-separated when not printing to a terminal)."""
    store = Store(data_dir)
    try:
        records = store.list_runs(limit)
    finally:
        store.close()
    rows = [
        (
            r.run_id,
            r.case_id,
            r.status.value,
            r.label or "",
            f"{r.confidence:.2f}" if r.confidence is not None else "",
        )
        for r in records
    ]
    if not out.is_terminal:
        for row in rows:
            sys.stdout.write("\t".join(row) + "\n")
        return
    table = Table("case", "status", "label", "confidence")
    table.columns.insert(0, Column("run", no_wrap=True, min_width=28))
    for row in rows:
        table.add_row(*row)
    out.print(table)


@eval_app.command("cosmos")
def eval_cosmos(
    file: Annotated[Path, typer.Argument(help="COSMOS-format file (test_data.json lines).")],
    text_only: Annotated[bool, typer.Option("--text-only", help="Ignore the images.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="First N rows.")] = None,
    json_out: JsonFlag = False,
    bins: Annotated[int, typer.Option("--bins", min=1, help="ECE bins.")] = 10,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Write reports under DIR/<run id>/.")
    ] = None,
    data_dir: DataDir = Path(".semv"),
    config: ConfigFile = None,
    backend: BackendOpt = None,
    llm_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
    replay: ReplayFlag = False,
) -> None:
    """Evaluate on COSMOS / OOKPIK caption pairs (OOC is the positive class)."""
    try:
        settings = with_llm_overrides(
            _settings(config), backend=backend, url=llm_url, model=llm_model
        )
        cosmos = get_adapter("cosmos")
        if not file.is_file():
            raise InputError(f"{file}: no such file")
        cases = list(cosmos.load(file, text_only=text_only, limit=limit))
        if not cases:
            raise InputError(f"{file}: no rows")
        store = Store(data_dir)
        agents = build_agents(settings, store=store, replay=replay)
    except SemvError as exc:
        _fail(exc)
    try:
        with _progress(len(cases), "eval", json_out) as bar:
            task = bar.add_task(f"eval {file.name}", total=len(cases))

            def tick(_o: CaseOutcome) -> None:
                bar.advance(task)

            outcomes = asyncio.run(
                evaluate(
                    cases,
                    store=store,
                    settings=settings,
                    agents=agents,
                    contract=COSMOS_CONTRACT,
                    reports_dir=out_dir,
                    on_case=tick,
                )
            )
        report = binary_report(outcomes, positive="OOC", bins=bins)
    except SemvError as exc:
        _fail(exc)
    finally:
        store.close()
    m = report.metrics
    if json_out:
        sys.stdout.write(json.dumps(m) + "\n")
        return
    table = Table("metric", "value", title=f"{file.name}: {m['n']} cases (OOC positive)")
    for key in ("accuracy", "precision", "recall", "f1", "balanced_accuracy", "ece", "brier"):
        table.add_row(key, f"{m[key]:.4f}")
    lo, hi = m["accuracy_ci95"]
    table.add_row("accuracy 95% CI", f"[{lo:.4f}, {hi:.4f}]")
    c = m["confusion"]
    table.add_row("confusion", f"TP {c['tp']} FP {c['fp']} TN {c['tn']} FN {c['fn']}")
    if m["failed"]:
        table.add_row("failed cases", str(m["failed"]))
    if "cost" in m:
        cost = m["cost"]
        table.add_row(
            "per case: wall / tok. / calls",
            f"{cost['wall_s']:.2f} s / {cost['tokens']:.0f} / {cost['calls']:.1f}",
        )
    out.print(table)


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log progress.")] = False,
) -> None:
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, stream=sys.stderr)
    if version:
        out.print(f"semv {__version__}")
        raise typer.Exit(0)


def main() -> None:
    """Entry point: turn unexpected exceptions into exit code 1 with a clear message."""
    try:
        app()
    except SemvError as exc:  # pragma: no cover - commands handle their own
        err.print(f"error: {exc}", highlight=False)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
