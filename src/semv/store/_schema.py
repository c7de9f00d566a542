"""Tables of the semv store (SQLAlchemy Core). SQLite by default; the same schema runs on
PostgreSQL through a database URL."""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

blobs = Table(
    "blobs",
    metadata,
    Column("hash", String(64), primary_key=True, comment="sha256 of the content"),
    Column("content", LargeBinary, nullable=False),
)
"""Content-addressed node outputs: identical values are stored once."""

node_cache = Table(
    "node_cache",
    metadata,
    Column("fingerprint", String(64), primary_key=True),
    Column("stage", String(64), nullable=False),
    Column("output_hash", String(64), ForeignKey("blobs.hash"), nullable=False),
    Column("created_at", String(32), nullable=False),
)
"""Fingerprint → output: a node whose fingerprint is known is reused, not rerun."""

runs = Table(
    "runs",
    metadata,
    Column("run_id", String(40), primary_key=True),
    Column("case_id", Text, nullable=False),
    Column("adapter", String(64), nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("finished_at", String(32)),
    Column("label", String(64)),
    Column("confidence", Float),
    Column("result_json", Text, comment="The JSON result contract, once committed."),
    Column("trace_head", String(64)),
    Column("error", Text),
    Column("parent_run_id", String(40), comment="The run this one revises, if any."),
    Column("settings_hash", String(64), nullable=False),
    Column("agents", String(200), nullable=False),
)

nodes = Table(
    "nodes",
    metadata,
    Column("run_id", String(40), ForeignKey("runs.run_id"), primary_key=True),
    Column("key", String(128), primary_key=True),
    Column("stage", String(64), nullable=False),
    Column("fingerprint", String(64), nullable=False),
    Column("output_hash", String(64), ForeignKey("blobs.hash"), nullable=False),
    Column("reused", Integer, nullable=False),
    Column("seconds", Float, nullable=False),
)

trace = Table(
    "trace",
    metadata,
    Column("run_id", String(40), ForeignKey("runs.run_id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("node", String(128)),
    Column("payload", Text, nullable=False),
    Column("at", String(32), nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
)

run_owners = Table(
    "run_owners",
    metadata,
    Column("run_id", String(40), ForeignKey("runs.run_id"), primary_key=True),
    Column("pid", Integer, nullable=False),
    Column("host", String(255), nullable=False),
    Column("heartbeat_at", String(32), nullable=False),
)
"""Who is executing a running run and when it last showed life: a run whose owner process is
gone (or silent for longer than the staleness limit) is interrupted, not running."""

Index("ix_runs_case", runs.c.case_id)
Index("ix_runs_created", runs.c.created_at)


# ---- Module F: memory (SEMV §4.6). Additive tables; ``bank`` names one memory bank. ------------

memory_records = Table(
    "memory_records",
    metadata,
    Column("bank", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("status", String(16), nullable=False),
    Column("type", String(16), nullable=False),
    Column("key", Text, nullable=False),
    Column("body", Text, nullable=False, comment="The record as canonical JSON."),
    Column("updated_at", String(32), nullable=False),
)

memory_candidates = Table(
    "memory_candidates",
    metadata,
    Column("bank", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("status", String(16), nullable=False),
    Column("reason", Text, nullable=False),
    Column("key", Text, nullable=False),
    Column("case_id", Text, nullable=False),
    Column("fingerprint", String(64), nullable=False),
    Column("learn_seq", Integer, nullable=False),
    Column("body", Text, nullable=False),
)

memory_trace = Table(
    "memory_trace",
    metadata,
    Column("bank", String(64), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("subject", String(64)),
    Column("payload", Text, nullable=False),
    Column("at", String(32), nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
)

memory_usage = Table(
    "memory_usage",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("bank", String(64), nullable=False),
    Column("snapshot", String(64)),
    Column("run_id", String(40), nullable=False),
    Column("record", String(64), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("at", String(32), nullable=False),
)
"""Usage events live outside the records, so they never change a frozen snapshot."""

memory_snapshots = Table(
    "memory_snapshots",
    metadata,
    Column("hash", String(64), primary_key=True),
    Column("bank", String(64), nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("body", Text, nullable=False),
)

memory_state = Table(
    "memory_state",
    metadata,
    Column("bank", String(64), primary_key=True),
    Column("frozen", String(64), comment="Snapshot hash while frozen, else NULL."),
    Column("learn_count", Integer, nullable=False),
    Column("next_id", Integer, nullable=False),
)

Index("ix_memory_records_status", memory_records.c.bank, memory_records.c.status)
Index("ix_memory_candidates_key", memory_candidates.c.bank, memory_candidates.c.key)
Index("ix_memory_usage_run", memory_usage.c.bank, memory_usage.c.run_id)
revisions = Table(
    "revisions",
    metadata,
    Column("run_id", String(40), ForeignKey("runs.run_id"), primary_key=True),
    Column("parent_run_id", String(40), ForeignKey("runs.run_id"), nullable=False),
    Column("policy", String(16), nullable=False),
    Column("base_head", String(64), comment="The parent's trace head the batch was applied to."),
    Column("batch_json", Text, nullable=False, comment="The review batch as submitted."),
    Column("review_json", Text, nullable=False, comment="Accumulated review state after it."),
    Column("outcome_json", Text, comment="Routing, scope, locality and diff, once committed."),
    Column("created_at", String(32), nullable=False),
    Column("committed_at", String(32)),
)
"""Module E: a revision run and the run it revises (added to existing stores by create_all;
``runs.parent_run_id`` carries the same link for runs listed without this table)."""

Index("ix_revisions_parent", revisions.c.parent_run_id)


# ---- the web service (semv serve): jobs and login sessions survive a restart ----------------

web_jobs = Table(
    "web_jobs",
    metadata,
    Column("job_id", String(40), primary_key=True),
    Column("case_id", Text, nullable=False),
    Column("upload_id", String(64), nullable=False),
    Column("submitted_by", String(200), nullable=False),
    Column("status", String(16), nullable=False, comment="queued | running | committed | failed"),
    Column("total", Integer, nullable=False),
    Column("done", Integer, nullable=False),
    Column("reused", Integer, nullable=False),
    Column("run_id", String(40)),
    Column("label", String(64)),
    Column("confidence", Float),
    Column("error", Text),
    Column("created_at", String(32), nullable=False),
    Column("finished_at", String(32)),
    Column("spec", Text, nullable=False, comment="How to reload the case: folder, adapter, ..."),
    Column("owner", String(200), comment="The server process running it (host:pid:token)."),
    Column("heartbeat_at", Float, comment="Unix time the owner last reported progress."),
)
"""Verification jobs of ``semv serve``: a restarted server shows the finished ones and
re-queues the unfinished ones; a job is claimed by one server at a time."""

web_sessions = Table(
    "web_sessions",
    metadata,
    Column("session_hash", String(64), primary_key=True, comment="sha256 of the cookie value"),
    Column("reviewer", String(200)),
    Column(
        "token_hash",
        String(64),
        nullable=False,
        comment="salt and scrypt key of the token it logged in (hex)",
    ),
    Column("created_at", String(32), nullable=False),
)
"""Login sessions of the reviewer UI (only a hash of the cookie is stored)."""

Index("ix_web_jobs_status", web_jobs.c.status, web_jobs.c.created_at)
