"""``semv learn`` and ``semv memory freeze|thaw|show|hash|export|import|transfer`` (Module F)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from semv.cli._common import (
    DEFAULT_DATA_DIR,
    ConfigFile,
    DataDir,
    JsonFlag,
    LlmModelOpt,
    LlmUrlOpt,
    StoreUrl,
    TextOnlyFlag,
    deprecated,
    err,
    fail,
    open_store,
    out,
    progress,
    settings_from,
)
from semv.errors import InputError, SemvError
from semv.memory import Policy

if TYPE_CHECKING:
    from rich.table import Table

    from semv.adapters import LoadedCase
    from semv.agents import Agents
    from semv.config import Settings
    from semv.learning import TransferReport
    from semv.memory import Reflector
    from semv.store import Store

__all__ = ["learn_command", "memory_app"]

memory_app = typer.Typer(
    help="Self-evolving memory: snapshots, inspection, transfer evaluation.", no_args_is_help=True
)

Bank = Annotated[str, typer.Option("--bank", help="Memory bank name inside the store.")]
PENDING = ("verified", "under-review")
"""Candidate statuses that wait for consolidation (staged by the gate, not yet records)."""
AdapterOpt = Annotated[str, typer.Option("--adapter", help="Dataset adapter (e.g. cosmos).")]
Part = Annotated[
    str,
    typer.Option("--part", help="Which part of the fixed-seed split to use: learn, eval or all."),
]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the learning/evaluation split.")]
Fraction = Annotated[
    float, typer.Option("--learn-fraction", min=0.0, max=1.0, help="Share of cases to learn from.")
]
Limit = Annotated[int | None, typer.Option("--limit", min=1, help="First N cases of the part.")]


def _cases(
    dataset: Path, adapter: str, *, text_only: bool, part: str, seed: int, fraction: float
) -> tuple[str, list[LoadedCase], list[LoadedCase]]:
    """(contract, learning part, evaluation part) of the dataset's fixed-seed split."""
    from semv.adapters import get_adapter
    from semv.memory import split_cases

    if part not in ("learn", "eval", "all"):
        raise InputError(f"--part must be learn, eval or all, not {part!r}")
    if not dataset.exists():
        raise InputError(f"{dataset}: no such file or directory")
    ad = get_adapter(adapter)
    cases = list(ad.load(dataset, text_only=text_only))
    if not cases:
        raise InputError(f"{dataset}: no cases")
    learn_part, eval_part = split_cases(cases, seed=seed, learn_fraction=fraction)
    if part == "all":
        learn_part, eval_part = cases, cases
    return ad.contract, learn_part, eval_part


def _sources(datasets: list[Path], adapters: list[str]) -> list[tuple[Path, str]]:
    """(dataset, adapter) in the order given: one ``--adapter`` for all, or one for each."""
    if len(adapters) == 1:
        adapters = adapters * len(datasets)
    if len(adapters) != len(datasets):
        raise InputError(
            f"{len(datasets)} datasets but {len(adapters)} --adapter options: give one "
            "adapter for all datasets or one per dataset, in the same order"
        )
    return list(zip(datasets, adapters, strict=True))


