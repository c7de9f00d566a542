"""Run owners: who executes a running run and when it last showed life.

A run whose owner process is gone (kill -9, a timeout) is shown ``interrupted`` instead of
``running`` forever, and ``semv verify --resume`` continues it. Runs of an older store have no
owner row; they count as interrupted once silent for ``STALE_SECONDS``.

Revision ID: 0002_run_owners
Revises: 0001_baseline
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_run_owners"
down_revision: str | None = "0001_baseline"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "run_owners" in set(sa.inspect(op.get_bind()).get_table_names()):
        return  # a store opened by a pre-migration build of this change (create_all)
    op.create_table(
        "run_owners",
        sa.Column("run_id", sa.String(40), sa.ForeignKey("runs.run_id"), primary_key=True),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("heartbeat_at", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("run_owners")
