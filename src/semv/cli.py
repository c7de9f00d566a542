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
from semv._cli_eval import register_eval_commands
from semv.agents.backends import build_agents, executor_concurrency, with_llm_overrides
from semv.agents.offline import OfflineAgents
from semv.config import Settings, load_settings
from semv.errors import InputError, SemvError
from semv.pipeline import run_case
from semv.procedures import DEFAULT_PROCEDURE, get_procedure, procedure_names
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
    typer.Option(
        "--replay",
        help="No requests: model answers from the response cache (--backend llm) and web "
        "search answers from the dated retrieval cache (--source).",
    ),
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
    source: Annotated[
        list[str] | None,
        typer.Option(
            "--source",
            help="Evidence source to search (repeatable): corpus, searxng, serper, brave, gdelt.",
        ),
    ] = None,
    before: Annotated[
        str | None,
        typer.Option("--before", help="Exclude (and count) evidence published after DATE."),
    ] = None,
    before_claim_date: Annotated[
        bool,
        typer.Option("--before-claim-date", help="Use each case's claimed date as --before."),
    ] = False,
    endpoint: Annotated[
        list[str] | None,
        typer.Option("--endpoint", help="NAME=URL: another endpoint for a web source."),
    ] = None,
    corpus_db: Annotated[
        Path | None,
        typer.Option("--corpus-db", help="Data directory holding the corpus (default: store)."),
    ] = None,
    backend: BackendOpt = None,
    llm_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
    replay: ReplayFlag = False,
    procedure: Annotated[
        str,
        typer.Option(
            "--procedure",
            help="Verification procedure: " + ", ".join(procedure_names()) + " (default: semv).",
        ),
    ] = DEFAULT_PROCEDURE,
) -> None:
    """Verify a case: print the verdict and where the report is."""
    retrieval = None
    try:
        chosen_procedure = get_procedure(procedure)
        settings = with_llm_overrides(
            _settings(config), backend=backend, url=llm_url, model=llm_model
        )
        contract, cases = load_cases(case, adapter=adapter, text_only=text_only, limit=limit)
        store = Store(data_dir)
        if source:
            from semv._cli_retrieval import open_sources

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
        agents = build_agents(settings, store=store, replay=replay and llm)
    except SemvError as exc:
        _fail(exc)
    try:
        for loaded in cases:
            with _progress(0, "verify", json_out) as bar:
                total = len(
                    chosen_procedure.graph(loaded.case, contract=contract, retrieval=retrieval)
                )
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
                        retrieval=retrieval,
                        max_concurrency=executor_concurrency(settings),
                        procedure=chosen_procedure.name,
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
            if result.veracity is not None:
                out.print(
                    f"  L1 {result.veracity}; L2 {', '.join(result.distortions) or 'none'}",
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
        if retrieval is not None:
            retrieval.close()
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
            if record.parent_run_id:
                out.print(f"  revises: {record.parent_run_id}", highlight=False)
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


register_eval_commands(eval_app)  # semv eval <adapter> PATH, semv eval score (semv._cli_eval)


# ---- semv index images (local reverse-image search) ----------------------------------------

index_app = typer.Typer(
    help="Build local indexes used during verification (images, corpus).", no_args_is_help=True
)
app.add_typer(index_app, name="index")


@index_app.command("images")
def index_images(
    folder: Annotated[Path, typer.Argument(help="Folder of images to index (recursively).")],
    meta: Annotated[
        Path | None,
        typer.Option(
            "--meta",
            help="Per-image metadata: JSON/JSONL/CSV with file, source_url, first_seen, caption.",
        ),
    ] = None,
    json_out: JsonFlag = False,
    data_dir: DataDir = Path(".semv"),
    config: ConfigFile = None,
) -> None:
    """Index an image collection for local reverse-image search (pHash + ORB in FAISS)."""
    from semv.perception.paths import default_index_dir
    from semv.perception.reverse_search import build_index, iter_images, read_meta

    try:
        settings = _settings(config)
        metadata = read_meta(meta) if meta is not None else None
        if not folder.is_dir():
            raise InputError(f"{folder}: not a directory")
        index_dir = default_index_dir(settings, data_dir)
        total = len(list(iter_images(folder)))
        with _progress(total, "index", json_out) as bar:
            task = bar.add_task(f"index {folder.name}", total=total)
            report = build_index(
                folder,
                index_dir,
                settings.reverse_search,
                meta=metadata,
                progress=lambda _name: bar.advance(task),
            )
    except SemvError as exc:
        _fail(exc)
    if json_out:
        payload = {
            "index": str(index_dir.resolve()),
            "indexed": report.indexed,
            "total": report.total,
            "skipped": list(report.skipped),
            "generation": report.generation,
        }
        sys.stdout.write(json.dumps(payload) + "\n")
        return
    out.print(
        f"indexed {report.indexed} image(s) from {folder} into {index_dir} "
        f"({report.total} in the index)",
        highlight=False,
    )
    for line in report.skipped:
        err.print(f"[yellow]skipped[/] {line}", highlight=False)


# ---- Module F: self-evolving memory (semv.memory) ----------------------------------------
from semv.memory._cli import learn_command, memory_app  # noqa: E402

app.add_typer(memory_app, name="memory")
app.command("learn")(learn_command)
# ---- contest (Module E) ----------------------------------------------------------------------


def _shorthand_actions(
    *,
    reject: str | None,
    accept: str | None,
    edit: str | None,
    add_evidence: Path | None,
    to: str | None,
    text: str | None,
    stance: str | None,
    reason: str | None,
    reviewer: str,
    target_stage: str | None,
    settings: Settings,
) -> list[Any]:
    """One review action from the shorthand flags (``--reject``, ``--accept``, ...)."""
    from semv.contest import parse_action
    from semv.contest.evidence_file import read_evidence_file

    chosen = [
        f
        for f, v in (
            ("--reject", reject),
            ("--accept", accept),
            ("--edit", edit),
            ("--add-evidence", add_evidence),
        )
        if v is not None
    ]
    if not chosen:
        return []
    if len(chosen) > 1:
        raise InputError(f"give one action flag at a time, not {' and '.join(chosen)}")
    if not reason:
        raise InputError(f"{chosen[0]} needs --reason (the reviewer's reason is required)")
    meta: dict[str, Any] = {"reviewer": reviewer}
    if target_stage is not None:
        meta["target_stage"] = target_stage
    base: dict[str, Any] = {"reason": reason, "meta": meta}
    if reject is not None:
        data = {"op": "reject", "target": reject, **base}
    elif accept is not None:
        data = {"op": "accept", "target": accept, **base}
    elif edit is not None:
        data = {"op": "edit", "target": edit, "text": text, "stance": stance, **base}
    else:
        assert add_evidence is not None
        if to is None:
            raise InputError("--add-evidence needs --to (a subclaim or argument id)")
        item = read_evidence_file(add_evidence, reviewer=reviewer, settings=settings)
        data = {
            "op": "add",
            "target": to,
            "text": text,
            "stance": stance,
            "evidence_added": [item.model_dump(mode="json")],
            **base,
        }
    try:
        return [parse_action(data)]
    except ValueError as exc:
        raise InputError(f"invalid review action: {exc}") from exc


def _print_revision(revision: Any) -> None:
    d = revision.delta
    loc = revision.locality
    plan = revision.plan
    out.print(
        f"[bold]revision {revision.run_id}[/] of {revision.parent_run_id} "
        f"(policy {revision.policy.value}, {revision.symbol})",
        highlight=False,
    )
    for r in plan.actions:
        out.print(
            f"  {r.op} {r.target}: route {r.route.value} ({r.rule})"
            + (f"; {'; '.join(r.notes)}" if r.notes else ""),
            highlight=False,
        )
    out.print(
        f"  restart u* = {plan.restart.value}; subclaims {', '.join(plan.subclaims)}",
        highlight=False,
    )
    for note in plan.widened:
        out.print(f"  [yellow]scope widened:[/] {note}", highlight=False)
    table = Table("", "before", "after", title="decision diff")
    mark = " [bold yellow]*[/]" if d.label_changed else ""
    table.add_row("label", d.label_before, d.label_after + mark)
    table.add_row("confidence", f"{d.confidence_before:.3f}", f"{d.confidence_after:.3f}")
    for sc in d.subclaims:
        changed = sc.band_before != sc.band_after or abs(sc.score_before - sc.score_after) > 1e-9
        table.add_row(
            sc.dimension,
            f"{sc.score_before:.3f} {sc.band_before}",
            f"{sc.score_after:.3f} {sc.band_after}" + (" [bold yellow]*[/]" if changed else ""),
        )
    out.print(table)
    out.print(
        f"  locality Loc = {loc.value:.3f} ({len(loc.changed_outside)} of {loc.outside} nodes "
        f"outside the scope changed); {len(loc.executed)} of {loc.global_transitions} stage "
        f"transitions executed ({loc.avoided:.0%} avoided vs a global rerun)",
        highlight=False,
    )
    out.print(f"  report: {revision.result.report_paths.get('markdown')}", highlight=False)
    if revision.stale_base:
        others = ", ".join(
            f"{s.run_id}{'' if s.committed else ' (in progress)'}" for s in revision.siblings
        )
        err.print(
            f"[bold yellow]stale base:[/] run {revision.parent_run_id} was also revised by "
            f"{others}; this revision does not include those changes",
            highlight=False,
        )


@app.command()
def contest(
    run: Annotated[str | None, typer.Argument(help="Run id (or unique prefix) to revise.")] = None,
    file: Annotated[
        Path | None, typer.Option("--file", "-f", help="Review batch JSON file.")
    ] = None,
    policy: Annotated[
        str | None,
        typer.Option("--policy", help="scoped (C+S, default), causal (C) or global (U)."),
    ] = None,
    reject: Annotated[str | None, typer.Option("--reject", help="Reject an id.")] = None,
    accept: Annotated[str | None, typer.Option("--accept", help="Accept an id.")] = None,
    edit: Annotated[str | None, typer.Option("--edit", help="Edit an argument.")] = None,
    add_evidence: Annotated[
        Path | None, typer.Option("--add-evidence", help="Evidence file (JSON or text).")
    ] = None,
    to: Annotated[str | None, typer.Option("--to", help="Subclaim/argument to add to.")] = None,
    text: Annotated[str | None, typer.Option("--text", help="Revised or new text.")] = None,
    stance: Annotated[str | None, typer.Option("--stance", help="sup, att, mix or neu.")] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="The reviewer's reason.")] = None,
    reviewer: Annotated[str, typer.Option("--reviewer", help="Reviewer id.")] = "reviewer",
    target_stage: Annotated[
        str | None, typer.Option("--target-stage", help="Explicit restart stage (C R V A Q).")
    ] = None,
    schema: Annotated[
        bool, typer.Option("--schema", help="Print the review-batch JSON Schema and exit.")
    ] = False,
    json_out: JsonFlag = False,
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
    """Contest a run: apply a review batch and print the before/after diff (a new run)."""
    from semv.contest import Policy, ReviewBatch, batch_schema, load_batch, revise

    if schema:
        sys.stdout.write(json.dumps(batch_schema(), indent=2, ensure_ascii=False) + "\n")
        return
    try:
        if run is None:
            raise InputError("give the RUN to contest (see `semv runs`)")
        settings = _settings(config)
        shorthand = _shorthand_actions(
            reject=reject,
            accept=accept,
            edit=edit,
            add_evidence=add_evidence,
            to=to,
            text=text,
            stance=stance,
            reason=reason,
            reviewer=reviewer,
            target_stage=target_stage,
            settings=settings,
        )
        if file is not None and shorthand:
            raise InputError("give either --file or one shorthand action, not both")
        if file is not None:
            batch = load_batch(file)
        elif shorthand:
            batch = ReviewBatch(actions=tuple(shorthand))
        else:
            raise InputError("nothing to apply: give --file or an action flag (--reject, ...)")
        try:
            chosen = Policy(policy) if policy is not None else None
        except ValueError as exc:
            raise InputError(f"--policy must be scoped, causal or global, not {policy}") from exc
        store = Store(data_dir)
        agents = build_agents(settings, store=store, replay=replay)
    except SemvError as exc:
        _fail(exc)
    try:
        revision = asyncio.run(
            revise(
                store,
                run,
                batch,
                settings=settings,
                agents=agents,
                policy=chosen,
                reports_dir=out_dir,
            )
        )
    except SemvError as exc:
        where = f"{file}: " if file is not None else ""
        err.print(f"[bold red]error:[/] {where}{exc}", markup=True, highlight=False)
        raise typer.Exit(exc.exit_code) from None
    finally:
        store.close()
    if json_out:
        payload = revision.model_dump(mode="json")
        payload["locality"]["avoided"] = revision.locality.avoided
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
        return
    _print_revision(revision)