def learn_command(
    datasets: Annotated[
        list[Path],
        typer.Argument(help="Dataset files or folders, learned from in the order given."),
    ],
    adapters: Annotated[
        list[str] | None,
        typer.Option(
            "--adapter",
            help="Dataset adapter (e.g. cosmos): once for all datasets, or once per dataset "
            "in the same order.",
        ),
    ] = None,
    limit: Limit = None,
    part: Part = "learn",
    seed: Seed = 13,
    fraction: Fraction = 0.6,
    policy: Annotated[
        Policy, typer.Option("--policy", help="Memory policy (Table 8 ablations).")
    ] = Policy.FULL,
    bank: Bank = "default",
    text_only: TextOnlyFlag = False,
    json_out: JsonFlag = False,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    config: ConfigFile = None,
    backend: Annotated[
        str | None,
        typer.Option(
            "--backend",
            help="Agents and reflector: offline or llm (default: config, offline). With llm "
            "the model reflects; the offline reflector stands in when it fails.",
        ),
    ] = None,
    llm_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
) -> None:
    """Learning run: verify cases in a fixed order, commit, reveal gold, reflect, gate, stage,
    consolidate every 25 cases; print the consolidation metrics of Table 7. Several datasets
    are learned one after the other into the same bank, in the order given; the memory trace
    records each one (path, adapter, cases, first and last case id, hash of the id order)."""
    import asyncio

    from semv.agents.backends import with_llm_overrides
    from semv.config import load_settings
    from semv.learning import learn

    try:
        if part == "eval":
            raise InputError(
                "--part eval: the evaluation part can never be learned from (Eq. 26); "
                "use --part learn, or --part all for a dataset that is entirely a learning set"
            )
        settings = with_llm_overrides(
            load_settings(config), backend=backend, url=llm_url, model=llm_model
        )
        plan = []
        for dataset, adapter in _sources(datasets, adapters or ["cosmos"]):
            contract, learn_part, _ = _cases(
                dataset, adapter, text_only=text_only, part=part, seed=seed, fraction=fraction
            )
            plan.append((dataset, adapter, contract, learn_part[:limit] if limit else learn_part))
        store = open_store(data_dir, store_url)
        agents, reflector = _learning_agents(settings, store)
    except SemvError as exc:
        fail(exc)
    docs: list[dict[str, Any]] = []
    try:
        with progress(json_out) as bar:
            for dataset, adapter, contract, cases in plan:
                task = bar.add_task(f"learn {dataset.name}", total=len(cases))
                report = asyncio.run(
                    learn(
                        cases,
                        store=store,
                        settings=settings,
                        agents=agents,
                        contract=contract,
                        bank=bank,
                        reflector=reflector,
                        policy=policy,
                        on_case=_advance(bar, task),
                        source={"dataset": str(dataset), "adapter": adapter},
                    )
                )
                docs.append(report.as_dict())
    except SemvError as exc:
        fail(exc)
    finally:
        store.close()
    if json_out:
        doc = docs[0] if len(docs) == 1 else {"order": docs, **docs[-1]}
        sys.stdout.write(json.dumps(doc) + "\n")
        return
    for doc in docs:
        _print_learned(doc)


def _advance(bar: Any, task: Any) -> Callable[[str], None]:
    """The per-case progress callback of one dataset's bar."""

    def advance(_case: str) -> None:
        bar.advance(task)

    return advance


def _print_learned(doc: dict[str, Any]) -> None:
    from rich.table import Table

    t7 = doc["table7"]
    source = doc.get("source") or {}
    where = f" ({source['adapter']}: {source['dataset']})" if source else ""
    table = Table(
        "metric",
        "rate (%)",
        "",
        title=f"Table 7: {t7['candidates']} reflected candidates{where}",
    )
    table.add_row("Grounding pass", f"{100 * t7['grounding_pass']:.1f}", "of all candidates")
    for key, name in (
        ("promotion", "↳ Promotion"),
        ("merge", "↳ Merge"),
        ("conflict_retention", "↳ Conflict retention"),
        ("rejection", "↳ Rejection"),
        ("pending", "↳ Pending (short-term)"),
    ):
        table.add_row(name, f"{100 * t7[key]:.1f}", "of grounded")
    out.print(table)
    out.print(
        f"cases {doc['cases']} (failed {doc['failed']}), accuracy while learning "
        f"{doc['accuracy_during_learning'] or 0:.3f}; long-term {doc['long_term']}; "
        f"hash {doc['long_term_hash']}"
    )


def _learning_agents(settings: Settings, store: Store) -> tuple[Agents, Reflector]:
    """The configured backend's agents and the reflector that goes with them: the LLM
    backend reflects with :class:`LlmReflector` (offline reflector as its fallback)."""
    from semv.agents.backends import build_agents, probe_llm
    from semv.agents.llm import LlmAgents
    from semv.memory import LlmReflector, OfflineReflector

    probe_llm(settings)  # fail fast instead of one fallback warning per case and role
    agents = build_agents(settings, store=store)
    if isinstance(agents, LlmAgents):
        return agents, LlmReflector(agents, settings)
    return agents, OfflineReflector(settings)


