"""The learning run (SEMV §5.2): cases in a fixed order through modules A-E, each report
committed, then the gold label revealed to Module F, reflection, the gate (Eq. 26), staging,
and consolidation every ``memory.consolidate_every`` cases. Prints Table 7's metrics.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from semv.adapters import LoadedCase
from semv.agents import Agents
from semv.config import Settings
from semv.errors import StageError
from semv.learning._gold import contract_gold
from semv.memory import (
    REJECTED,
    VERIFIED,
    ConsolidationCounts,
    MemoryStore,
    OfflineReflector,
    Policy,
    ReflectInput,
    Reflector,
    Status,
    UsageKind,
    active_memory,
    consolidate,
    load_trace,
    log_usage,
    table7,
    to_candidate,
    verify_candidate,
)
from semv.nlp.similarity import similarity
from semv.pipeline import run_graded
from semv.store import Store, sha256_text

logger = logging.getLogger(__name__)

__all__ = ["LearnReport", "learn", "learning_order"]


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
    source: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
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


def learning_order(
    cases: Sequence[LoadedCase], source: dict[str, str] | None = None
) -> dict[str, Any]:
    """What a learning run records about its order: the source, the number of cases, the
    first and last case id, and sha256 over the ids in order."""
    ids = [c.case.id for c in cases]
    return {
        **(source or {}),
        "cases": len(ids),
        "first": ids[0] if ids else None,
        "last": ids[-1] if ids else None,
        "order": sha256_text("\n".join(ids)),
    }


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
    source: dict[str, str] | None = None,
) -> LearnReport:
    """One learning (bootstrap) run over ``cases`` in their given order. ``source`` (e.g. the
    dataset and adapter) is recorded with the order in the ``learn.started`` trace event, so
    a bank learned from several datasets says which came when."""
    ms = MemoryStore(store, bank)
    ms.guard("learning run")
    config = settings.memory
    reflector = reflector if reflector is not None else OfflineReflector(settings)
    learn_ids = {c.case.id for c in cases}
    report = LearnReport(bank=bank, policy=policy.value, source=dict(source or {}))
    ms.trace("learn.started", None, {**learning_order(cases, source), "policy": policy.value})
    memory = active_memory(ms, config)

    def relate(a: str, b: str) -> float:
        return similarity(a, b, settings.offline).value

    for loaded in cases:
        try:
            graded = await run_graded(
                loaded,
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
        run = graded.outcome
        revealed = graded.gold_label()  # only after the commit (I_gold)
        if revealed is None:
            count = ms.register_case()
        else:
            gold = contract_gold(revealed, contract)  # read in the run's label contract
            correct = run.result.label == gold
            report.correct += int(correct)
            trace = load_trace(store, run.result.run_id)
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
                    seen=ms.seen_sources(cand.key, cand.polarity),
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