@eval_app.command("ctr")
def eval_ctr(
    cases: Annotated[
        Path | None,
        typer.Argument(help="Folder of source case folders (default: the ten bundled cases)."),
    ] = None,
    stochastic: Annotated[
        bool, typer.Option("--stochastic", help="Seeded perturbation of agent outputs.")
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="Seed of perturbation and bootstrap.")] = 7,
    replicates: Annotated[
        int | None, typer.Option("--replicates", min=100, help="Bootstrap replicates.")
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="First N cases.")] = None,
    json_out: JsonFlag = False,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Also write the table (.md) and JSON here.")
    ] = None,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Store directory (default: a temp dir).")
    ] = None,
    config: ConfigFile = None,
) -> None:
    """CTR benchmark (SEMV §6.4): 5 episodes per source case replayed under U, C and C+S."""
    import tempfile

    from semv.agents import Agents
    from semv.contest.ctr import (
        CASES_DIR,
        StochasticAgents,
        ctr_metrics,
        ctr_table,
        metrics_json,
        run_ctr,
    )

    try:
        settings = _settings(config)
        contract, loaded = load_cases(cases or CASES_DIR, adapter="generic", limit=limit)
    except SemvError as exc:
        _fail(exc)
    agents: Agents = OfflineAgents(settings)
    if stochastic:
        agents = StochasticAgents(agents, rate=settings.contest.stochastic_rate, seed=seed)
    with tempfile.TemporaryDirectory(prefix="semv-ctr-") as tmp:
        root = data_dir or Path(tmp)
        store = Store(root)
        try:
            with _progress(len(loaded) * 15, "ctr", json_out) as bar:
                task = bar.add_task("CTR replays", total=len(loaded) * 15)
                outcomes = asyncio.run(
                    run_ctr(
                        loaded,
                        store=store,
                        settings=settings,
                        agents=agents,
                        contract=contract,
                        reports_dir=root / "reports",
                        on_episode=lambda _o: bar.advance(task),
                    )
                )
        except SemvError as exc:
            _fail(exc)
        finally:
            store.close()
    metrics = ctr_metrics(
        outcomes,
        replicates=replicates or settings.contest.bootstrap_replicates,
        level=settings.contest.ci_level,
        seed=seed,
    )
    n_cases = len({o.case_id for o in outcomes})
    n_eps = len({(o.case_id, o.episode) for o in outcomes})
    n_h = len({(o.case_id, o.episode) for o in outcomes if o.corrupted})
    mode = (
        f"stochastic (rate {settings.contest.stochastic_rate}, seed {seed})"
        if stochastic
        else ("deterministic offline backend")
    )
    title = (
        f"CTR: {n_eps} episodes ({n_h} corrupted) from {n_cases} source cases, {mode}; "
        f"{int(settings.contest.ci_level * 100)}% cluster-bootstrap intervals"
    )
    held = sum(1 - o.locality <= o.bound + 1e-12 for o in outcomes)
    exact = sum(o.untracked == 0 for o in outcomes)
    table = ctr_table(metrics, title=title) + (
        f"\nProp. 4.2 (Eq. 25): 1 − Loc(H) ≤ (δ_H + σ_H)/|Z∖Z*| held in {held} of "
        f"{len(outcomes)} replays; the computed scope contained the gold closure (δ_H = 0) in "
        f"{exact}.\n"
    )
    payload = {
        "title": title,
        "metrics": metrics_json(metrics),
        "episodes": [o.__dict__ for o in outcomes],
    }
    if out_file is not None:
        out_file.parent.mkdir(parents=True, exist_ok=True)
        out_file.with_suffix(".md").write_text(table, encoding="utf-8")
        out_file.with_suffix(".json").write_text(json.dumps(payload, indent=2), encoding="utf-8")
    if json_out:
        sys.stdout.write(json.dumps(payload) + "\n")
        return
    sys.stdout.write(table)


from semv import _cli_retrieval  # noqa: E402  (registers `index corpus`, `eval retrieval`)

_ = _cli_retrieval


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
