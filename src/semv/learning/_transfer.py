"""Transfer evaluation (SEMV §6.3, Table 8): matched memory-off and memory-on runs over the
same cases with a frozen snapshot; accuracy, retrieval relevance, successful use, Trans⁺ and
Trans⁻, plus the memory-policy ablations (∅ / episodic / +MU / +VC / +CR).

Trans⁺ = share of the cases wrong without memory that are right with it; Trans⁻ = share of the
cases right without memory that are wrong with it. The snapshot's hash is checked before and
after the memory-on pass (Remark 4.3: bit-identical).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from semv.adapters import LoadedCase
from semv.agents import Agents
from semv.config import Settings
from semv.errors import InputError, StageError
from semv.learning._gold import contract_gold
from semv.learning._learn import learn
from semv.memory import (
    Action,
    ActiveMemory,
    CaseTrace,
    MemoryStore,
    Policy,
    Record,
    Reflector,
    argument_cue,
    context_signal,
    evidence_pattern,
    load_trace,
    log_usage,
    matches,
)
from semv.model import UncertaintyCode
from semv.pipeline import run_graded
from semv.store import Store

__all__ = ["AblationRow", "TransferReport", "ablations", "transfer"]


@dataclass
class TransferReport:
    n: int = 0
    snapshot: str = ""
    accuracy_off: float = 0.0
    accuracy_on: float = 0.0
    delta: float = 0.0
    trans_plus: float | None = None
    trans_minus: float | None = None
    fixed: int = 0
    broken: int = 0
    wrong_off: int = 0
    right_off: int = 0
    retrieved: int = 0
    relevant: int = 0
    relevance: float | None = None
    cited: int = 0
    successful: int = 0
    successful_use: float | None = None
    hash_before: str = ""
    hash_after: str = ""
    snapshot_identical: bool = False
    failed: int = 0
    changed_cases: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _relevant(rec: Record, dim: str, trace: CaseTrace, task: str, settings: Settings) -> bool:
    """A retrieved record matches the current claim, evidence context and task scope: same
    task and subclaim, and its trigger holds on the subclaim's validated evidence (a strength
    lesson: on one of the subclaim's arguments)."""
    if rec.task != task or rec.dimension != dim:
        return False
    ranked = trace.ranked[dim].evidence
    if rec.action == Action.ADJUST_STRENGTH.value:
        pool = trace.evidence()
        subclaim = trace.claims.subclaims[dim]
        for arg in trace.arguments[dim].arguments:
            cue = argument_cue(
                arg,
                pool,
                claim=trace.case.claim,
                subclaim=subclaim,
                language=trace.case.context.language,
                settings=settings,
            )
            if cue is not None and matches(rec.trigger, cue):
                return True
        return False
    if rec.action == Action.CONTEXT_THRESHOLD.value:
        threshold = rec.params.get("threshold", 0.0)
        for ev in ranked:
            signal = context_signal(trace, ev, settings)
            if signal is not None and not signal[1] and signal[0] < threshold:
                return True
        return False
    if "uncertainty" in rec.trigger:
        return any(
            u.code.value == rec.trigger["uncertainty"] for u in trace.solved[dim].uncertainty
        )
    wanted = {f"evidence={rec.trigger['evidence']}"} if "evidence" in rec.trigger else set()
    return wanted <= evidence_pattern(ranked)


