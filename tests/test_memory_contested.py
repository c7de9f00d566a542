"""Contestation feeds memory: revising a memory-on run logs ``contested`` usage events for the
records its reopened arguments cited, under the parent run, outside the frozen snapshot."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from semv.contest import revise
from semv.errors import ContestError
from semv.memory import ActiveMemory, MemoryStore, UsageKind
from semv.model import Arguments, Reject
from semv.store import Store
from tests.scripted_agents import ScriptedAgents
from tests.test_memory_pipeline import SETTINGS, MemoryCitingAgents, record, run
from tests.test_pipeline import SCRIPT


def _memory(ms: MemoryStore) -> ActiveMemory:
    ms.put(record(1), operation="test")
    digest = ms.freeze()
    return ActiveMemory.of(ms.bank, digest, [record(1)], SETTINGS.memory, frozen=True)


def test_revising_a_memory_on_run_logs_contested_usage(data_dir: Path) -> None:
    store = Store(data_dir)
    ms = MemoryStore(store, "t")
    mem = _memory(ms)
    agents = MemoryCitingAgents(SCRIPT)
    parent = run(store, agents, mem).result.run_id
    args = Arguments.model_validate_json(store.node_value_json(parent, "argue:why"))
    cited = [a for a in args.arguments if a.memory]
    assert cited, "the scripted agents cite the recalled record on the why subclaim"
    snapshot = ms.long_term_hash()
    before = ms.usage_counts([parent]).get(UsageKind.CONTESTED.value, 0)

    # contesting another subclaim: the memory-shaped why arguments are not reopened
    what = Arguments.model_validate_json(store.node_value_json(parent, "argue:what"))
    other = what.arguments[0].id
    asyncio.run(
        revise(
            store,
            parent,
            [Reject(target=other, reason="not what the photo shows")],
            settings=SETTINGS,
            agents=agents,
            memory=mem,
        )
    )
    assert ms.usage_counts([parent]).get(UsageKind.CONTESTED.value, 0) == before

    rev = asyncio.run(
        revise(
            store,
            parent,
            [Reject(target=cited[0].id, reason="the remembered case is another photo")],
            settings=SETTINGS,
            agents=agents,
            memory=mem,
        )
    )
    counts = ms.record_usage_counts()
    n_cites = sum(len(a.memory) for a in cited)
    assert ms.usage_counts([parent])[UsageKind.CONTESTED.value] == before + n_cites
    assert counts["mem:fail:00001"][UsageKind.CONTESTED.value] == n_cites
    assert UsageKind.CONTESTED.value not in ms.usage_counts([rev.run_id])
    # usage lives outside the snapshot: frozen M^L and its hash are unchanged
    assert ms.state().frozen == snapshot and ms.long_term_hash() == snapshot


def test_revising_without_memory_logs_nothing(data_dir: Path) -> None:
    store = Store(data_dir)
    ms = MemoryStore(store, "t")
    parent = run(store, ScriptedAgents(SCRIPT), None).result.run_id
    what = Arguments.model_validate_json(store.node_value_json(parent, "argue:what"))
    asyncio.run(
        revise(
            store,
            parent,
            [Reject(target=what.arguments[0].id, reason="wrong")],
            settings=SETTINGS,
            agents=ScriptedAgents(SCRIPT),
        )
    )
    assert ms.record_usage_counts() == {}


def test_a_revision_rebuilds_the_memory_its_parent_recalled_from(data_dir: Path) -> None:
    """Without ``memory=`` (the ``semv contest`` CLI), the revision finds the parent's memory
    from its bank and hash: the recall nodes are reused, not recomputed without memory."""
    store = Store(data_dir)
    ms = MemoryStore(store, "t")
    mem = _memory(ms)
    agents = MemoryCitingAgents(SCRIPT)
    parent = run(store, agents, mem).result.run_id
    ms.thaw()
    ms.put(record(2), operation="test")  # M^L moves on; the frozen snapshot keeps the old one
    assert ms.long_term_hash() != mem.hash
    what = Arguments.model_validate_json(store.node_value_json(parent, "argue:what"))
    rev = asyncio.run(
        revise(
            store,
            parent,
            [Reject(target=what.arguments[0].id, reason="not what the photo shows")],
            settings=SETTINGS,
            agents=agents,
        )
    )
    reused = {n.key for n in store.run_nodes(rev.run_id) if n.reused}
    assert {f"recall:{k}" for k in ("what", "where", "when", "who", "why")} <= reused
    assert rev.locality.value == 1.0


def test_a_memory_that_moved_on_unfrozen_cannot_be_rebuilt(data_dir: Path) -> None:
    store = Store(data_dir)
    ms = MemoryStore(store, "t")
    ms.put(record(1), operation="test")
    mem = ActiveMemory.of(ms.bank, ms.long_term_hash(), [record(1)], SETTINGS.memory, frozen=False)
    parent = run(store, MemoryCitingAgents(SCRIPT), mem).result.run_id
    ms.put(record(2), operation="test")  # never frozen: the old state is gone
    what = Arguments.model_validate_json(store.node_value_json(parent, "argue:what"))
    with pytest.raises(ContestError, match="neither the current long-term memory nor a stored"):
        asyncio.run(
            revise(
                store,
                parent,
                [Reject(target=what.arguments[0].id, reason="wrong")],
                settings=SETTINGS,
                agents=ScriptedAgents(SCRIPT),
            )
        )
