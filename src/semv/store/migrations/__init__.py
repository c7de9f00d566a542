"""Alembic migrations of the semv store (SQLite and PostgreSQL); applied by ``Store`` on open."""
