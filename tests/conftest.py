"""Shared fixtures: paths to ../shared/data (skip when absent) and a scripted agent backend."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pg_cluster import PgCluster, pg_bindir

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


def shared_data(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test with the reason."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path} (tests read ../shared/data in place)")
    return path


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "store"


# ---- PostgreSQL: a throwaway cluster per test session, a fresh database per test ------------


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """Skipped only when PostgreSQL's binaries are not installed; a cluster that cannot start
    fails the tests loudly."""
    bindir = pg_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (system-packages.txt lists postgresql)")
    cluster = PgCluster.start(bindir)
    try:
        yield cluster
    finally:
        cluster.stop()


_databases = itertools.count()


@pytest.fixture()
def pg_url(pg_cluster: PgCluster) -> str:
    """The URL of a new, empty database on the session's cluster."""
    return pg_cluster.create_database(f"t{os.getpid()}_{next(_databases)}")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store URL on each backend: SQLite in a temporary folder, or a fresh PostgreSQL
    database."""
    if request.param == "sqlite":
        folder = tmp_path / "store"
        folder.mkdir()
        return f"sqlite:///{folder / 'semv.db'}"
    return str(request.getfixturevalue("pg_url"))