@memory_app.command("freeze")
def freeze(
    bank: Bank = "default", data_dir: DataDir = DEFAULT_DATA_DIR, store_url: StoreUrl = None
) -> None:
    """Freeze the bank: hash long-term memory; every later write is rejected (Remark 4.3)."""
    from semv.memory import MemoryStore

    try:
        store = open_store(data_dir, store_url)
        digest = MemoryStore(store, bank).freeze()
    except SemvError as exc:
        fail(exc)
    sys.stdout.write(digest + "\n")


@memory_app.command("thaw")
def thaw(
    bank: Bank = "default", data_dir: DataDir = DEFAULT_DATA_DIR, store_url: StoreUrl = None
) -> None:
    """Leave frozen mode (for a new learning run)."""
    from semv.memory import MemoryStore

    try:
        ms = MemoryStore(open_store(data_dir, store_url), bank)
        was = ms.state().frozen
        ms.thaw()
    except SemvError as exc:
        fail(exc)
    if was is None:
        err.print(f"memory bank {bank!r} was not frozen; nothing changed", highlight=False)
    else:
        err.print(
            f"memory bank {bank!r} thawed (it was frozen at snapshot {was[:16]}); it accepts "
            "writes again (the snapshot stays stored)",
            highlight=False,
        )


@memory_app.command("hash")
def hash_(
    bank: Bank = "default", data_dir: DataDir = DEFAULT_DATA_DIR, store_url: StoreUrl = None
) -> None:
    """Print the deterministic hash of long-term memory (and the frozen snapshot, if any)."""
    from semv.memory import MemoryStore

    try:
        ms = MemoryStore(open_store(data_dir, store_url), bank)
        digest, state = ms.long_term_hash(), ms.state()
    except SemvError as exc:
        fail(exc)
    sys.stdout.write(digest + "\n")
    if state.frozen is not None:
        err.print(f"frozen at {state.frozen}" + ("" if state.frozen == digest else " (DIFFERS)"))


@memory_app.command("show")
def show(
    bank: Bank = "default",
    all_records: Annotated[bool, typer.Option("--all", help="Include non-active records.")] = False,
    trace: Annotated[int, typer.Option("--trace", min=0, help="Last N memory-trace events.")] = 0,
    json_out: JsonFlag = False,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
) -> None:
    """List memory records (active by default) and, optionally, the memory trace."""
    from rich.table import Table

    from semv.memory import MemoryStore, Status

    try:
        ms = MemoryStore(open_store(data_dir, store_url), bank)
        records = ms.records() if all_records else ms.records(Status.ACTIVE)
        events = ms.events()[-trace:] if trace else []
        state = ms.state()
        pending = ms.candidates(*PENDING)
    except SemvError as exc:
        fail(exc)
    if json_out:
        doc: dict[str, Any] = {
            "bank": bank,
            "frozen": state.frozen,
            "records": [r.model_dump(mode="json") for r in records],
            "trace": events,
        }
        if all_records:
            doc["candidates"] = [
                {**c.model_dump(mode="json"), "status": status, "reason": reason}
                for c, status, reason, _ in pending
            ]
        sys.stdout.write(json.dumps(doc) + "\n")
        return
    table = Table("id", "type", "status", "c(m)", "n+", "n-", "lesson", title=f"memory bank {bank}")
    for r in records:
        table.add_row(
            r.id,
            r.type.value,
            r.status.value,
            f"{r.confidence:.3f}",
            str(r.n_support),
            str(r.n_conflict),
            r.lesson,
        )
    out.print(table)
    if all_records and pending:
        cands = Table("candidate", "type", "status", "dimension", "lesson", title="pending")
        for c, status, _reason, _ in pending:
            cands.add_row(c.id, c.type.value, status, c.dimension, c.lesson)
        out.print(cands)
    if not records:
        what = "no records" if all_records else "no active records"
        more = (
            f"; {len(pending)} candidate(s) pending consolidation (they become records when "
            "`semv learn` consolidates, every 25 cases or at its end)"
            if pending
            else "; `semv learn` fills it"
        )
        hint = "" if all_records or not pending else " (listed with --all)"
        err.print(f"memory bank {bank!r} has {what}{more}{hint}", highlight=False)
    for ev in events:
        out.print(
            f"{ev['seq']:>5} {ev['kind']:<20} {ev['subject'] or ''} {json.dumps(ev['payload'])}"
        )


