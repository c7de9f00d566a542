"""Memory in the stage graph: recall fingerprints follow the memory hash, memory is never
evidence (Def. 3.1), frozen evaluation leaves the snapshot bit-identical, reflection only
after commit, and a real learning run on OOKPIK rows."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from semv.adapters import LoadedCase, SealedGold, get_adapter
from semv.agents import ArgueInput, ArgueOutput, ArgumentDraft
from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.learning import learn, transfer
from semv.memory import (
    ActiveMemory,
    MemoryFrozen,
    MemoryStore,
    MemoryType,
    OfflineReflector,
    Record,
    ReflectInput,
    ReflectOutput,
    Status,
    load_trace,
    split_cases,
)
from semv.model import Arguments, MemoryView, RunStatus, Stance, TraceKind, UncertaintyCode
from semv.pipeline import RunOutcome, run_case
from semv.store import Store
from tests.conftest import shared_data
from tests.scripted_agents import ScriptedAgents
from tests.test_pipeline import CASE, SCRIPT

SETTINGS = Settings()


def record(
    n: int, lesson: str = "Flooding photos of Paris are recycled: look for earlier captions."
) -> Record:
    return Record(
        id=f"mem:fail:{n:05d}",
        type=MemoryType.FAILURE,
        status=Status.ACTIVE,
        key=f"internal|why|add-check|evidence=fact-check|n={n}",
        lesson=lesson,
        task="internal",
        dimension="why",
        trigger={"evidence": "fact-check"},
        action="add-check",
        checks=("earlier captions of the same photo",),
        alpha=2.6,
        beta=1.4,
        n_support=2,
        cases=("a", "b"),
        fingerprints=("fa", "fb"),
    )


def memory(records: list[Record], digest: str) -> ActiveMemory:
    return ActiveMemory.of("t", digest, records, SETTINGS.memory, frozen=True)


def run(store: Store, agents: ScriptedAgents, mem: ActiveMemory | None) -> RunOutcome:
    return asyncio.run(
        run_case(
            CASE, store=store, settings=SETTINGS, agents=agents, contract="internal", memory=mem
        )
    )


def test_recall_fingerprint_follows_the_memory_hash(data_dir: Path) -> None:
    store = Store(data_dir)
    agents = ScriptedAgents(SCRIPT)
    first = run(store, agents, memory([record(1)], "h1"))
    view = first.nodes["recall:why"].value
    assert isinstance(view, MemoryView)
    assert view.records == ("mem:fail:00001",) and view.memory_hash == "h1"
    assert first.nodes["recall:what"].value.records == ()  # type: ignore[attr-defined]
    again = run(store, agents, memory([record(1)], "h1"))
    assert again.executed == 0  # unchanged memory: every plan and argue node reused
    changed = run(store, agents, memory([record(1), record(2)], "h2"))
    for dim in ("what", "why"):
        assert not changed.nodes[f"recall:{dim}"].reused
        assert not changed.nodes[f"plan:{dim}"].reused
    assert changed.nodes["bundle"].reused and changed.nodes["claims"].reused
    off = run(store, agents, None)
    assert not off.nodes["recall:why"].reused  # memory-off recall is a different node
    assert off.nodes["recall:why"].value.records == ()  # type: ignore[attr-defined]


class MemoryCitingAgents(ScriptedAgents):
    """Adds, for ``why``, an argument that cites only a recalled memory id."""

    async def argue(self, request: ArgueInput) -> ArgueOutput:
        out = await super().argue(request)
        if request.subclaim.dimension.value != "why" or not request.memory.records:
            return out
        draft = ArgumentDraft(
            stance=Stance.ATTACK,
            text="A remembered case says this photo was recycled.",
            evidence=(),
            memory=request.memory.records,
        )
        return ArgueOutput(drafts=(*out.drafts, draft), uncertainty=out.uncertainty)


def test_argument_citing_only_memory_is_inadmissible_and_traced(data_dir: Path) -> None:
    store = Store(data_dir)
    outcome = run(store, MemoryCitingAgents(SCRIPT), memory([record(1)], "h1"))
    args = outcome.nodes["argue:why"].value
    assert isinstance(args, Arguments)
    (arg,) = [a for a in args.arguments if a.memory]
    assert arg.memory == ("mem:fail:00001",) and arg.evidence == ()
    assert not arg.admissible and not arg.verified
    assert UncertaintyCode.MEMORY_NOT_EVIDENCE in arg.uncertainty
    assert any(
        u.code is UncertaintyCode.MEMORY_NOT_EVIDENCE and u.subject == arg.id
        for u in args.uncertainty
    )
    # the committed node is in the run's hash-chained trace with that output
    run_id = outcome.result.run_id
    (event,) = [
        e
        for e in store.trace(run_id)
        if e.node == "argue:why" and e.kind is TraceKind.NODE_EXECUTED
    ]
    assert event.payload["output"] == outcome.nodes["argue:why"].output_hash
    assert "memory-not-evidence" in store.node_value_json(run_id, "argue:why")
    assert store.verify_trace(run_id).ok


def _loaded(case_id: str, gold: str) -> LoadedCase:
    return LoadedCase(case=CASE.model_copy(update={"id": case_id}), gold=SealedGold(gold))


def test_frozen_evaluation_keeps_the_snapshot_bit_identical(data_dir: Path) -> None:
    store = Store(data_dir)
    ms = MemoryStore(store, "t")
    ms.put(record(1))
    digest = ms.freeze()
    report = asyncio.run(
        transfer(
            [_loaded("c1", "false-context"), _loaded("c2", "verified")],
            store=store,
            settings=SETTINGS,
            agents=MemoryCitingAgents(SCRIPT),
            contract="internal",
            bank="t",
        )
    )
    assert report.n == 2 and report.snapshot == digest
    assert report.hash_before == report.hash_after == digest and report.snapshot_identical
    assert report.retrieved > 0 and report.cited > 0
    assert report.successful == 0  # memory-only arguments never count as successful use
    assert ms.usage_counts()["retrieved"] == report.retrieved  # logged outside the snapshot
    with pytest.raises(MemoryFrozen):
        asyncio.run(
            learn(
                [_loaded("c3", "verified")],
                store=store,
                settings=SETTINGS,
                agents=ScriptedAgents(SCRIPT),
                contract="internal",
                bank="t",
            )
        )
    assert ms.events("rejected")[-1]["payload"]["operation"] == "learning run"
    assert ms.long_term_hash() == digest


class SpyReflector:
    name = "spy"

    def __init__(self, store: Store) -> None:
        self.store = store
        self.seen: list[RunStatus] = []

    async def reflect(self, request: ReflectInput) -> ReflectOutput:
        self.seen.append(self.store.get_run(request.trace.run_id).status)
        return ReflectOutput()


def test_reflection_sees_only_committed_runs(data_dir: Path) -> None:
    store = Store(data_dir)
    spy = SpyReflector(store)
    asyncio.run(
        learn(
            [_loaded("c1", "false-context"), _loaded("c2", "verified")],
            store=store,
            settings=SETTINGS,
            agents=ScriptedAgents(SCRIPT),
            contract="internal",
            bank="spy",
            reflector=spy,
        )
    )
    assert spy.seen == [RunStatus.COMMITTED, RunStatus.COMMITTED]
    with pytest.raises(Exception, match="revealed only after"):
        SealedGold("OOC").reveal(RunStatus.RUNNING)


def test_learning_run_on_ookpik_rows(data_dir: Path) -> None:
    path = shared_data("ookpik-dev", "dev_data.json")
    cases = list(get_adapter("cosmos").load(path, text_only=True))
    learn_part, eval_part = split_cases(cases, seed=13, learn_fraction=0.6)
    assert {c.case.id for c in learn_part}.isdisjoint(c.case.id for c in eval_part)
    assert len(learn_part) == 87 and len(eval_part) == 58
    store = Store(data_dir)
    agents = OfflineAgents(SETTINGS)
    report = asyncio.run(
        learn(learn_part[:30], store=store, settings=SETTINGS, agents=agents, contract="cosmos")
    )
    assert report.cases == 30 and report.failed == 0
    ms = MemoryStore(store)
    staged = ms.candidates()
    assert staged, "30 OOKPIK rows should produce at least one reflected candidate"
    for cand, status, reason, _ in staged:
        trace = load_trace(store, cand.source_run)
        assert trace.case.id == cand.source_case
        if status != "rejected":  # gate passed: grounding resolves in the source trace
            assert set(cand.evidence) <= trace.evidence_ids()
            assert set(cand.arguments) <= trace.argument_ids()
        else:
            assert reason
    # offline reflection is deterministic: the same trace gives the same drafts
    cand = staged[0][0]
    trace = load_trace(store, cand.source_run)
    gold = "OOC" if cand.polarity > 0 else "NOOC"
    reflector = OfflineReflector(SETTINGS)
    one = asyncio.run(reflector.reflect(ReflectInput(trace=trace, task="cosmos", gold=gold)))
    two = asyncio.run(reflector.reflect(ReflectInput(trace=trace, task="cosmos", gold=gold)))
    assert one == two and one.drafts
