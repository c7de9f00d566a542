"""Store: append-only runs, hash-chained trace, tamper detection, on SQLite and on PostgreSQL
(``store_url``: the PostgreSQL half is marked ``postgres``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from semv.errors import RunNotFound, StoreError
from semv.model import RunStatus, TraceKind
from semv.store import NodeRecord, Store, canonical_json, genesis_hash


def _run(store: Store) -> str:
    return store.create_run(case_id="c1", adapter="generic", settings_hash="s", agents="a/1")


def test_trace_is_hash_chained_and_verifies(store_url: str) -> None:
    store = Store(url=store_url)
    run_id = _run(store)
    first = store.append_event(run_id, TraceKind.RUN_STARTED, payload={"x": 1})
    second = store.append_event(run_id, TraceKind.NODE_EXECUTED, node="bundle")
    assert first.prev_hash == genesis_hash(run_id)
    assert second.prev_hash == first.hash
    store.finish_run(run_id, RunStatus.FAILED, error="stopped before a verdict")
    check = store.verify_trace(run_id)
    assert check.ok and check.events == 2 and check.head == second.hash
    assert store.get_run(run_id).trace_head == second.hash


@pytest.mark.parametrize(
    ("statement", "problem"),
    [
        ("UPDATE trace SET payload='{\"x\": 2}' WHERE seq=0", "rewritten"),
        ("UPDATE trace SET kind='run.failed' WHERE seq=1", "rewritten"),
        ("DELETE FROM trace WHERE seq=0", "sequence"),
        ("DELETE FROM trace WHERE seq=2", "head"),
    ],
)
def test_rewritten_history_is_detected(store_url: str, statement: str, problem: str) -> None:
    store = Store(url=store_url)
    run_id = _run(store)
    store.append_event(run_id, TraceKind.RUN_STARTED, payload={"x": 1})
    store.append_event(run_id, TraceKind.NODE_EXECUTED, node="bundle")
    store.append_event(run_id, TraceKind.RUN_COMMITTED)
    store.finish_run(run_id, RunStatus.COMMITTED)
    with store.engine.begin() as conn:  # someone with database access rewrites history
        conn.execute(text(statement))
    store.close()
    check = Store(url=store_url).verify_trace(run_id)
    assert not check.ok
    assert problem in (check.problem or "")


def test_finished_run_is_never_modified(store_url: str) -> None:
    store = Store(url=store_url)
    run_id = _run(store)
    store.finish_run(run_id, RunStatus.COMMITTED, label="verified")
    with pytest.raises(StoreError, match="never modified"):
        store.finish_run(run_id, RunStatus.FAILED, error="again")
    assert store.get_run(run_id).label == "verified"


def test_run_lookup_by_prefix_and_unknown(store_url: str) -> None:
    store = Store(url=store_url)
    run_id = _run(store)
    assert store.get_run(run_id[:-2]).run_id == run_id
    with pytest.raises(RunNotFound):
        store.get_run("nope")


def test_cache_maps_fingerprint_to_content(store_url: str) -> None:
    store = Store(url=store_url)
    assert store.cached_output("f" * 64) is None
    store.remember("f" * 64, "bundle", "h" * 64, b'{"a":1}')
    store.remember("f" * 64, "bundle", "h" * 64, b'{"a":1}')  # idempotent
    assert store.cached_output("f" * 64) == "h" * 64
    assert store.get_blob("h" * 64) == b'{"a":1}'


def test_sqlite_runs_in_wal_mode(data_dir: Path) -> None:  # SQLite only
    Store(data_dir)
    engine = create_engine(f"sqlite:///{data_dir / 'semv.db'}")
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"


def test_batched_node_commit_extends_the_chain_like_single_appends(store_url: str) -> None:
    from semv.store import NodeRecord

    store = Store(url=store_url)
    store.remember("f" * 64, "s", "h" * 64, b"{}")
    run_id = _run(store)
    store.append_event(run_id, TraceKind.RUN_STARTED)
    nodes = [NodeRecord(f"n{i}", "s", "f" * 64, "h" * 64, True, 0.0) for i in range(3)]
    at = "2026-01-01T00:00:00.000000+00:00"
    batch = [(n, TraceKind.NODE_REUSED, {"i": i}, at) for i, n in enumerate(nodes)]
    events = store.record_nodes(run_id, batch)
    store.append_event(run_id, TraceKind.RUN_COMMITTED)
    store.finish_run(run_id, RunStatus.COMMITTED)
    assert [e.seq for e in events] == [1, 2, 3]
    assert store.trace(run_id)[1:4] == events
    assert store.verify_trace(run_id).ok
    assert [n.key for n in store.run_nodes(run_id)] == ["n0", "n1", "n2"]


def test_batched_node_commit_is_all_or_nothing(store_url: str) -> None:
    from semv.store import NodeRecord

    store = Store(url=store_url)
    store.remember("f" * 64, "s", "h" * 64, b"{}")
    run_id = _run(store)
    head = store.append_event(run_id, TraceKind.RUN_STARTED)
    good = NodeRecord("a", "s", "f" * 64, "h" * 64, True, 0.0)
    dup = NodeRecord("a", "s", "f" * 64, "h" * 64, True, 0.0)  # primary-key clash
    at = "2026-01-01T00:00:00.000000+00:00"
    with pytest.raises(StoreError):
        store.record_nodes(
            run_id, [(good, TraceKind.NODE_REUSED, {}, at), (dup, TraceKind.NODE_REUSED, {}, at)]
        )
    assert store.run_nodes(run_id) == []
    assert [e.seq for e in store.trace(run_id)] == [0]
    after = store.append_event(run_id, TraceKind.RUN_FAILED)  # the head did not move
    assert after.seq == 1 and after.prev_hash == head.hash
    assert store.verify_trace(run_id).ok


def test_blobs_in_one_query_and_cache_hit_with_content(store_url: str) -> None:
    store = Store(url=store_url)
    store.remember("f" * 64, "s", "h" * 64, b'{"a":1}')
    assert store.get_blobs(["h" * 64, "x" * 64]) == {"h" * 64: b'{"a":1}'}
    assert store.cached_blob("f" * 64) == ("h" * 64, b'{"a":1}')
    assert store.cached_blob("g" * 64) is None


def test_run_status_has_runs_and_the_previous_runs_cache_entries(store_url: str) -> None:
    store = Store(url=store_url)
    assert not store.has_runs()
    first = _run(store)
    assert store.has_runs() and store.run_status(first) is RunStatus.RUNNING
    store.remember("fp-a", "stage", "h-a", b'{"a":1}')
    store.remember("fp-b", "stage", "h-b", b'{"b":2}')
    store.record_nodes(
        first,
        [
            (NodeRecord("a", "stage", "fp-a", "h-a", False, 0.0), TraceKind.NODE_EXECUTED, {},
             "2026-01-01T00:00:00+00:00"),
        ],
    )  # fmt: skip
    store.finish_run(first, RunStatus.FAILED, error="x")
    assert store.run_status(first) is RunStatus.FAILED
    second = _run(store)  # the same case: its previous run's fingerprints, in one query
    assert store.prefetch_cached(second) == {"fp-a": ("h-a", b'{"a":1}')}
    other = store.create_run(case_id="c2", adapter="generic", settings_hash="s", agents="a/1")
    assert store.prefetch_cached(other) == {}
    with pytest.raises(RunNotFound):
        store.run_status("r-none")


@pytest.mark.parametrize("node", [None, "argue:when", 'quo"te\\ é 東京 \u2028 \x01'])
def test_chain_event_hash_is_the_canonical_json_hash_of_its_body(node: str | None) -> None:
    from semv.store._store import chain_event, event_hash

    payload = {"z": [1, 2.5, None], "a": {"é": "ü\n"}, "stage": 'x"y'}
    event, row = chain_event("r1", 7, TraceKind.NODE_REUSED, node, payload, "2026-01-01T0", "p")
    body = event.model_dump(mode="json", exclude={"hash"})
    assert event.hash == event_hash(body) == row["hash"]
    assert row["payload"] == canonical_json(payload) and row["kind"] == "node.reused"


def test_chain_event_of_a_plain_string_payload_is_canonical() -> None:
    from semv.store._store import chain_event, event_hash

    payload = {"stage": "argue", "output": 'é\u2028"', "fingerprint": "ab"}
    event, row = chain_event("r1", 0, TraceKind.NODE_REUSED, "n", payload, "t", "p")
    assert row["payload"] == canonical_json(payload)
    assert event.hash == event_hash(event.model_dump(mode="json", exclude={"hash"}))