@memory_app.command("export")
def export(
    file: Annotated[Path, typer.Argument(help="JSON file to write.")],
    bank: Bank = "default",
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    config: ConfigFile = None,
) -> None:
    """Export every record of the bank as JSON (written atomically), with a hash per record
    (signed when the key variable ``memory.export_key_env`` is set)."""
    from semv.memory import MemoryStore

    try:
        n = MemoryStore(open_store(data_dir, store_url), bank).export(
            file, settings_from(config).memory
        )
    except (SemvError, OSError) as exc:
        fail(exc if isinstance(exc, SemvError) else InputError(f"{file}: {exc}"))
    err.print(f"exported {n} records to {file}", highlight=False)
    if n == 0:
        from semv.memory import MemoryStore as _Ms

        pending = len(_Ms(open_store(data_dir, store_url), bank).candidates(*PENDING))
        err.print(
            f"  memory bank {bank!r} has no records"
            + (
                f" yet: {pending} candidate(s) are pending consolidation and are not exported"
                if pending
                else ": learn first (`semv learn DATASET`), or check --bank and --data-dir"
            ),
            highlight=False,
        )


@memory_app.command("import")
def import_(
    file: Annotated[Path, typer.Argument(help="A file written by `semv memory export`.")],
    bank: Bank = "default",
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    config: ConfigFile = None,
) -> None:
    """Replace the bank's records with an export (rejected while the bank is frozen). Every
    record must pass the import checks (hash or signature, Safe(κ), Eq. 29 and Table 2
    bounds); one refused record refuses the file. Records without a hash arrive under review."""
    from semv.memory import MemoryStore

    try:
        report = MemoryStore(open_store(data_dir, store_url), bank).import_checked(
            file, settings_from(config).memory
        )
    except SemvError as exc:
        fail(exc)
    for rid, why in report.quarantined:
        err.print(f"  {rid}: {why}", highlight=False)
    err.print(f"imported {report.imported} records from {file}", highlight=False)


def _warn_empty_snapshot(store: Store, bank: str, snapshot: str | None) -> None:
    """Warn when the snapshot to evaluate holds no long-term record: memory on = memory off."""
    from semv.memory import MemoryStore

    ms = MemoryStore(store, bank)
    frozen = ms.state().frozen
    if frozen is None and snapshot is None:
        return  # transfer itself refuses: the bank is not frozen
    digest, records = ms.snapshot_records(snapshot or str(frozen))
    if not records:
        err.print(
            f"[bold yellow]warning:[/] snapshot {digest[:16]} of memory bank {bank!r} holds no "
            "long-term records: memory on will equal memory off (learn first with "
            "`semv learn DATASET`, then `semv memory freeze`)",
            highlight=False,
        )


def _row(table: Table, name: str, r: TransferReport, off: bool = False) -> None:
    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f}"

    if off:
        table.add_row(name, pct(r.accuracy_off), "–", "–", "–", "–")
    else:
        table.add_row(
            name,
            pct(r.accuracy_on),
            pct(r.relevance),
            pct(r.successful_use),
            pct(r.trans_plus),
            pct(r.trans_minus),
        )


