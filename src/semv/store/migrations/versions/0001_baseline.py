"""Baseline: the store's tables as they were when migrations began.

Creates every table that is missing and leaves existing ones alone, so a data directory made
before Alembic (whose ``semv.db`` has some or all of these tables and no ``alembic_version``)
is adopted by the same upgrade that creates a fresh store.

Revision ID: 0001_baseline
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0001_baseline"
down_revision: str | None = None
branch_labels = None
depends_on = None


def _blobs() -> None:
    op.create_table(
        "blobs",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("content", sa.LargeBinary, nullable=False),
    )


def _node_cache() -> None:
    op.create_table(
        "node_cache",
        sa.Column("fingerprint", sa.String(64), primary_key=True),
        sa.Column("stage", sa.String(64), nullable=False),
        sa.Column("output_hash", sa.String(64), sa.ForeignKey("blobs.hash"), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )


def _runs() -> None:
    op.create_table(
        "runs",
        sa.Column("run_id", sa.String(40), primary_key=True),
        sa.Column("case_id", sa.Text, nullable=False),
        sa.Column("adapter", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("finished_at", sa.String(32)),
        sa.Column("label", sa.String(64)),
        sa.Column("confidence", sa.Float),
        sa.Column("result_json", sa.Text),
        sa.Column("trace_head", sa.String(64)),
        sa.Column("error", sa.Text),
        sa.Column("parent_run_id", sa.String(40)),
        sa.Column("settings_hash", sa.String(64), nullable=False),
        sa.Column("agents", sa.String(200), nullable=False),
    )
    op.create_index("ix_runs_case", "runs", ["case_id"])
    op.create_index("ix_runs_created", "runs", ["created_at"])


def _nodes() -> None:
    op.create_table(
        "nodes",
        sa.Column("run_id", sa.String(40), sa.ForeignKey("runs.run_id"), primary_key=True),
        sa.Column("key", sa.String(128), primary_key=True),
        sa.Column("stage", sa.String(64), nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("output_hash", sa.String(64), sa.ForeignKey("blobs.hash"), nullable=False),
        sa.Column("reused", sa.Integer, nullable=False),
        sa.Column("seconds", sa.Float, nullable=False),
    )


def _trace() -> None:
    op.create_table(
        "trace",
        sa.Column("run_id", sa.String(40), sa.ForeignKey("runs.run_id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("node", sa.String(128)),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
    )


def _memory_records() -> None:
    op.create_table(
        "memory_records",
        sa.Column("bank", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
    )
    op.create_index("ix_memory_records_status", "memory_records", ["bank", "status"])


def _memory_candidates() -> None:
    op.create_table(
        "memory_candidates",
        sa.Column("bank", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("case_id", sa.Text, nullable=False),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("learn_seq", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_index("ix_memory_candidates_key", "memory_candidates", ["bank", "key"])


def _memory_trace() -> None:
    op.create_table(
        "memory_trace",
        sa.Column("bank", sa.String(64), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("subject", sa.String(64)),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
    )


def _memory_usage() -> None:
    op.create_table(
        "memory_usage",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("bank", sa.String(64), nullable=False),
        sa.Column("snapshot", sa.String(64)),
        sa.Column("run_id", sa.String(40), nullable=False),
        sa.Column("record", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.create_index("ix_memory_usage_run", "memory_usage", ["bank", "run_id"])


def _memory_snapshots() -> None:
    op.create_table(
        "memory_snapshots",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("bank", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )


def _memory_state() -> None:
    op.create_table(
        "memory_state",
        sa.Column("bank", sa.String(64), primary_key=True),
        sa.Column("frozen", sa.String(64)),
        sa.Column("learn_count", sa.Integer, nullable=False),
        sa.Column("next_id", sa.Integer, nullable=False),
    )


def _revisions() -> None:
    op.create_table(
        "revisions",
        sa.Column("run_id", sa.String(40), sa.ForeignKey("runs.run_id"), primary_key=True),
        sa.Column("parent_run_id", sa.String(40), sa.ForeignKey("runs.run_id"), nullable=False),
        sa.Column("policy", sa.String(16), nullable=False),
        sa.Column("base_head", sa.String(64)),
        sa.Column("batch_json", sa.Text, nullable=False),
        sa.Column("review_json", sa.Text, nullable=False),
        sa.Column("outcome_json", sa.Text),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("committed_at", sa.String(32)),
    )
    op.create_index("ix_revisions_parent", "revisions", ["parent_run_id"])


def _web_jobs() -> None:
    op.create_table(
        "web_jobs",
        sa.Column("job_id", sa.String(40), primary_key=True),
        sa.Column("case_id", sa.Text, nullable=False),
        sa.Column("upload_id", sa.String(64), nullable=False),
        sa.Column("submitted_by", sa.String(200), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("reused", sa.Integer, nullable=False),
        sa.Column("run_id", sa.String(40)),
        sa.Column("label", sa.String(64)),
        sa.Column("confidence", sa.Float),
        sa.Column("error", sa.Text),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("finished_at", sa.String(32)),
        sa.Column("spec", sa.Text, nullable=False),
        sa.Column("owner", sa.String(200)),
        sa.Column("heartbeat_at", sa.Float),
    )
    op.create_index("ix_web_jobs_status", "web_jobs", ["status", "created_at"])


def _web_sessions() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("session_hash", sa.String(64), primary_key=True),
        sa.Column("reviewer", sa.String(200)),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )


_TABLES: dict[str, Callable[[], None]] = {
    "blobs": _blobs,
    "node_cache": _node_cache,
    "runs": _runs,
    "nodes": _nodes,
    "trace": _trace,
    "memory_records": _memory_records,
    "memory_candidates": _memory_candidates,
    "memory_trace": _memory_trace,
    "memory_usage": _memory_usage,
    "memory_snapshots": _memory_snapshots,
    "memory_state": _memory_state,
    "revisions": _revisions,
    "web_jobs": _web_jobs,
    "web_sessions": _web_sessions,
}
"""In dependency order (a table after the tables its foreign keys name)."""


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    for name, create in _TABLES.items():
        if name not in existing:
            create()


def downgrade() -> None:
    for name in reversed(list(_TABLES)):
        op.drop_table(name)
