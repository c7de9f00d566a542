"""A fresh SQLite store's schema without Alembic.

Creating a store's tables through Alembic (``semv.store._migrate``) imports Alembic and runs
every migration from the baseline: about 0.1 s of CPU in every first ``semv`` command on a
new data directory, the cold ``semv verify`` among them. A SQLite database with no table at
all gets instead, under the same migration lock, the statements below: the ``sql`` column of
``sqlite_master`` of a database that Alembic brought to ``REVISION``, replayed in creation
order, and ``alembic_version`` set to ``REVISION``. The database is the same, byte for byte in
its schema: ``tests/test_store_backends.py`` compares ``sqlite_master`` of both and fails
when a new migration changes the head without this file following it (``python -m
semv.store._fresh`` prints the module to paste). While ``REVISION`` is not the head of the
shipped migrations, Alembic creates fresh stores as before. PostgreSQL stores, databases with
tables and older stores are always migrated by Alembic. Not from the papers.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import Connection, text

__all__ = ["REVISION", "STATEMENTS", "create", "sqlite_schema"]

REVISION: Final = "0002_run_owners"
"""The migration head these statements are the schema of."""

STATEMENTS: Final[tuple[str, ...]] = (
    (
        "CREATE TABLE alembic_version (\n"
        "\tversion_num VARCHAR(32) NOT NULL, \n"
        "\tCONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)\n"
        ")"
    ),
    (
        "CREATE TABLE blobs (\n"
        "\thash VARCHAR(64) NOT NULL, \n"
        "\tcontent BLOB NOT NULL, \n"
        "\tPRIMARY KEY (hash)\n"
        ")"
    ),
    (
        "CREATE TABLE node_cache (\n"
        "\tfingerprint VARCHAR(64) NOT NULL, \n"
        "\tstage VARCHAR(64) NOT NULL, \n"
        "\toutput_hash VARCHAR(64) NOT NULL, \n"
        "\tcreated_at VARCHAR(32) NOT NULL, \n"
        "\tPRIMARY KEY (fingerprint), \n"
        "\tFOREIGN KEY(output_hash) REFERENCES blobs (hash)\n"
        ")"
    ),
    (
        "CREATE TABLE runs (\n"
        "\trun_id VARCHAR(40) NOT NULL, \n"
        "\tcase_id TEXT NOT NULL, \n"
        "\tadapter VARCHAR(64) NOT NULL, \n"
        "\tstatus VARCHAR(16) NOT NULL, \n"
        "\tcreated_at VARCHAR(32) NOT NULL, \n"
        "\tfinished_at VARCHAR(32), \n"
        "\tlabel VARCHAR(64), \n"
        "\tconfidence FLOAT, \n"
        "\tresult_json TEXT, \n"
        "\ttrace_head VARCHAR(64), \n"
        "\terror TEXT, \n"
        "\tparent_run_id VARCHAR(40), \n"
        "\tsettings_hash VARCHAR(64) NOT NULL, \n"
        "\tagents VARCHAR(200) NOT NULL, \n"
        "\tPRIMARY KEY (run_id)\n"
        ")"
    ),
    "CREATE INDEX ix_runs_case ON runs (case_id)",
    "CREATE INDEX ix_runs_created ON runs (created_at)",
    (
        "CREATE TABLE nodes (\n"
        "\trun_id VARCHAR(40) NOT NULL, \n"
        '\t"key" VARCHAR(128) NOT NULL, \n'
        "\tstage VARCHAR(64) NOT NULL, \n"
        "\tfingerprint VARCHAR(64) NOT NULL, \n"
        "\toutput_hash VARCHAR(64) NOT NULL, \n"
        "\treused INTEGER NOT NULL, \n"
        "\tseconds FLOAT NOT NULL, \n"
        '\tPRIMARY KEY (run_id, "key"), \n'
        "\tFOREIGN KEY(run_id) REFERENCES runs (run_id), \n"
        "\tFOREIGN KEY(output_hash) REFERENCES blobs (hash)\n"
        ")"
    ),
    (
        "CREATE TABLE trace (\n"
        "\trun_id VARCHAR(40) NOT NULL, \n"
        "\tseq INTEGER NOT NULL, \n"
        "\tkind VARCHAR(32) NOT NULL, \n"
        "\tnode VARCHAR(128), \n"
        "\tpayload TEXT NOT NULL, \n"
        "\tat VARCHAR(32) NOT NULL, \n"
        "\tprev_hash VARCHAR(64) NOT NULL, \n"
        "\thash VARCHAR(64) NOT NULL, \n"
        "\tPRIMARY KEY (run_id, seq), \n"
        "\tFOREIGN KEY(run_id) REFERENCES runs (run_id)\n"
        ")"
    ),
    (
        "CREATE TABLE memory_records (\n"
        "\tbank VARCHAR(64) NOT NULL, \n"
        "\tid VARCHAR(64) NOT NULL, \n"
        "\tstatus VARCHAR(16) NOT NULL, \n"
        "\ttype VARCHAR(16) NOT NULL, \n"
        '\t"key" TEXT NOT NULL, \n'
        "\tbody TEXT NOT NULL, \n"
        "\tupdated_at VARCHAR(32) NOT NULL, \n"
        "\tPRIMARY KEY (bank, id)\n"
        ")"
    ),
    "CREATE INDEX ix_memory_records_status ON memory_records (bank, status)",
    (
        "CREATE TABLE memory_candidates (\n"
        "\tbank VARCHAR(64) NOT NULL, \n"
        "\tid VARCHAR(64) NOT NULL, \n"
        "\tstatus VARCHAR(16) NOT NULL, \n"
        "\treason TEXT NOT NULL, \n"
        '\t"key" TEXT NOT NULL, \n'
        "\tcase_id TEXT NOT NULL, \n"
        "\tfingerprint VARCHAR(64) NOT NULL, \n"
        "\tlearn_seq INTEGER NOT NULL, \n"
        "\tbody TEXT NOT NULL, \n"
        "\tPRIMARY KEY (bank, id)\n"
        ")"
    ),
    'CREATE INDEX ix_memory_candidates_key ON memory_candidates (bank, "key")',
    (
        "CREATE TABLE memory_trace (\n"
        "\tbank VARCHAR(64) NOT NULL, \n"
        "\tseq INTEGER NOT NULL, \n"
        "\tkind VARCHAR(32) NOT NULL, \n"
        "\tsubject VARCHAR(64), \n"
        "\tpayload TEXT NOT NULL, \n"
        "\tat VARCHAR(32) NOT NULL, \n"
        "\tprev_hash VARCHAR(64) NOT NULL, \n"
        "\thash VARCHAR(64) NOT NULL, \n"
        "\tPRIMARY KEY (bank, seq)\n"
        ")"
    ),
    (
        "CREATE TABLE memory_usage (\n"
        "\tid INTEGER NOT NULL, \n"
        "\tbank VARCHAR(64) NOT NULL, \n"
        "\tsnapshot VARCHAR(64), \n"
        "\trun_id VARCHAR(40) NOT NULL, \n"
        "\trecord VARCHAR(64) NOT NULL, \n"
        "\tkind VARCHAR(32) NOT NULL, \n"
        "\tat VARCHAR(32) NOT NULL, \n"
        "\tPRIMARY KEY (id)\n"
        ")"
    ),
    "CREATE INDEX ix_memory_usage_run ON memory_usage (bank, run_id)",
    (
        "CREATE TABLE memory_snapshots (\n"
        "\thash VARCHAR(64) NOT NULL, \n"
        "\tbank VARCHAR(64) NOT NULL, \n"
        "\tcreated_at VARCHAR(32) NOT NULL, \n"
        "\tbody TEXT NOT NULL, \n"
        "\tPRIMARY KEY (hash)\n"
        ")"
    ),
    (
        "CREATE TABLE memory_state (\n"
        "\tbank VARCHAR(64) NOT NULL, \n"
        "\tfrozen VARCHAR(64), \n"
        "\tlearn_count INTEGER NOT NULL, \n"
        "\tnext_id INTEGER NOT NULL, \n"
        "\tPRIMARY KEY (bank)\n"
        ")"
    ),
    (
        "CREATE TABLE revisions (\n"
        "\trun_id VARCHAR(40) NOT NULL, \n"
        "\tparent_run_id VARCHAR(40) NOT NULL, \n"
        "\tpolicy VARCHAR(16) NOT NULL, \n"
        "\tbase_head VARCHAR(64), \n"
        "\tbatch_json TEXT NOT NULL, \n"
        "\treview_json TEXT NOT NULL, \n"
        "\toutcome_json TEXT, \n"
        "\tcreated_at VARCHAR(32) NOT NULL, \n"
        "\tcommitted_at VARCHAR(32), \n"
        "\tPRIMARY KEY (run_id), \n"
        "\tFOREIGN KEY(run_id) REFERENCES runs (run_id), \n"
        "\tFOREIGN KEY(parent_run_id) REFERENCES runs (run_id)\n"
        ")"
    ),
    "CREATE INDEX ix_revisions_parent ON revisions (parent_run_id)",
    (
        "CREATE TABLE web_jobs (\n"
        "\tjob_id VARCHAR(40) NOT NULL, \n"
        "\tcase_id TEXT NOT NULL, \n"
        "\tupload_id VARCHAR(64) NOT NULL, \n"
        "\tsubmitted_by VARCHAR(200) NOT NULL, \n"
        "\tstatus VARCHAR(16) NOT NULL, \n"
        "\ttotal INTEGER NOT NULL, \n"
        "\tdone INTEGER NOT NULL, \n"
        "\treused INTEGER NOT NULL, \n"
        "\trun_id VARCHAR(40), \n"
        "\tlabel VARCHAR(64), \n"
        "\tconfidence FLOAT, \n"
        "\terror TEXT, \n"
        "\tcreated_at VARCHAR(32) NOT NULL, \n"
        "\tfinished_at VARCHAR(32), \n"
        "\tspec TEXT NOT NULL, \n"
        "\towner VARCHAR(200), \n"
        "\theartbeat_at FLOAT, \n"
        "\tPRIMARY KEY (job_id)\n"
        ")"
    ),
    "CREATE INDEX ix_web_jobs_status ON web_jobs (status, created_at)",
    (
        "CREATE TABLE web_sessions (\n"
        "\tsession_hash VARCHAR(64) NOT NULL, \n"
        "\treviewer VARCHAR(200), \n"
        "\ttoken_hash VARCHAR(64) NOT NULL, \n"
        "\tcreated_at VARCHAR(32) NOT NULL, \n"
        "\tPRIMARY KEY (session_hash)\n"
        ")"
    ),
    (
        "CREATE TABLE run_owners (\n"
        "\trun_id VARCHAR(40) NOT NULL, \n"
        "\tpid INTEGER NOT NULL, \n"
        "\thost VARCHAR(255) NOT NULL, \n"
        "\theartbeat_at VARCHAR(32) NOT NULL, \n"
        "\tPRIMARY KEY (run_id), \n"
        "\tFOREIGN KEY(run_id) REFERENCES runs (run_id)\n"
        ")"
    ),
)
"""``sqlite_master.sql`` of a fresh database after ``alembic upgrade head``, in creation order
(the primary keys' automatic indexes have no statement: their tables create them)."""


def sqlite_schema(connection: Connection) -> list[tuple[str, str, str, str | None]]:
    """``sqlite_master`` (type, name, table, sql) in creation order."""
    rows = connection.execute(
        text("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
    )
    return [(str(t), str(n), str(tbl), sql) for t, n, tbl, sql in rows]


def create(connection: Connection, head: str) -> bool:
    """Create the schema of ``head`` on an empty SQLite database in ``connection``'s
    transaction; False (and nothing done) when the database is not SQLite, holds a table
    already, or ``head`` is not ``REVISION``: Alembic must migrate it."""
    if head != REVISION or connection.dialect.name != "sqlite":
        return False
    if connection.execute(text("SELECT count(*) FROM sqlite_master")).scalar():
        return False
    for statement in STATEMENTS:
        connection.exec_driver_sql(statement)
    connection.execute(
        text("INSERT INTO alembic_version (version_num) VALUES (:v)"), {"v": REVISION}
    )
    return True


def _render() -> str:
    """This module's ``REVISION`` and ``STATEMENTS`` as Alembic builds them now (to paste)."""
    import tempfile
    from pathlib import Path

    from alembic import command
    from sqlalchemy import create_engine

    from semv.store._migrate import _config, head_revision

    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(f"sqlite:///{Path(tmp) / 'fresh.db'}")
        with engine.begin() as conn:
            command.upgrade(_config(conn), "head")
            rows = sqlite_schema(conn)
        engine.dispose()
    lines = [f"REVISION: Final = {head_revision()!r}", "STATEMENTS: Final[tuple[str, ...]] = ("]
    for _type, _name, _table, sql in rows:
        if sql is not None:
            pieces = [line + "\n" for line in sql.split("\n")]
            pieces[-1] = pieces[-1][:-1]
            lines += ["    (", *(f"        {piece!r}" for piece in pieces), "    ),"]
    return "\n".join([*lines, ")"])


if __name__ == "__main__":
    print(_render())
