"""Background work for the web layer: verification jobs and revisions run on worker threads,
never on the event loop, and outlive the request that started them.

A verification is a *job* (id returned at once; progress by polling or SSE). Jobs live in the
store (``semv.store.JobTable``): a restarted ``semv serve`` shows the finished ones and runs
the queued ones again, and several ``semv serve`` processes on one PostgreSQL store share one
queue without running a job twice (a job is *claimed* by one server; a server that dies stops
its heartbeat and its jobs are queued again). A job re-run after a restart reads its case
again from the upload folder and verifies it as a new run; the interrupted run stays in the
store as it was (runs are append-only).

Each worker thread builds its own agent backend once (``build_agents``: the same backend and
settings as ``semv verify``) and shares the process's ``Store`` (a pooled SQLAlchemy engine).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, TypeVar

from semv._api import load_cases
from semv.adapters import LoadedCase
from semv.agents import Agents
from semv.agents.backends import build_agents, executor_concurrency
from semv.config import Settings
from semv.contest import Policy, ReviewBatch, Revision, revise
from semv.errors import InputError, SemvError
from semv.pipeline import run_case
from semv.retrieval import Retrieval
from semv.stages import build_graph
from semv.store import JobTable, Store, utc_now
from semv.web._public import public_message

__all__ = ["Job", "Workers"]

_T = TypeVar("_T")
logger = logging.getLogger(__name__)

RetrievalFactory = Callable[[Store], Retrieval]


_PROGRESS_SECONDS = 0.5
"""How often a running job's progress is written to the store (SSE of other servers)."""
_FIXED = ("job_id", "case_id", "upload_id", "submitted_by", "created_at")


@dataclass
class Job:
    """One verification job: its case, state and, when done, its run."""

    job_id: str
    case_id: str
    upload_id: str
    submitted_by: str
    status: str  # queued | running | committed | failed
    total: int
    done: int = 0
    reused: int = 0
    run_id: str | None = None
    label: str | None = None
    confidence: float | None = None
    error: str | None = None
    created_at: str = ""
    finished_at: str | None = None

    @property
    def finished(self) -> bool:
        return self.status in ("committed", "failed")

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _job(row: dict[str, Any], store_url: str = "") -> Job:
    job = Job(**{f.name: row[f.name] for f in fields(Job)})
    if job.error:  # a row written before errors were stored public
        job.error = public_message(job.error, store_url)
    return job