@memory_app.command("transfer")
def transfer_command(
    dataset: Annotated[Path, typer.Argument(help="Dataset file or folder.")],
    adapter: AdapterOpt = "cosmos",
    snapshot: Annotated[
        str | None,
        typer.Option("--snapshot", help="Snapshot hash (prefix); default: the frozen one."),
    ] = None,
    memory: Annotated[
        str | None,
        typer.Option(
            "--memory", hidden=True, help="Deprecated alias of --snapshot (a hash prefix)."
        ),
    ] = None,
    limit: Limit = None,
    part: Part = "eval",
    seed: Seed = 13,
    fraction: Fraction = 0.6,
    with_ablations: Annotated[
        bool,
        typer.Option(
            "--ablations", help="Also learn and evaluate every policy of Table 8 (own banks)."
        ),
    ] = False,
    learn_from: Annotated[
        Path | None,
        typer.Option(
            "--learn-from",
            help="With --ablations: learn from all cases of this other dataset (transfer "
            "across sets) instead of the learning part of DATASET.",
        ),
    ] = None,
    learn_adapter: Annotated[
        str | None,
        typer.Option("--learn-adapter", help="Adapter of --learn-from (default: --adapter)."),
    ] = None,
    bank: Bank = "default",
    text_only: TextOnlyFlag = False,
    json_out: JsonFlag = False,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    config: ConfigFile = None,
) -> None:
    """Matched memory-off vs memory-on evaluation on the same cases with a frozen snapshot:
    accuracy, retrieval relevance, successful use, Trans+ and Trans- (Table 8)."""
    import asyncio

    from rich.table import Table

    from semv.agents.offline import OfflineAgents
    from semv.config import load_settings
    from semv.learning import ablations, transfer

    try:
        settings: Settings = load_settings(config)
        contract, learn_part, eval_part = _cases(
            dataset, adapter, text_only=text_only, part=part, seed=seed, fraction=fraction
        )
        cases: Sequence[LoadedCase] = eval_part[:limit] if limit else eval_part
        if learn_from is not None:
            if not with_ablations:
                raise InputError("--learn-from needs --ablations (it names what they learn from)")
            other, learn_part, _ = _cases(
                learn_from,
                learn_adapter or adapter,
                text_only=text_only,
                part="all",
                seed=seed,
                fraction=fraction,
            )
            if other != contract:
                raise InputError(
                    f"{learn_from}: label contract {other} differs from {dataset}'s {contract}"
                )
            overlap = {c.case.id for c in learn_part} & {c.case.id for c in cases}
            if overlap:
                raise InputError(
                    f"{learn_from} and {dataset} share {len(overlap)} case ids: transfer is "
                    "measured on cases that were not learned from"
                )
        if memory is not None:
            deprecated("--memory", "--snapshot", "memory transfer")
            snapshot = snapshot or memory
        store = open_store(data_dir, store_url)
        if not with_ablations:
            _warn_empty_snapshot(store, bank, snapshot)
    except SemvError as exc:
        fail(exc)
    agents = OfflineAgents(settings)
    try:
        with progress(json_out) as bar:
            task = bar.add_task(f"transfer {dataset.name}", total=None)
            tick = lambda _c: bar.advance(task)  # noqa: E731
            if with_ablations:
                rows = asyncio.run(
                    ablations(
                        learn_part,
                        cases,
                        store=store,
                        settings=settings,
                        agents=agents,
                        contract=contract,
                        bank_prefix=bank,
                        on_case=tick,
                    )
                )
                results = [(row.config, row.report) for row in rows]
            else:
                report = asyncio.run(
                    transfer(
                        cases,
                        store=store,
                        settings=settings,
                        agents=agents,
                        contract=contract,
                        bank=bank,
                        snapshot=snapshot,
                        on_case=tick,
                    )
                )
                results = [("∅ (memory off)", report), ("memory on", report)]
    except SemvError as exc:
        fail(exc)
    finally:
        store.close()
    if json_out:
        doc = [{"config": name, **r.as_dict()} for name, r in results[1:]]
        sys.stdout.write(json.dumps(doc) + "\n")
        return
    table = Table(
        "memory config",
        "Acc.",
        "Rel.",
        "Succ. use",
        "Trans+",
        "Trans-",
        title="Table 8 (%, matched cases)",
    )
    _row(table, results[0][0], results[0][1], off=True)
    for name, r in results[1:]:
        _row(table, name, r)
    out.print(table)
    if with_ablations:
        from semv.glossary import explain

        for symbol in ("M^epi", "MU", "VC", "CR"):
            out.print(f"  {symbol}: {explain(symbol)}", highlight=False)
    for name, r in results[1:]:
        out.print(
            f"{name}: n {r.n}, Δacc {100 * r.delta:+.1f} pp, fixed {r.fixed}/{r.wrong_off}, "
            f"broken {r.broken}/{r.right_off}, snapshot {r.snapshot[:16]} "
            f"{'bit-identical' if r.snapshot_identical else 'CHANGED'} before/after"
        )