async def transfer(
    cases: Sequence[LoadedCase],
    *,
    store: Store,
    settings: Settings,
    agents: Agents,
    contract: str,
    bank: str = "default",
    snapshot: str | None = None,
    on_case: Callable[[str], None] | None = None,
) -> TransferReport:
    """Matched memory-off / memory-on evaluation against the bank's frozen snapshot."""
    ms = MemoryStore(store, bank)
    frozen = ms.state().frozen
    if frozen is None:
        raise InputError(f"memory bank {bank!r} is not frozen: run `semv memory freeze` first")
    digest, records = ms.snapshot_records(snapshot or frozen)
    if digest != frozen:
        raise InputError(
            f"memory bank {bank!r} is frozen at {frozen[:16]}, not at snapshot {digest[:16]}"
        )
    report = TransferReport(snapshot=digest, hash_before=ms.long_term_hash())
    if report.hash_before != digest:
        raise InputError(
            f"memory bank {bank!r} no longer matches its frozen snapshot {digest[:16]}"
        )
    memory = ActiveMemory.of(bank, digest, records, settings.memory, frozen=True)
    by_id = {r.id: r for r in records}
    correct_off = correct_on = 0
    for loaded in cases:
        if loaded.gold is None:
            continue
        try:
            graded_off = await run_graded(
                loaded, store=store, settings=settings, agents=agents, contract=contract
            )
            graded_on = await run_graded(
                loaded,
                store=store,
                settings=settings,
                agents=agents,
                contract=contract,
                memory=memory,
            )
        except StageError:
            report.failed += 1
            continue
        off, on = graded_off.outcome, graded_on.outcome
        gold_off = contract_gold(loaded.gold.reveal(graded_off.status), contract)
        gold = contract_gold(loaded.gold.reveal(graded_on.status), contract)
        ok_off = off.result.label == gold_off
        ok_on = on.result.label == gold
        report.n += 1
        correct_off += ok_off
        correct_on += ok_on
        report.wrong_off += not ok_off
        report.right_off += ok_off
        report.fixed += (not ok_off) and ok_on
        report.broken += ok_off and not ok_on
        if ok_off != ok_on:
            report.changed_cases.append(
                {
                    "case": loaded.case.id,
                    "off": off.result.label,
                    "on": on.result.label,
                    "gold": gold,
                }
            )
        trace = load_trace(store, on.result.run_id)
        log_usage(ms, trace, ok_on)  # usage events live outside the snapshot
        for dim, view in trace.recalled.items():
            for rid in view.records:
                report.retrieved += 1
                rec = by_id.get(rid)
                report.relevant += rec is not None and _relevant(
                    rec, dim, trace, contract, settings
                )
            clash = any(
                u.code is UncertaintyCode.MAJOR_CONFLICT for u in trace.solved[dim].uncertainty
            )
            for arg in trace.arguments[dim].arguments:
                for _rid in arg.memory:
                    report.cited += 1
                    report.successful += arg.verified and arg.admissible and not clash and ok_on
        if on_case is not None:
            on_case(loaded.case.id)
    report.hash_after = ms.long_term_hash()
    report.snapshot_identical = report.hash_before == report.hash_after == digest
    if report.n:
        report.accuracy_off = correct_off / report.n
        report.accuracy_on = correct_on / report.n
        report.delta = report.accuracy_on - report.accuracy_off
    report.trans_plus = report.fixed / report.wrong_off if report.wrong_off else None
    report.trans_minus = report.broken / report.right_off if report.right_off else None
    report.relevance = report.relevant / report.retrieved if report.retrieved else None
    report.successful_use = report.successful / report.cited if report.cited else None
    return report


@dataclass
class AblationRow:
    config: str
    bank: str | None
    report: TransferReport
    learned: dict[str, Any] = field(default_factory=dict)


_ROWS = (
    (Policy.EPISODIC, "M^epi"),
    (Policy.UNRESTRICTED, "M^epi + MU"),
    (Policy.VERIFIED, "M^epi + MU + VC"),
    (Policy.FULL, "M^epi + MU + VC + CR"),
)


async def ablations(
    learn_cases: Sequence[LoadedCase],
    eval_cases: Sequence[LoadedCase],
    *,
    store: Store,
    settings: Settings,
    agents: Agents,
    contract: str,
    bank_prefix: str,
    reflector: Reflector | None = None,
    on_case: Callable[[str], None] | None = None,
) -> list[AblationRow]:
    """Table 8's rows: one learning pass per policy into its own bank (same cases, same
    order), freeze, then the matched transfer evaluation on the same evaluation cases."""
    rows: list[AblationRow] = []
    for policy, label in _ROWS:
        bank = f"{bank_prefix}-{policy.value}"
        ms = MemoryStore(store, bank)
        learned: dict[str, Any] = {}
        if ms.state().frozen is None:
            if ms.records() or ms.candidates():
                raise InputError(
                    f"memory bank {bank!r} already holds memory; choose another prefix"
                )
            rep = await learn(
                learn_cases,
                store=store,
                settings=settings,
                agents=agents,
                contract=contract,
                bank=bank,
                reflector=reflector,
                policy=policy,
                on_case=on_case,
            )
            learned = rep.as_dict()
            ms.freeze()
        result = await transfer(
            eval_cases,
            store=store,
            settings=settings,
            agents=agents,
            contract=contract,
            bank=bank,
            on_case=on_case,
        )
        if not rows:
            rows.append(AblationRow("∅ (memory off)", None, result))
        rows.append(AblationRow(label, bank, result, learned))
    return rows
