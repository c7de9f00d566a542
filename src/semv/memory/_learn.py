"""The learning run (SEMV §5.2): cases in a fixed order through modules A-E, each report
committed, then the gold label revealed to Module F, reflection, the gate (Eq. 26), staging,
and consolidation every ``memory.consolidate_every`` cases. Prints Table 7's metrics.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from semv.adapters import LoadedCase
from semv.agents import Agents
from semv.config import MemoryConfig, Settings
from semv.errors import InputError, StageError
from semv.memory._consolidate import ConsolidationCounts, Policy, consolidate
from semv.memory._gate import REJECTED, UNDER_REVIEW, VERIFIED, verify_candidate
from semv.memory._model import Candidate, Status, UsageKind
from semv.memory._reflect import CandidateDraft, OfflineReflector, ReflectInput, Reflector
from semv.memory._retrieve import ActiveMemory
from semv.memory._store import LONG_TERM, MemoryStore, snapshot_hash
from semv.memory._trace import CaseTrace, load_trace
from semv.model import Argument
from semv.nlp.similarity import similarity
from semv.pipeline import run_case
from semv.store import Store, sha256_text

logger = logging.getLogger(__name__)

__all__ = [
    "LearnReport",
    "active_memory",
    "learn",
    "log_contested",
    "log_usage",
    "split_cases",
    "table7",
    "to_candidate",
]


def split_cases(
    cases: Sequence[LoadedCase], *, seed: int, learn_fraction: float
) -> tuple[list[LoadedCase], list[LoadedCase]]:
    """A fixed-seed split into a learning part and an evaluation part, in the input order.

    Cases are ranked by sha256(seed, case id), never by their (sealed) labels; the first
    ``learn_fraction`` of that ranking is the learning part."""
    ranked = sorted(
        range(len(cases)),
        key=lambda i: hashlib.sha256(f"{seed}:{cases[i].case.id}".encode()).hexdigest(),
    )
    n_learn = round(len(cases) * learn_fraction)
    learn_idx = set(ranked[:n_learn])
    learn_part = [c for i, c in enumerate(cases) if i in learn_idx]
    eval_part = [c for i, c in enumerate(cases) if i not in learn_idx]
    return learn_part, eval_part


def active_memory(ms: MemoryStore, config: MemoryConfig) -> ActiveMemory:
    """The graph source for memory-on runs: active records, identified by the M^L hash."""
    records = ms.records(*LONG_TERM)
    state = ms.state()
    digest = ms.long_term_hash()
    return ActiveMemory.of(ms.bank, digest, records, config, frozen=state.frozen is not None)


def memory_as_of(
    store: Store, bank: str, digest: str, config: MemoryConfig, *, frozen: bool
) -> ActiveMemory:
    """The long-term memory a past run recalled from (bank ``bank``, M^L hash ``digest``):
    the bank's current long-term memory if its hash is still ``digest``, else the stored
    snapshot with that hash. ``InputError`` when neither exists (the memory has moved on and
    was never frozen at that state)."""
    ms = MemoryStore(store, bank)
    records = ms.records(*LONG_TERM)
    if snapshot_hash(records) != digest:
        try:
            _, records = ms.snapshot_records(digest)
        except InputError as exc:
            raise InputError(
                f"memory bank {bank!r} at {digest[:12]} is neither the current long-term "
                "memory nor a stored snapshot (freeze the memory before it changes to keep "
                "such runs contestable)"
            ) from exc
    return ActiveMemory.of(bank, digest, records, config, frozen=frozen)


def source_fingerprint(trace: CaseTrace, draft: CandidateDraft) -> str:
    """The source an experience came from: the content of its grounding evidence."""
    pool = trace.evidence()
    parts = sorted(pool[e].content for e in draft.evidence if e in pool)
    if not parts:
        parts = [f"case:{trace.case.id}"]
    return sha256_text("\x1f".join(parts))[:32]


def to_candidate(
    ms: MemoryStore,
    trace: CaseTrace,
    draft: CandidateDraft,
    *,
    task: str,
    supervision: str,
    reflector: str,
) -> Candidate:
    return Candidate(
        id=ms.new_id("cand"),
        type=draft.type,
        diagnosis=draft.diagnosis,
        lesson=draft.lesson,
        task=task,
        dimension=draft.dimension,
        trigger=draft.trigger,
        pattern=draft.pattern,
        action=draft.action,
        params=draft.params,
        queries=draft.queries,
        source_types=draft.source_types,
        checks=draft.checks,
        polarity=draft.polarity,
        evidence=draft.evidence,
        arguments=draft.arguments,
        source_case=trace.case.id,
        source_run=trace.run_id,
        source_fingerprint=source_fingerprint(trace, draft),
        confidence=draft.confidence,
        supervision=supervision,
        reflector=reflector,
    )


def log_usage(ms: MemoryStore, trace: CaseTrace, correct: bool | None) -> dict[str, int]:
    """Usage events of one run: retrieved, cited in planning, cited in argument construction,
    used successfully (cited by a verified, admissible argument of a correct decision)."""
    counts: dict[str, int] = {}

    def log(record: str, kind: UsageKind) -> None:
        ms.record_usage(trace.run_id, record, kind)
        counts[kind.value] = counts.get(kind.value, 0) + 1

    for dim, view in trace.recalled.items():
        for rec in view.records:
            log(rec, UsageKind.RETRIEVED)
        for rec in trace.plans[dim].memory_used:
            log(rec, UsageKind.CITED_PLANNING)
        for arg in trace.arguments[dim].arguments:
            for rec in arg.memory:
                log(rec, UsageKind.CITED_ARGUMENT)
                if correct and arg.verified and arg.admissible:
                    log(rec, UsageKind.USED_SUCCESSFULLY)
    return counts


def log_contested(ms: MemoryStore, run_id: str, arguments: Iterable[Argument]) -> int:
    """Usage event ``contested`` for every memory id cited by a contested argument (for the
    contestation module to call when a reviewer rejects or edits such an argument)."""
    n = 0
    for arg in arguments:
        for rec in arg.memory:
            ms.record_usage(run_id, rec, UsageKind.CONTESTED)
            n += 1
    return n


@dataclass
class LearnReport:
    bank: str
    policy: str
    cases: int = 0
    failed: int = 0
    correct: int = 0
    candidates: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    consolidations: list[ConsolidationCounts] = field(default_factory=list)
    long_term: dict[str, int] = field(default_factory=dict)
    long_term_hash: str = ""
    reflect_fallbacks: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "bank": self.bank,
            "policy": self.policy,
            "cases": self.cases,
            "failed": self.failed,
            "accuracy_during_learning": self.correct / self.cases if self.cases else None,
            "candidates": self.candidates,
            "table7": table7(self.statuses),
            "long_term": self.long_term,
            "long_term_hash": self.long_term_hash,
            "consolidations": len(self.consolidations),
            "reflect_fallbacks": self.reflect_fallbacks,
        }


def table7(statuses: dict[str, int]) -> dict[str, float | int]:
    """Table 7: grounding pass over all candidates; promotion, merge, conflict retention and
    rejection conditional on grounding pass (pending = still in short-term memory)."""
    total = sum(statuses.values())
    gate_failed = statuses.get(REJECTED, 0) + statuses.get(UNDER_REVIEW, 0)
    grounded = total - gate_failed
    pending = statuses.get(VERIFIED, 0)
    rejected = statuses.get("dropped", 0) + statuses.get("archived", 0)

    def rate(n: int, d: int) -> float:
        return n / d if d else 0.0

    return {
        "candidates": total,
        "grounding_pass": rate(grounded, total),
        "promotion": rate(statuses.get("promoted", 0), grounded),
        "merge": rate(statuses.get("merged", 0), grounded),
        "conflict_retention": rate(statuses.get("conflict", 0), grounded),
        "rejection": rate(rejected, grounded),
        "pending": rate(pending, grounded),
        "under_review": statuses.get(UNDER_REVIEW, 0),
        "gate_rejected": statuses.get(REJECTED, 0),
    }


def _refresh_use(ms: MemoryStore) -> None:
    """Copy prior-use counts into active records (learning mode only; never while frozen)."""
    counts = ms.record_usage_counts()
    for rec in ms.records(Status.ACTIVE):
        c = counts.get(rec.id, {})
        retrieved = c.get(UsageKind.RETRIEVED.value, 0)
        successful = c.get(UsageKind.USED_SUCCESSFULLY.value, 0)
        if (retrieved, successful) != (rec.uses_retrieved, rec.uses_successful):
            ms.put(
                rec.model_copy(update={"uses_retrieved": retrieved, "uses_successful": successful}),
                operation="usage update",
            )


async def learn(
    cases: Sequence[LoadedCase],
    *,
    store: Store,
    settings: Settings,
    agents: Agents,
    contract: str,
    bank: str = "default",
    reflector: Reflector | None = None,
    policy: Policy = Policy.FULL,
    on_case: Callable[[str], None] | None = None,
) -> LearnReport:
    """One learning (bootstrap) run over ``cases`` in their given order."""
    ms = MemoryStore(store, bank)
    ms.guard("learning run")
    config = settings.memory
    reflector = reflector if reflector is not None else OfflineReflector(settings)
    learn_ids = {c.case.id for c in cases}
    report = LearnReport(bank=bank, policy=policy.value)
    ms.trace("learn.started", None, {"cases": len(cases), "policy": policy.value})
    memory = active_memory(ms, config)

    def relate(a: str, b: str) -> float:
        return similarity(a, b, settings.offline).value

    for loaded in cases:
        try:
            run = await run_case(
                loaded.case,
                store=store,
                settings=settings,
                agents=agents,
                contract=contract,
                memory=memory,
            )
        except StageError as exc:  # the failed run stays in the store; learning goes on
            logger.warning("%s: %s", loaded.case.id, exc)
            report.failed += 1
            continue
        report.cases += 1
        committed = store.get_run(run.result.run_id)
        if loaded.gold is None:
            count = ms.register_case()
        else:
            gold = loaded.gold.reveal(committed.status)  # only after the commit (I_gold)
            correct = run.result.label == gold
            report.correct += int(correct)
            trace = load_trace(store, committed.run_id)
            log_usage(ms, trace, correct)
            out = await reflector.reflect(ReflectInput(trace=trace, task=contract, gold=gold))
            if out.reflector is not None:  # a fallback reflected instead: say so in the trace
                report.reflect_fallbacks += 1
                ms.trace(
                    "reflect.fallback",
                    trace.run_id,
                    {
                        "reflector": reflector.name,
                        "instead": out.reflector,
                        "notes": [n.model_dump(mode="json") for n in out.notes],
                    },
                )
            count = ms.register_case()
            evidence_ids, argument_ids = trace.evidence_ids(), trace.argument_ids()
            for draft in out.drafts:
                cand = to_candidate(
                    ms,
                    trace,
                    draft,
                    task=contract,
                    supervision="gold",
                    reflector=out.reflector or reflector.name,
                )
                report.candidates += 1
                if policy is Policy.UNRESTRICTED:
                    ms.stage(cand, VERIFIED, "unrestricted update: gate bypassed", count)
                    continue
                result = verify_candidate(
                    cand,
                    learn_cases=learn_ids,
                    evidence_ids=evidence_ids,
                    argument_ids=argument_ids,
                    theta_v=config.theta_v,
                    seen=ms.seen_sources(cand.key),
                )
                if policy is Policy.EPISODIC and result.verified and cand.polarity < 0:
                    ms.stage(cand, REJECTED, "episodic policy keeps no counter-evidence", count)
                    continue
                ms.stage(cand, result.status, "; ".join(result.reasons), count)
        if count % config.consolidate_every == 0:
            _refresh_use(ms)
            report.consolidations.append(
                consolidate(ms, config, policy=policy, learn_count=count, relate=relate)
            )
            memory = active_memory(ms, config)
        if on_case is not None:
            on_case(loaded.case.id)
    if ms.state().learn_count % config.consolidate_every != 0:
        _refresh_use(ms)
        report.consolidations.append(
            consolidate(
                ms, config, policy=policy, learn_count=ms.state().learn_count, relate=relate
            )
        )
    report.statuses = {}
    for _c, status, _r, _s in ms.candidates():
        report.statuses[status] = report.statuses.get(status, 0) + 1
    for rec in ms.records():
        label = f"{rec.type.value}/{rec.status.value}"
        report.long_term[label] = report.long_term.get(label, 0) + 1
    report.long_term_hash = ms.long_term_hash()
    ms.trace("learn.finished", None, {"cases": report.cases, "hash": report.long_term_hash})
    return report