def _dead_local_owner(owner: str, host: str) -> bool:
    """Whether ``owner`` (``host:pid:token``) was a process on this host that is gone."""
    parts = owner.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != host or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        return True  # this pid, another token: an earlier incarnation (a restarted container)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class Workers:
    """The job queue (in the store), the job threads and the revision thread pool.

    ``poll_seconds``: how often idle job threads look for queued jobs (a submit here wakes them
    at once). ``stale_seconds``: a running job whose server has not beaten its heartbeat for
    that long is queued again (jobs of a dead process on this host at once)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        *,
        reports_dir: Path | None = None,
        retrieval: RetrievalFactory | None = None,
        poll_seconds: float = 1.0,
        stale_seconds: float = 60.0,
    ) -> None:
        self.store = store
        self.settings = settings
        self.reports_dir = reports_dir
        self.retrieval = retrieval
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._table = JobTable(store)
        self._running: dict[str, Job] = {}
        self._loaded: dict[str, LoadedCase] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        self._poll = poll_seconds
        self._stale = stale_seconds
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._contest = ThreadPoolExecutor(
            settings.web.contest_workers, thread_name_prefix="semv-contest"
        )
        self._requeue_dead()
        self._threads = [
            threading.Thread(target=self._loop, name=f"semv-verify-{i}", daemon=True)
            for i in range(settings.web.workers)
        ]
        self._threads.append(
            threading.Thread(target=self._heartbeat, name="semv-jobs-heartbeat", daemon=True)
        )
        for thread in self._threads:
            thread.start()

    def close(self) -> None:
        """Stop taking jobs, let the running ones finish; queued jobs stay queued in the store
        for the next server."""
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join()
        self._contest.shutdown(wait=True, cancel_futures=True)

    def _agents(self) -> Agents:
        agents: Agents | None = getattr(self._local, "agents", None)
        if agents is None:
            agents = build_agents(self.settings, store=self.store)
            self._local.agents = agents
        return agents

    # ---- verification jobs ----------------------------------------------------------------

    def submit(
        self,
        loaded: Sequence[LoadedCase],
        contract: str,
        upload_id: str,
        *,
        submitted_by: str = "reviewer",
        source: Path | None = None,
        adapter: str | None = None,
        text_only: bool = False,
    ) -> list[Job]:
        """Queue one job per case; returns at once. ``source`` (the case file or folder, with
        its ``adapter`` and ``text_only``) lets a restarted server read the case again."""
        jobs = []
        for item in loaded:
            job = Job(
                job_id="j" + secrets.token_hex(8),
                case_id=item.case.id,
                upload_id=upload_id,
                submitted_by=submitted_by,
                status="queued",
                total=len(build_graph(item.case, contract=contract)),
                created_at=utc_now(),
            )
            spec = {
                "path": str(source) if source is not None else None,
                "adapter": adapter,
                "text_only": text_only,
                "contract": contract,
            }
            with self._lock:
                self._loaded[job.job_id] = item
            self._table.add({**job.as_json(), "spec": spec})
            jobs.append(job)
        self._wake.set()
        return jobs

    def job(self, job_id: str) -> Job | None:
        with self._lock:
            mine = self._running.get(job_id)
            if mine is not None:
                return replace(mine)
        row = self._table.get(job_id)
        return None if row is None else _job(row, self.store.url)

    def jobs(self) -> list[Job]:
        """Unfinished jobs and the newest ``web.max_jobs`` finished ones, newest first."""
        rows = self._table.recent(self.settings.web.max_jobs)
        with self._lock:
            return [
                replace(self._running.get(r["job_id"]) or _job(r, self.store.url)) for r in rows
            ]

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                row = self._table.claim(self.owner)
            except SemvError as exc:  # the database is away: try again on the next poll
                logger.warning("cannot read the job queue: %s", exc)
                row = None
            if row is None:
                self._wake.wait(self._poll)
                self._wake.clear()
                continue
            self._run(row)

    def _heartbeat(self) -> None:
        every = max(self._poll, min(5.0, self._stale / 4))
        while not self._stop.wait(every):
            try:
                with self._lock:
                    mine = list(self._running)
                self._table.beat(self.owner, mine)
                if self._table.requeue(stale_after=self._stale):
                    self._wake.set()
            except SemvError as exc:
                logger.warning("job heartbeat failed: %s", exc)

    def _requeue_dead(self) -> None:
        """Jobs a previous server process on this host left running (it was killed or
        restarted) are queued again now, not only once their heartbeat is stale."""
        host = socket.gethostname()
        dead = [o for o in self._table.running_owners() if _dead_local_owner(o, host)]
        if dead:
            self._table.requeue(stale_after=self._stale, owners=dead)

    def _case(self, job: Job, spec: dict[str, Any]) -> LoadedCase:
        with self._lock:
            item = self._loaded.pop(job.job_id, None)
        if item is not None:
            return item
        if not spec.get("path"):
            raise InputError(f"job {job.job_id}: its case was not saved; submit it again")
        _, cases = load_cases(
            Path(spec["path"]), adapter=spec.get("adapter"), text_only=bool(spec["text_only"])
        )
        for candidate in cases:
            if candidate.case.id == job.case_id:
                return candidate
        raise InputError(f"{spec['path']}: case {job.case_id} is no longer there")

    def _run(self, row: dict[str, Any]) -> None:
        job = _job(row)
        spec: dict[str, Any] = row["spec"]
        contract = str(spec["contract"])
        job.status, job.done, job.reused = "running", 0, 0
        with self._lock:
            self._running[job.job_id] = job
        retrieval = None
        saved = [time.monotonic()]

        def tick(_key: str, reused: bool) -> None:
            job.done += 1
            job.reused += int(reused)
            if time.monotonic() - saved[0] >= _PROGRESS_SECONDS:  # others read it from the store
                saved[0] = time.monotonic()
                self._table.update(job.job_id, done=job.done, reused=job.reused)

        try:
            loaded = self._case(job, spec)
            retrieval = self.retrieval(self.store) if self.retrieval is not None else None
            if retrieval is not None:
                job.total = len(build_graph(loaded.case, contract=contract, retrieval=retrieval))
            outcome = asyncio.run(
                run_case(
                    loaded.case,
                    store=self.store,
                    settings=self.settings,
                    agents=self._agents(),
                    contract=contract,
                    reports_dir=self.reports_dir,
                    progress=tick,
                    retrieval=retrieval,
                    max_concurrency=executor_concurrency(self.settings),
                )
            )
        except SemvError as exc:
            logger.warning("job %s failed: %s", job.job_id, exc)
            job.error = public_message(str(exc), self.store.url)
            job.status = "failed"
        except Exception as exc:  # a worker thread must report, never die silently
            # the traceback goes to the server's log; the job (shown to anyone) says what failed
            logger.exception("job %s failed with an internal error", job.job_id)
            job.error = public_message(f"internal error: {exc!r}", self.store.url)
            job.status = "failed"
        else:
            job.run_id = outcome.result.run_id
            job.label = outcome.result.label
            job.confidence = outcome.result.confidence
            job.status = "committed"
        finally:
            if retrieval is not None:
                retrieval.close()
            job.finished_at = utc_now()
            try:
                self._table.update(
                    job.job_id,
                    **{k: v for k, v in job.as_json().items() if k not in _FIXED},
                    owner=None,
                    heartbeat_at=None,
                )
            finally:
                with self._lock:
                    self._running.pop(job.job_id, None)

    # ---- revisions ------------------------------------------------------------------------

    def _revise(self, run: str, batch: ReviewBatch, policy: Policy | None) -> Revision:
        return asyncio.run(
            revise(
                self.store,
                run,
                batch,
                settings=self.settings,
                agents=self._agents(),
                policy=policy,
                reports_dir=self.reports_dir,
            )
        )

    async def contest(self, run: str, batch: ReviewBatch, policy: Policy | None) -> Revision:
        """Run a revision on a contest worker thread; the event loop keeps serving. A client
        that disconnects does not cancel it (the revision still commits)."""
        future: Future[Revision] = self._contest.submit(self._revise, run, batch, policy)
        return await asyncio.shield(asyncio.wrap_future(future))
