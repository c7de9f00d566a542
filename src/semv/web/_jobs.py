"""Background work for the web layer: verification jobs and revisions run on worker threads,
never on the event loop, and outlive the request that started them.

A verification is a *job* (id returned at once; progress by polling or SSE). The job table
lives in the web process (bounded by ``web.max_jobs`` finished jobs); what a job produces is
a run in the store, so a restart loses only the progress of jobs that were still running,
whose runs stay ``running``/``failed`` in the store as with an interrupted ``semv verify``.

Each worker thread builds its own agent backend once (``build_agents``: the same backend and
settings as ``semv verify``) and shares the process's ``Store`` (a pooled SQLAlchemy engine).
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import traceback
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from semv.adapters import LoadedCase
from semv.agents import Agents
from semv.agents.backends import build_agents, executor_concurrency
from semv.config import Settings
from semv.contest import Policy, ReviewBatch, Revision, revise
from semv.errors import SemvError
from semv.pipeline import run_case
from semv.retrieval import Retrieval
from semv.stages import build_graph
from semv.store import Store, utc_now

__all__ = ["Job", "Workers"]

_T = TypeVar("_T")

RetrievalFactory = Callable[[Store], Retrieval]


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


class Workers:
    """The job table and the two thread pools (verification jobs, revisions)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        *,
        reports_dir: Path | None = None,
        retrieval: RetrievalFactory | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.reports_dir = reports_dir
        self.retrieval = retrieval
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._local = threading.local()
        self._verify = ThreadPoolExecutor(settings.web.workers, thread_name_prefix="semv-verify")
        self._contest = ThreadPoolExecutor(
            settings.web.contest_workers, thread_name_prefix="semv-contest"
        )

    def close(self) -> None:
        self._verify.shutdown(wait=True, cancel_futures=True)
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
    ) -> list[Job]:
        """Queue one job per case; returns at once."""
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
            with self._lock:
                self._jobs[job.job_id] = job
                self._trim()
            self._verify.submit(self._run, job, item, contract)
            jobs.append(job)
        return jobs

    def _trim(self) -> None:
        finished = [j for j in self._jobs.values() if j.finished]
        for old in finished[: max(0, len(finished) - self.settings.web.max_jobs)]:
            del self._jobs[old.job_id]

    def job(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def jobs(self) -> list[Job]:
        with self._lock:
            return list(reversed(self._jobs.values()))

    def _run(self, job: Job, loaded: LoadedCase, contract: str) -> None:
        job.status = "running"
        retrieval = None

        def tick(_key: str, reused: bool) -> None:
            job.done += 1
            job.reused += int(reused)

        try:
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
            job.error = str(exc)
            job.status = "failed"
        except Exception as exc:  # a worker thread must report, never die silently
            job.error = f"internal error: {exc!r}\n{traceback.format_exc(limit=5)}"
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
