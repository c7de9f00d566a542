"""A throwaway PostgreSQL cluster for tests: ``initdb`` in a temporary folder, a server on a
Unix socket inside it (no TCP port at all), stopped and deleted afterwards.

PostgreSQL refuses to run as root, so when the tests run as root the cluster belongs to the
``postgres`` system user (created by Debian's package) and its commands run through
``runuser``. The binaries come from ``/usr/lib/postgresql/<version>/bin`` (Debian's layout)
or ``PATH``. No running service is needed.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PgCluster", "pg_bindir"]


def pg_bindir() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None when PostgreSQL is not installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    if found:
        return Path(found[0]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@dataclass
class PgCluster:
    bindir: Path
    root: Path
    user: str | None
    """The system user that owns the cluster (``postgres`` when running as root)."""

    @classmethod
    def start(cls, bindir: Path) -> PgCluster:
        user = None
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError as exc:
                raise RuntimeError("running as root needs the 'postgres' system user") from exc
            user = "postgres"
        root = Path(tempfile.mkdtemp(prefix="semv-pg-"))
        root.chmod(0o755)
        cluster = cls(bindir, root, user)
        if user is not None:
            shutil.chown(root, user)
        cluster._run("initdb", "-D", str(cluster.data), "-U", "postgres", "--auth=trust", "-E",
                     "UTF8", "--no-sync", "-N")  # fmt: skip
        options = (
            f"-k {root} -c listen_addresses='' -c fsync=off -c synchronous_commit=off "
            "-c full_page_writes=off -c max_connections=200 -c shared_buffers=32MB"
        )
        cluster._run("pg_ctl", "-D", str(cluster.data), "-o", options, "-l",
                     str(root / "server.log"), "-w", "-t", "60", "start")  # fmt: skip
        cluster._watch(os.getpid())
        return cluster

    def _watch(self, pid: int) -> None:
        """A detached watchdog stops the server and deletes the folder once the test process
        ``pid`` is gone, also when it was killed before its fixtures could clean up."""
        stop = " ".join(
            [str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"]
        )
        if self.user is not None:
            stop = f"runuser -u {self.user} -- {stop}"
        wait = f"while kill -0 {pid} 2>/dev/null; do sleep 2; done"
        script = f"{wait}; {stop} >/dev/null 2>&1; rm -rf {self.root}"
        subprocess.Popen(["sh", "-c", script], start_new_session=True, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip

    @property
    def data(self) -> Path:
        return self.root / "data"

    def _run(self, tool: str, *args: str) -> str:
        command = [str(self.bindir / tool), *args]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(
                f"{tool} failed ({done.returncode}): {done.stderr.strip()}\n{tail}".strip()
            )
        return done.stdout

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@/{database}?host={self.root}"

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        import psycopg

        with psycopg.connect(host=str(self.root), user="postgres", dbname="postgres",
                             autocommit=True) as conn:  # fmt: skip
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            for _ in range(3):
                try:
                    shutil.rmtree(self.root)
                    break
                except OSError:
                    time.sleep(0.2)
