"""``semv contest`` (Module E: apply a review batch, print the decision diff) and
``semv eval ctr`` (the CTR benchmark, SEMV §6.4)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from semv.cli._common import (
    DEFAULT_DATA_DIR,
    BackendOpt,
    ConfigFile,
    DataDir,
    FirstN,
    JsonFlag,
    LlmModelOpt,
    LlmUrlOpt,
    ReplayFlag,
    ReportsOut,
    StoreUrl,
    deprecated,
    err,
    fail,
    open_store,
    out,
    progress,
    settings_from,
)
from semv.errors import InputError, SemvError

if TYPE_CHECKING:
    from semv.config import Settings

__all__ = ["contest", "eval_ctr"]


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
        if add_evidence is None:
            raise InputError("give one of --reject, --accept, --edit or --add-evidence")
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
    from rich.table import Table

    d = revision.delta
    loc = revision.locality
    plan = revision.plan
    out.print(
        f"[bold]revision {revision.run_id}[/] of {revision.parent_run_id} "
        f"(policy {revision.policy.value}, {revision.symbol})",
        highlight=False,
    )
    from semv.glossary import stage_word

    for r in plan.actions:
        out.print(
            f"  {r.op} {r.target}: route {r.route.value} = re-enters at "
            f"{stage_word(r.route.value)} ({r.rule})"
            + (f"; {'; '.join(r.notes)}" if r.notes else ""),
            highlight=False,
        )
    out.print(
        f"  restart stage u* = {plan.restart.value} ({stage_word(plan.restart.value)}: "
        f"recomputed from there on); subclaims {', '.join(plan.subclaims)}",
        highlight=False,
    )
    for note in plan.widened:
        out.print(f"  [yellow]scope widened:[/] {note}", highlight=False)
    if revision.sources_changed:
        names = ", ".join(revision.sources_changed)
        if revision.sources_refreshed:
            out.print(
                f"  [yellow]sources refreshed:[/] the index or evidence sources changed since "
                f"the parent's run; recomputed with the current ones: {names}",
                highlight=False,
            )
        else:
            out.print(
                f"  sources held: the index or evidence sources changed since the parent's run; "
                f"this revision used the parent's ({names}); --refresh-sources reads the "
                "current ones",
                highlight=False,
            )
    if revision.backend_changed:
        out.print(
            f"  [yellow]backend changed:[/] {revision.backend_changed} "
            "(every agent stage recomputed: a global recomputation)",
            highlight=False,
        )
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
    out.print(  # one line however long, so `| grep report:` finds the path
        f"  report: {revision.result.report_paths.get('markdown')}",
        highlight=False,
        soft_wrap=True,
    )
    if revision.stale_base:
        others = ", ".join(
            f"{s.run_id}{'' if s.committed else ' (in progress)'}" for s in revision.siblings
        )
        err.print(
            f"[bold yellow]stale base:[/] run {revision.parent_run_id} was also revised by "
            f"{others}; this revision does not include those changes",
            highlight=False,
        )


def contest(
    run: Annotated[str | None, typer.Argument(help="Run id (or unique prefix) to revise.")] = None,
    file: Annotated[Path | None, typer.Option("--file", help="Review batch JSON file.")] = None,
    file_short: Annotated[
        Path | None,
        typer.Option("-f", hidden=True, help="Deprecated: -f is --format elsewhere; use --file."),
    ] = None,
    policy: Annotated[
        str | None,
        typer.Option("--policy", help="scoped (C+S, default), causal (C) or global (U)."),
    ] = None,
    reject: Annotated[
        str | None,
        typer.Option(
            "--reject", help="Reject an id (argument, relation rel:…, evidence or subclaim)."
        ),
    ] = None,
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
    out_dir: ReportsOut = None,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    config: ConfigFile = None,
    backend: BackendOpt = None,
    llm_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
    replay: ReplayFlag = False,
    refresh_sources: Annotated[
        bool,
        typer.Option(
            "--refresh-sources",
            help="Read the current reverse-image index, corpus and web cache instead of the "
            "parent run's (the refresh is listed in the diff as its own cause).",
        ),
    ] = False,
) -> None:
    """Contest a run: apply a review batch and print the before/after diff (a new run)."""
    import asyncio

    from semv.contest import Policy, ReviewBatch, batch_schema, load_batch, reopen_agents, revise

    if schema:
        sys.stdout.write(json.dumps(batch_schema(), indent=2, ensure_ascii=False) + "\n")
        return
    if file_short is not None:
        deprecated("-f", "--file (-f means --format for `semv export`)", "contest")
        file = file or file_short
    try:
        if run is None:
            raise InputError("give the RUN to contest (see `semv runs`)")
        settings = settings_from(config)
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
        store = open_store(data_dir, store_url)
        # the parent's backend and model, unless --backend/--llm-model ask for another one
        agents, explicit = reopen_agents(
            store, run, settings, backend=backend, url=llm_url, model=llm_model, replay=replay
        )
    except SemvError as exc:
        fail(exc)
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
                backend_explicit=explicit,
                refresh_sources=refresh_sources,
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
    limit: FirstN = None,
    json_out: JsonFlag = False,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Results folder: also write ctr.md (the table) and ctr.json."),
    ] = None,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Store directory (default: a temp dir).")
    ] = None,
    config: ConfigFile = None,
) -> None:
    """CTR benchmark (SEMV §6.4): 5 episodes per source case replayed under U, C and C+S."""
    import asyncio
    import tempfile

    from semv._api import load_cases
    from semv.agents import Agents
    from semv.agents.offline import OfflineAgents
    from semv.contest.ctr import (
        CASES_DIR,
        StochasticAgents,
        ctr_metrics,
        ctr_table,
        metrics_json,
        run_ctr,
    )
    from semv.store import Store

    try:
        settings = settings_from(config)
        contract, loaded = load_cases(cases or CASES_DIR, adapter="generic", limit=limit)
    except SemvError as exc:
        fail(exc)
    agents: Agents = OfflineAgents(settings)
    if stochastic:
        agents = StochasticAgents(agents, rate=settings.contest.stochastic_rate, seed=seed)
    with tempfile.TemporaryDirectory(prefix="semv-ctr-") as tmp:
        root = data_dir or Path(tmp)
        store = Store(root)
        try:
            with progress(json_out) as bar:
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
            fail(exc)
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
    if out_dir is not None:
        if out_dir.suffix in (".md", ".json"):  # the old meaning: a file prefix
            deprecated(f"--out {out_dir}", "--out DIR (a folder, as for every command)", "eval ctr")
            md, js = out_dir.with_suffix(".md"), out_dir.with_suffix(".json")
        else:
            md, js = out_dir / "ctr.md", out_dir / "ctr.json"
        md.parent.mkdir(parents=True, exist_ok=True)
        md.write_text(table, encoding="utf-8")
        js.write_text(json.dumps(payload, indent=2), encoding="utf-8")
        err.print(f"wrote {md} and {js}", highlight=False)
    if json_out:
        sys.stdout.write(json.dumps(payload) + "\n")
        return
    sys.stdout.write(table)
