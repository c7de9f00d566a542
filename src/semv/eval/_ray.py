"""Cases as Ray tasks: ``semv eval ADAPTER PATH --ray [ADDRESS]`` and ``semv verify-batch --ray``.

``ray.init(address)`` joins a running cluster (``ray start --head`` on one machine,
``ray start --address HEAD:6379`` on the others), or starts a local one when no address is
given (``workers`` CPUs). Each case is one task running ``semv.eval._workers.verify_in_worker``:
a Ray worker process builds its store and agents on its first case and keeps them for the next
ones. Every worker must reach the same store (PostgreSQL on a cluster; a SQLite folder only when
all workers share the machine) and the dataset path.

Exactly once: only the driver appends to ``results.jsonl``, when a task's result arrives. A
worker killed mid-case (``kill -9``, a lost node) makes Ray retry the task on another worker
(``max_retries``); its run in the store stays ``running`` (append-only: never rewritten),
the retry commits a new run, and the case gets one results line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from semv.adapters import LoadedCase
from semv.config import environment
from semv.errors import ConfigError
from semv.eval._tasks import Record
from semv.eval._workers import WorkerSpec, pending_cases, verify_in_worker

__all__ = ["TASK_RETRIES", "run_in_ray", "run_plan_ray"]

_R = TypeVar("_R")

TASK_RETRIES = 3
"""How often Ray re-runs a case whose worker died (a case that raises is not retried: the
error is its result)."""

_IN_FLIGHT_PER_CPU = 4


def _connect(address: str | None, workers: int) -> Any:
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - ray is a declared dependency
        raise ConfigError(f"--ray needs the ray package: {exc}") from exc
    if ray.is_initialized():
        return ray
    address = address or environment().ray_address
    options: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "configure_logging": False,
    }
    if address:
        options["address"] = address
    else:  # a local cluster of ``workers`` CPUs, started here and stopped at the end
        options["num_cpus"] = workers
    try:
        ray.init(**options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ConfigError(f"--ray {address or '(local)'}: cannot start or join Ray: {exc}") from exc
    return ray


def run_in_ray(
    fn: Callable[..., _R],
    spec: object,
    items: Iterable[tuple[Any, ...]],
    *,
    on_result: Callable[[_R], None],
    address: str | None = None,
    workers: int = 2,
) -> list[_R]:
    """``fn(spec, *item)`` for every item as Ray tasks; ``on_result`` (in this process) as each
    task returns. A task whose worker dies is retried (``TASK_RETRIES``)."""
    started_here = not (address or environment().ray_address)
    ray = _connect(address, workers)
    try:
        remote = ray.remote(num_cpus=1, max_retries=TASK_RETRIES, retry_exceptions=False)(fn)
        spec_ref = ray.put(spec)
        cpus = max(1, int(ray.cluster_resources().get("CPU", workers)))
        limit = _IN_FLIGHT_PER_CPU * cpus
        results: list[_R] = []
        todo = iter(items)
        running: list[Any] = []
        while True:
            for item in todo:
                running.append(remote.remote(spec_ref, *item))
                if len(running) >= limit:
                    break
            if not running:
                break
            finished, running = ray.wait(running, num_returns=1)
            for ref in finished:
                result: _R = ray.get(ref)
                on_result(result)
                results.append(result)
        return results
    finally:
        if started_here:
            ray.shutdown()


def run_plan_ray(
    cases: Sequence[LoadedCase],
    spec: WorkerSpec,
    *,
    append: Callable[[Record], None],
    done: set[str],
    address: str | None = None,
    workers: int = 2,
) -> list[Record]:
    """Verify the pending cases as Ray tasks; ``append`` each record as its task returns."""
    return run_in_ray(
        verify_in_worker,
        spec,
        pending_cases(cases, done),
        on_result=append,
        address=address,
        workers=workers,
    )
