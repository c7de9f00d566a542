"""The store's schema migrations and its behaviour under concurrent writers from several
processes, on SQLite and on PostgreSQL (``store_url``; the PostgreSQL half is marked
``postgres``)."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, select, text

from semv.model import RunStatus, TraceKind
from semv.store import NodeRecord, Store, _fresh
from semv.store import _schema as t
from semv.store._migrate import alembic_head, current_revision, head_revision

_PRE_MIGRATION_TABLES = [
    t.blobs,
    t.node_cache,
    t.runs,
    t.nodes,
    t.trace,
    t.memory_records,
    t.memory_candidates,
    t.memory_trace,
    t.memory_usage,
    t.memory_snapshots,
    t.memory_state,
]
"""What ``create_all`` made in a data directory before migrations (no revisions table yet:
it was added later, by create_all, too)."""


def test_fresh_store_is_at_the_newest_revision(store_url: str) -> None:
    store = Store(url=store_url)
    with store.engine.connect() as conn:
        assert current_revision(conn) == head_revision()
        tables = set(inspect(conn).get_table_names())
    assert {table.name for table in t.metadata.sorted_tables} <= tables
    store.close()
    Store(url=store_url).close()  # a second open finds the head and changes nothing


def test_head_read_from_the_migration_files_is_alembics_head() -> None:
    assert head_revision() == alembic_head()


def _alembic_built(path: Path) -> list[tuple[str, str, str, str | None]]:
    from alembic import command

    from semv.store._migrate import _config

    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        command.upgrade(_config(conn), "head")
    with engine.connect() as conn:
        schema = _fresh.sqlite_schema(conn)
        assert current_revision(conn) == head_revision()
    engine.dispose()
    return schema


def test_a_fresh_sqlite_store_gets_exactly_the_schema_alembic_builds(tmp_path: Path) -> None:
    assert head_revision() == _fresh.REVISION, (
        "a migration moved the head: paste `python -m semv.store._fresh` into "
        "src/semv/store/_fresh.py\n" + _fresh._render()
    )
    store = Store(tmp_path / "fast")
    with store.engine.connect() as conn:
        fast = _fresh.sqlite_schema(conn)
        assert current_revision(conn) == head_revision()
    store.close()
    assert fast == _alembic_built(tmp_path / "alembic.db")


def test_a_fresh_sqlite_store_opens_without_importing_alembic(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom pathlib import Path\nfrom semv.store import Store\n"
        f"Store(Path({str(tmp_path / 'd')!r})).close()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))"
    )
    src = str(Path(__file__).resolve().parents[1] / "src")
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": src},
    )
    assert run.stdout.strip() == "[]"


def test_a_store_that_is_not_empty_is_still_migrated_by_alembic(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'semv.db'}"
    engine = create_engine(url)
    t.metadata.create_all(engine, tables=[t.blobs])  # one table: not a fresh database
    engine.dispose()
    Store(url=url).close()
    engine = create_engine(url)
    with engine.connect() as conn:
        assert not _fresh.create(conn, head_revision())  # not empty: the fast path declines
        assert current_revision(conn) == head_revision()
        assert "run_owners" in set(inspect(conn).get_table_names())
    engine.dispose()


def test_pre_migration_sqlite_store_is_adopted_without_losing_runs(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'semv.db'}"
    engine = create_engine(url)
    t.metadata.create_all(engine, tables=_PRE_MIGRATION_TABLES)
    with engine.begin() as conn:
        conn.execute(
            t.runs.insert().values(
                run_id="rOLD",
                case_id="c",
                adapter="generic",
                status="committed",
                created_at="2026-01-01T00:00:00+00:00",
                settings_hash="s",
                agents="a",
            )
        )
    engine.dispose()
    store = Store(url=url)
    assert store.get_run("rOLD").status is RunStatus.COMMITTED
    with store.engine.connect() as conn:
        assert current_revision(conn) == head_revision()
        tables = set(inspect(conn).get_table_names())
    assert {"revisions", "web_jobs", "web_sessions"} <= tables
    run_id = store.create_run(case_id="c2", adapter="generic", settings_hash="s", agents="a")
    store.append_event(run_id, TraceKind.RUN_STARTED)
    store.append_event(run_id, TraceKind.RUN_COMMITTED)  # a committed run needs one
    store.finish_run(run_id, RunStatus.COMMITTED)
    assert store.verify_trace(run_id).ok


def test_store_url_hides_its_password() -> None:
    from semv.store._store import normalize_url

    assert normalize_url("postgresql://u:pw@h/db") == "postgresql+psycopg://u:pw@h/db"
    assert normalize_url("sqlite:///x.db") == "sqlite:///x.db"


# ---- several processes writing one store ------------------------------------------------------

_WRITERS = 3
_RUNS_EACH = 4
_SHARED_EVENTS = 15


def _writer(url: str, shared_run: str, index: int, barrier: object) -> None:
    """One process: waits for the others, then creates runs, writes the node cache (the same
    content-addressed rows as everybody else) and appends to one run all processes share."""
    barrier.wait()  # type: ignore[attr-defined]
    store = Store(url=url)
    for i in range(_RUNS_EACH):
        run_id = store.create_run(
            case_id=f"c{index}-{i}", adapter="g", settings_hash="s", agents="a"
        )
        store.append_event(run_id, TraceKind.RUN_STARTED)
        store.remember("f" * 64, "s", "h" * 64, b"{}")
        node = NodeRecord("n", "s", "f" * 64, "h" * 64, True, 0.0)
        store.record_nodes(run_id, [(node, TraceKind.NODE_REUSED, {}, "2026-01-01T00:00:00")])
        store.append_event(shared_run, TraceKind.NODE_EXECUTED, payload={"w": index, "i": i})
        store.append_event(run_id, TraceKind.RUN_COMMITTED)
        store.finish_run(run_id, RunStatus.COMMITTED)
    for i in range(_SHARED_EVENTS - _RUNS_EACH):
        store.append_event(shared_run, TraceKind.NODE_EXECUTED, payload={"w": index, "j": i})
    store.close()


def test_concurrent_processes_keep_every_chain_intact(store_url: str) -> None:
    store = Store(url=store_url)
    shared = store.create_run(case_id="shared", adapter="g", settings_hash="s", agents="a")
    store.append_event(shared, TraceKind.RUN_STARTED)
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(_WRITERS)
    procs = [
        ctx.Process(target=_writer, args=(store_url, shared, i, barrier)) for i in range(_WRITERS)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * _WRITERS
    store.append_event(shared, TraceKind.RUN_COMMITTED)  # a committed run needs one
    store.finish_run(shared, RunStatus.COMMITTED)  # reads the head the others left
    check = store.verify_trace(shared)
    assert check.ok, check.problem
    assert check.events == 2 + _WRITERS * _SHARED_EVENTS  # started, theirs, committed
    runs = [r for r in store.list_runs(100) if r.case_id != "shared"]
    assert len(runs) == _WRITERS * _RUNS_EACH
    assert all(r.status is RunStatus.COMMITTED and store.verify_trace(r.run_id).ok for r in runs)
    with store.engine.connect() as conn:
        assert conn.execute(select(t.node_cache.c.fingerprint)).all() == [("f" * 64,)]


def test_concurrent_first_opens_migrate_once(store_url: str) -> None:
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(_WRITERS)
    procs = [ctx.Process(target=_open_only, args=(store_url, barrier)) for _ in range(_WRITERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * _WRITERS
    engine = create_engine(Store(url=store_url).url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1
    engine.dispose()


def _open_only(url: str, barrier: object) -> None:
    barrier.wait()  # type: ignore[attr-defined]
    Store(url=url).close()


@pytest.mark.postgres
def test_postgres_runs_and_traces_survive_a_new_connection(pg_url: str) -> None:
    """Nothing lives only in the process: a second Store (another machine) sees the runs."""
    first = Store(url=pg_url)
    run_id = first.create_run(case_id="c", adapter="g", settings_hash="s", agents="a")
    first.append_event(run_id, TraceKind.RUN_STARTED)
    second = Store(url=pg_url)
    second.append_event(run_id, TraceKind.NODE_EXECUTED, node="x")  # extends the same chain
    first.append_event(run_id, TraceKind.RUN_COMMITTED)  # first's cached head is stale
    first.finish_run(run_id, RunStatus.COMMITTED)
    check = second.verify_trace(run_id)
    assert check.ok and check.events == 3


def test_record_nodes_writes_the_cache_entries_it_is_given(store_url: str) -> None:
    """The executor hands an executed node's cache entry to record_nodes (one transaction on
    SQLite): afterwards the fingerprint is a cache hit with the same bytes, on both backends,
    and writing the same entry again (another run computed the same output) is no error."""
    store = Store(url=store_url)
    try:
        run_id = store.create_run(case_id="c", adapter="g", settings_hash="s", agents="a")
        node = NodeRecord("n", "s", "e" * 64, "d" * 64, False, 0.1)
        entry = ("e" * 64, "s", "d" * 64, b'{"x":1}')
        assert store.cached_blob("e" * 64) is None
        events = store.record_nodes(
            run_id, [(node, TraceKind.NODE_EXECUTED, {}, "2026-01-01T00:00:00")], remember=[entry]
        )
        assert [e.node for e in events] == ["n"]
        assert store.cached_blob("e" * 64) == ("d" * 64, b'{"x":1}')
        other = store.create_run(case_id="c2", adapter="g", settings_hash="s", agents="a")
        store.record_nodes(
            other, [(node, TraceKind.NODE_EXECUTED, {}, "2026-01-01T00:00:01")], remember=[entry]
        )
        assert store.run_nodes(other)[0].output_hash == "d" * 64
        assert store.verify_trace(run_id).ok and store.verify_trace(other).ok
    finally:
        store.close()
