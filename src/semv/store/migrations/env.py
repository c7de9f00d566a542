"""Alembic environment: runs the migrations on the connection ``semv.store`` hands over (in
``config.attributes["connection"]``), never on a URL of its own."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from semv.store._schema import metadata

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError("semv migrations run through semv.store (Store opens and upgrades)")
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
