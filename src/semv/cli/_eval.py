"""``semv eval``: one subcommand per dataset adapter, plus ``semv eval score``, ``semv eval
ctr`` (``semv.cli._contest``) and ``semv eval retrieval`` (``semv.cli._retrieval``).

``semv eval ADAPTER PATH`` is a subcommand generated for every registered adapter (``cosmos``,
``mv2026``, ``remmd``, ``mmfakebench``, ``verite``, ``generic``); another named subcommand is
one ``eval_app.command("name")(function)`` line at the end of this module. Names must not
collide with adapter names or ``score``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from semv.adapters import LoadedCase, adapter_names, is_runs_folder
from semv.agents.backends import build_agents
from semv.cli._common import (
    DEFAULT_DATA_DIR,
    ConfigFile,
    DataDir,
    FirstN,
    RayAddressOpt,
    RayFlag,
    StoreUrl,
    TextOnlyFlag,
    WorkersOpt,
    err,
    fail,
    out,
    progress,
)
from semv.cli._contest import eval_ctr
from semv.cli._retrieval import eval_retrieval
from semv.config import Settings, load_settings
from semv.errors import SemvError
from semv.eval import (
    RESULTS_FILE,
    EvalPlan,
    Record,
    Task,
    comparison_rows,
    comparison_table,
    cost_summary,
    cost_table,
    finalize,
    get_dataset,
    get_task,
    headline,
    load_plan_cases,
    open_results,
    prediction_formats,
    read_predictions,
    read_results_log,
    role_table,
    run_plan,
    stability_table,
    summary_markdown,
    sweep_conditions,
    sweep_table,
)
from semv.procedures import DEFAULT_PROCEDURE, get_procedure, procedure_names
from semv.store import Store

__all__ = ["eval_app"]

eval_app = typer.Typer(help="Evaluate semv on a dataset.", no_args_is_help=True)

EceBins = Annotated[int | None, typer.Option("--bins", min=1, help="ECE bins.")]
MetricsJson = Annotated[bool, typer.Option("--json", help="Print metrics as JSON.")]


def _with_bins(settings: Settings, bins: int | None) -> Settings:
    if bins is None:
        return settings
    return settings.model_copy(update={"eval": settings.eval.model_copy(update={"ece_bins": bins})})


def _evaluate_once(
    *,
    plan: EvalPlan,
    task: Task,
    contract: str,
    cases: list[LoadedCase],
    settings: Settings,
    store_dir: Path,
    out_dir: Path,
    resume: bool,
    workers: int,
    quiet: bool,
    label: str,
    target: Path,
    store_url: str | None = None,
    ray: bool = False,
    ray_address: str | None = None,
) -> dict[str, Any]:
    """Run (or resume) one condition into ``out_dir`` and score it; ``target`` is the --out
    folder the user named (``out_dir`` or a folder above it for --seeds/--sweep). The store is
    SQLite in ``store_dir``, or the database at ``store_url`` (``--store``)."""
    store = Store(store_dir, url=store_url)
    try:
        agents = build_agents(settings, store=store)  # the [agents] backend of the config
        log, previous = open_results(out_dir, plan, settings, agents, resume=resume)
    except BaseException:
        store.close()
        raise
    wanted = {c.case.id for c in cases}
    done = {r["case_id"] for r in previous if r["case_id"] in wanted}
    if resume:
        err.print(
            f"resuming the evaluation in {out_dir}: {len(done)} of {len(cases)} case(s) already "
            f"in results.jsonl, {len(cases) - len(done)} to run",
            highlight=False,
        )
    try:
        with progress(quiet) as bar:
            progress_task = bar.add_task(label, total=len(cases), completed=len(done))

            def tick(_record: Record) -> None:
                bar.advance(progress_task)

            asyncio.run(
                run_plan(
                    cases,
                    task=task,
                    contract=contract,
                    store=store,
                    settings=settings,
                    agents=agents,
                    log=log,
                    done=done,
                    out_dir=out_dir,
                    workers=workers,
                    on_record=tick,
                    procedure=plan.procedure,
                    ray=ray,
                    ray_address=ray_address,
                )
            )
    except KeyboardInterrupt:
        finished = len(read_results_log(out_dir / RESULTS_FILE))
        err.print(
            f"interrupted: {finished} of {len(cases)} cases are saved in {out_dir}; "
            f"continue with --resume --out {target}",
            highlight=False,
        )
        raise typer.Exit(130) from None
    finally:
        log.close()
        store.close()
    records = [r for r in read_results_log(out_dir / RESULTS_FILE) if r["case_id"] in wanted]
    return finalize(out_dir, task.name, records, settings, method=plan.procedure)


def _default_out(data_dir: Path, adapter: str) -> Path:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return data_dir / "eval" / f"{adapter}-{stamp}"


def _print(
    task: str,
    metrics: dict[str, Any],
    out_dir: Path | None,
    json_out: bool,
    method: str = "semv",
) -> None:
    if json_out:
        sys.stdout.write(json.dumps(metrics, sort_keys=True) + "\n")
        return
    out.print(summary_markdown(task, metrics, method=method), highlight=False, markup=False)
    if out_dir is not None:
        out.print(f"results: {out_dir}", highlight=False, markup=False)


def _make_command(adapter: str) -> Callable[..., None]:
    def command(
        path: Annotated[Path, typer.Argument(help="Dataset file or folder.")],
        split: Annotated[
            str | None,
            typer.Option("--split", help="Split inside a dataset folder (test, val...)."),
        ] = None,
        limit: FirstN = None,
        workers: WorkersOpt = 1,
        out_dir: Annotated[
            Path | None,
            typer.Option("--out", help="Results folder (default: DATA_DIR/eval/<adapter>-<time>)."),
        ] = None,
        resume: Annotated[
            bool, typer.Option("--resume", help="Continue the evaluation in --out.")
        ] = False,
        text_only: TextOnlyFlag = False,
        memory: Annotated[
            Path | None,
            typer.Option("--memory", help="Memory snapshot to record (its hash is saved)."),
        ] = None,
        seeds: Annotated[
            int, typer.Option("--seeds", min=1, help="Repeat the condition N times (Table S5).")
        ] = 1,
        sweep: Annotated[
            bool, typer.Option("--sweep", help="Vary one constant group at a time (Table S6).")
        ] = False,
        bins: EceBins = None,
        procedures: Annotated[
            list[str] | None,
            typer.Option(
                "--procedure",
                "--procedures",
                help="Verification procedure(s): "
                + ", ".join(procedure_names())
                + ", or 'all'; repeat or separate by commas. Each runs into "
                "--out/<procedure>/ with its own store; a comparison (ReMMD) and a cost table "
                "are written in --out.",
                metavar="NAME",
            ),
        ] = None,
        sample: Annotated[
            int | None,
            typer.Option(
                "--sample", min=1, help="N cases spread evenly over the dataset (not the first N)."
            ),
        ] = None,
        ray: RayFlag = False,
        ray_address: RayAddressOpt = None,
        judge_scores: Annotated[
            Path | None,
            typer.Option(
                "--judge-scores",
                help="mv2026 only: score the judges' rubric scores Q (CSV/JSON: case, q[, "
                "method][, hours]) with the time penalty of Eq. 32 and print Table 5; T from "
                "'hours' or from the release time recorded by verify. Verifies nothing.",
            ),
        ] = None,
        json_out: MetricsJson = False,
        data_dir: DataDir = DEFAULT_DATA_DIR,
        store_url: StoreUrl = None,
        config: ConfigFile = None,
    ) -> None:
        if judge_scores is not None:
            _mv_scores(adapter, path, judge_scores, data_dir, store_url, out_dir, json_out)
            return
        try:
            if resume and out_dir is None:
                raise_input("--resume needs --out naming the evaluation to continue")
            if seeds > 1 and sweep:
                raise_input("use --seeds or --sweep, not both")
            if store_url and (
                seeds > 1 or (procedures and len(resolve_procedures(procedures)) > 1)
            ):
                raise_input(
                    "--store holds one store: --seeds and several --procedure need one store "
                    "each (they run into --out without --store)"
                )
            settings = _with_bins(load_settings(config), bins)
            chosen = resolve_procedures(procedures)
            if len(chosen) > 1 and (seeds > 1 or sweep):
                raise_input("--seeds and --sweep take one --procedure")
            plan = EvalPlan(
                adapter, path, split, limit, text_only, memory, procedure=chosen[0], sample=sample
            )
            task, contract, cases = load_plan_cases(plan)
            target = out_dir or _default_out(data_dir, adapter)
            if procedures and seeds == 1 and not sweep:  # --seeds/--sweep: one procedure
                compared = _evaluate_procedures(
                    plan=plan,
                    names=chosen,
                    task=task,
                    contract=contract,
                    cases=cases,
                    settings=settings,
                    target=target,
                    resume=resume,
                    workers=workers,
                    quiet=json_out,
                    store_url=store_url,
                    ray=ray or ray_address is not None,
                    ray_address=ray_address,
                )
                _emit_table(compared.payload, compared.markdown, target, json_out)
                return
            common: dict[str, Any] = {
                "plan": plan,
                "task": task,
                "contract": contract,
                "cases": cases,
                "resume": resume,
                "workers": workers,
                "quiet": json_out,
                "target": target,
                "store_url": store_url,
                "ray": ray or ray_address is not None,
                "ray_address": ray_address,
            }
            if seeds > 1:
                runs = []
                for k in range(1, seeds + 1):
                    run_dir = target / f"seed-{k}"
                    metrics = _evaluate_once(
                        **common,
                        settings=settings,
                        store_dir=run_dir / "store",
                        out_dir=run_dir,
                        label=f"{adapter} run {k}/{seeds}",
                    )
                    runs.append(headline(task.name, metrics))
                table = stability_table(task.name, runs)
                (target / "stability.md").write_text(table, encoding="utf-8")
                _emit_table({"runs": runs}, table, target, json_out)
                return
            if sweep:
                reference = _evaluate_once(
                    **common,
                    settings=settings,
                    store_dir=data_dir,
                    out_dir=target / "reference",
                    label=f"{adapter} reference",
                )
                ref_acc = headline(task.name, reference)["accuracy"]
                rows = []
                for condition in sweep_conditions(settings):
                    metrics = _evaluate_once(
                        **common,
                        settings=condition.settings,
                        store_dir=data_dir,
                        out_dir=target / "sweep" / condition.slug,
                        label=f"{adapter} {condition.slug}",
                    )
                    rows.append((condition, headline(task.name, metrics)["accuracy"]))
                table = sweep_table(ref_acc, rows)
                (target / "sweep.md").write_text(table, encoding="utf-8")
                payload = {
                    "reference": ref_acc,
                    "conditions": {c.slug: acc for c, acc in rows},
                }
                _emit_table(payload, table, target, json_out)
                return
            metrics = _evaluate_once(
                **common,
                settings=settings,
                store_dir=data_dir,
                out_dir=target,
                label=f"eval {adapter}",
            )
        except SemvError as exc:
            fail(exc)
        _print(task.name, metrics, target, json_out)

    command.__doc__ = (
        f"Evaluate semv on data read by the {adapter} adapter: per-case results appended as "
        "they finish, metrics, a summary table in the paper's layout and plots under --out."
    )
    return command


def _mv_scores(
    adapter: str,
    path: Path,
    scores: Path,
    data_dir: Path,
    store_url: str | None,
    out_dir: Path | None,
    json_out: bool,
) -> None:
    """``semv eval mv2026 PATH --judge-scores FILE``: Eq. 32 per case and the Table 5 total."""
    from semv._api import load_cases
    from semv.eval import read_judge_scores, score_cases, table5_markdown
    from semv.store import Store

    try:
        if not get_dataset(adapter).judge_scores:
            raise_input(f"--judge-scores scores MV2026 judge results, not {adapter} data")
        rows = read_judge_scores(scores)
        _contract, cases = load_cases(path, adapter=adapter, text_only=True)
        known = {c.case.id for c in cases}
        unknown = sorted({r.case for r in rows} - known)
        if unknown:
            raise_input(f"{scores}: cases not in {path}: {', '.join(unknown)}")
        has_store = store_url is not None or (data_dir / "semv.db").is_file()
        store = Store(data_dir, url=store_url) if has_store else None
        table = score_cases(rows, store)
    except SemvError as exc:
        fail(exc)
    markdown = table5_markdown(table)
    payload = table.as_json()
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "mvscore.json").write_text(json.dumps(payload, indent=2) + "\n", "utf-8")
        (out_dir / "table5.md").write_text(markdown, encoding="utf-8")
    if json_out:
        sys.stdout.write(json.dumps(payload) + "\n")
    else:
        out.print(markdown, highlight=False, markup=False)


def resolve_procedures(values: list[str] | None) -> list[str]:
    """The procedure names of ``--procedure`` values (``all``, repeated, comma-separated), in
    registry order for ``all`` and as given otherwise; an unknown name is an InputError."""
    if not values:
        return [DEFAULT_PROCEDURE]
    names: list[str] = []
    for value in values:
        for part in (p.strip() for p in value.split(",")):
            if not part:
                continue
            found = list(procedure_names()) if part == "all" else [get_procedure(part).name]
            names += [n for n in found if n not in names]
    if not names:
        raise_input("--procedure: no procedure named")
    return names


@dataclass(frozen=True)
class _Compared:
    payload: dict[str, Any]
    markdown: str


def _evaluate_procedures(
    *,
    plan: EvalPlan,
    names: list[str],
    task: Task,
    contract: str,
    cases: list[LoadedCase],
    settings: Settings,
    target: Path,
    resume: bool,
    workers: int,
    quiet: bool,
    store_url: str | None = None,
    ray: bool = False,
    ray_address: str | None = None,
) -> _Compared:
    """Each procedure into ``target/<name>/`` with its own store (``store/``: no procedure reuses
    the nodes another computed, so each cost row is its own; resumable each), then
    ``comparison.md`` (ReMMD: beside the published ReMMD-Agent numbers) and ``cost.md`` (Table
    6-style) in ``target``."""
    metrics: dict[str, dict[str, Any]] = {}
    for name in names:
        metrics[name] = _evaluate_once(
            plan=replace(plan, procedure=name),
            task=task,
            contract=contract,
            cases=cases,
            settings=settings,
            store_dir=target / name / "store",  # no procedure reuses another's nodes
            out_dir=target / name,
            resume=resume,
            workers=workers,
            quiet=quiet,
            label=f"{plan.adapter} --procedure {name}",
            target=target,
            store_url=store_url,
            ray=ray,
            ray_address=ray_address,
        )
    backend = settings.agents.backend
    wanted = {c.case.id for c in cases}
    costs = {
        name: cost_summary(
            [r for r in read_results_log(target / name / RESULTS_FILE) if r["case_id"] in wanted]
        )
        for name in names
    }
    compared = get_dataset(plan.adapter).compares_procedures
    published = published_records(plan.path, wanted) if compared else None
    if published:
        # the authors' own predictions and cost on exactly the cases evaluated here
        scored = task.score(published, settings.eval)
        scored.pop("reliability", None)
        metrics = {**metrics, f"ReMMD-Agent (published, these {len(published)} cases)": scored}
        costs["ReMMD-Agent (published run files)"] = cost_summary(published)
    parts = []
    if compared:
        title = f"{plan.adapter} {plan.path.name}" + (" (text-only)" if plan.text_only else "")
        parts.append(comparison_table(metrics, settings.remmd_eval, title=title, backend=backend))
    parts.append(cost_table(costs, backend=backend) + role_table(costs))
    markdown = "\n".join(parts)
    if compared:
        (target / "comparison.md").write_text(parts[0], encoding="utf-8")
    (target / "cost.md").write_text(parts[-1], encoding="utf-8")
    payload: dict[str, Any] = {"procedures": metrics, "cost": costs}
    if compared:
        payload["comparison"] = comparison_rows(metrics)
    (target / "comparison.json").write_text(
        json.dumps(payload, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return _Compared(payload, markdown)


def published_records(path: Path, wanted: set[str]) -> list[Record] | None:
    """The published ReMMD-Agent predictions (with their cost) of the ``wanted`` cases when
    ``path`` is their runs folder; None otherwise."""
    if not is_runs_folder(path):
        return None
    return [r for r in read_predictions(path, "remmd-results").records if r["case_id"] in wanted]


def _emit_table(payload: dict[str, Any], table: str, target: Path, json_out: bool) -> None:
    if json_out:
        sys.stdout.write(json.dumps(payload, sort_keys=True) + "\n")
        return
    out.print(table, highlight=False, markup=False)
    out.print(f"results: {target}", highlight=False, markup=False)


def raise_input(message: str) -> NoReturn:
    from semv.errors import InputError

    raise InputError(message)


def score(
    predictions: Annotated[Path, typer.Argument(help="Prediction file or folder.")],
    adapter: Annotated[
        str,
        typer.Option(
            "--adapter",
            help=f"Prediction format: {', '.join(prediction_formats())}.",
        ),
    ],
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Results folder: metrics.json, summary.md and plots (default: none, print only; "
            "with --data-dir: DATA_DIR/eval/score-<adapter>-<time>).",
        ),
    ] = None,
    bins: EceBins = None,
    json_out: MetricsJson = False,
    config: ConfigFile = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            help="Data directory: the results folder goes under DATA_DIR/eval/ like every "
            "evaluation's (scoring reads no store).",
        ),
    ] = None,
) -> None:
    """Score an existing prediction file without running the pipeline."""
    try:
        if out_dir is None and data_dir is not None:
            out_dir = _default_out(data_dir, f"score-{adapter}")
        settings = _with_bins(load_settings(config), bins)
        if not predictions.exists():
            raise_input(f"{predictions}: no such file or directory")
        found = read_predictions(predictions, adapter)
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            metrics = finalize(
                out_dir,
                found.task,
                found.records,
                settings,
                skipped=found.skipped,
                method=found.method,
            )
        else:
            metrics = get_task(found.task).score(found.records, settings.eval)
            metrics.pop("reliability", None)
            if found.skipped:
                metrics["skipped"] = found.skipped
    except SemvError as exc:
        fail(exc)
    _print(found.task, metrics, out_dir, json_out, method=found.method)


for _name in adapter_names():  # semv eval <adapter> PATH
    eval_app.command(_name)(_make_command(_name))
eval_app.command("score")(score)
eval_app.command("ctr")(eval_ctr)
eval_app.command("retrieval")(eval_retrieval)
