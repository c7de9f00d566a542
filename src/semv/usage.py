"""Model-call accounting per run: calls, tokens, latency, retries per role, and the critical
path those latencies imply through the stage graph.

A ``Ledger`` is bound to the running case through a context variable (``bind_ledger``); the
executor binds the key of the node it runs (``current_node``), so a backend records each call
against the node and role that made it without any stage knowing. Within a node, a role
invocation is a set of logically independent *tasks* (proponent and opponent, for example);
a task's calls (attempt, repair, escalation) follow each other. The node's model time on the
critical path is therefore Σ over its invocations of max over tasks of Σ task latencies, and
the case's critical path is the longest path through the stage graph weighted by that plus
each node's own cost: its duration as the executor measured it (input hashing, the stage,
invariant checks, store writes) minus the time it spent on the model. The gap between the
wall time and this path is scheduling: nodes or calls that could have run together but did not.
"""

from __future__ import annotations

import contextvars
import itertools
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from semv.model import PromptTrim, RoleUsage, UncertaintyItem, Usage

__all__ = [
    "CallRecord",
    "Ledger",
    "RoleUsage",
    "Usage",
    "bind_ledger",
    "bind_node",
    "critical_path",
    "current_ledger",
    "current_node",
]

current_node: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "semv_current_node", default=None
)
current_ledger: contextvars.ContextVar[Ledger | None] = contextvars.ContextVar(
    "semv_current_ledger", default=None
)


@dataclass(frozen=True)
class CallRecord:
    """One model request as the backend saw it (``cached``: answered from the response cache,
    no HTTP request made)."""

    role: str
    node: str | None
    invocation: int
    task: str
    start: float
    seconds: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0
    cached: bool = False
    ok: bool = True
    queued: float = 0.0  # seconds behind the client's concurrency limit before ``start``
    cost: float | None = None  # price of its tokens (``llm.prices``); None: no price known


@dataclass
class Ledger:
    """Thread- and task-safe list of call records for one run."""

    records: list[CallRecord] = field(default_factory=list)
    notes: list[UncertaintyItem] = field(default_factory=list)
    fallbacks: dict[str, int] = field(default_factory=dict)
    node_seconds: dict[str, float] = field(default_factory=dict)
    """Time inside each executed node's stage function (``bind_node``), queueing excluded."""
    trims: list[PromptTrim] = field(default_factory=list)
    """What the prompts left out (``PromptTrim``), in the order they were sent."""
    reserved_tokens: int = 0
    """Prompt tokens counted before sending (the per-case budget is checked against it)."""
    currency: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def new_invocation(self) -> int:
        with self._lock:
            return next(self._ids)

    def add(self, record: CallRecord) -> None:
        with self._lock:
            self.records.append(record)

    def note(self, item: UncertaintyItem) -> None:
        """A role fell back (recorded for roles whose output has no uncertainty channel)."""
        with self._lock:
            if item not in self.notes:
                self.notes.append(item)

    def trim(self, item: PromptTrim) -> None:
        with self._lock:
            if item not in self.trims:
                self.trims.append(item)

    def reserve(self, tokens: int, budget: int | None) -> bool:
        """Count ``tokens`` against the case's prompt budget before a request is sent; False
        (nothing counted) when they would exceed ``budget``."""
        with self._lock:
            if budget is not None and self.reserved_tokens + tokens > budget:
                return False
            self.reserved_tokens += tokens
            return True

    def fallback(self, role: str) -> None:
        with self._lock:
            self.fallbacks[role] = self.fallbacks.get(role, 0) + 1

    def roles(self) -> dict[str, RoleUsage]:
        out: dict[str, RoleUsage] = {
            role: RoleUsage(fallbacks=n) for role, n in self.fallbacks.items()
        }
        for rec in self.records:
            cur = out.get(rec.role, RoleUsage())
            out[rec.role] = RoleUsage(
                calls=cur.calls + (0 if rec.cached else 1),
                cached=cur.cached + (1 if rec.cached else 0),
                prompt_tokens=cur.prompt_tokens + rec.prompt_tokens,
                completion_tokens=cur.completion_tokens + rec.completion_tokens,
                latency_s=round(cur.latency_s + rec.seconds, 6),
                retries=cur.retries + rec.retries,
                failures=cur.failures + (0 if rec.ok else 1),
                fallbacks=cur.fallbacks,
                cost=_add(cur.cost, rec.cost),
            )
        return dict(sorted(out.items()))

    def node_model_time(self) -> dict[str, float]:
        """Per node: Σ over invocations of max over tasks of Σ task latencies."""
        tasks: dict[tuple[str, int, str], float] = {}
        for rec in self.records:
            key = (rec.node or "", rec.invocation, rec.task)
            tasks[key] = tasks.get(key, 0.0) + rec.seconds
        invocations: dict[tuple[str, int], float] = {}
        for (node, inv, _task), seconds in tasks.items():
            invocations[(node, inv)] = max(invocations.get((node, inv), 0.0), seconds)
        per_node: dict[str, float] = {}
        for (node, _inv), seconds in invocations.items():
            per_node[node] = per_node.get(node, 0.0) + seconds
        return per_node

    def node_model_span(self) -> dict[str, float]:
        """Per node: wall time from its first call's queueing to its last call's end (the
        time the node spent on the model, waiting included)."""
        bounds: dict[str, tuple[float, float]] = {}
        for rec in self.records:
            node = rec.node or ""
            first = rec.start - rec.queued
            lo, hi = bounds.get(node, (first, rec.start + rec.seconds))
            bounds[node] = (min(lo, first), max(hi, rec.start + rec.seconds))
        return {k: hi - lo for k, (lo, hi) in bounds.items()}

    def usage(
        self,
        *,
        backend: str,
        wall_s: float,
        dependencies: Mapping[str, Sequence[str]],
        node_seconds: Mapping[str, float] | None = None,
    ) -> Usage:
        """``node_seconds``: each executed node's duration as the executor measured it
        (bookkeeping included); the stage function's own duration is the floor."""
        model = self.node_model_time()
        span = self.node_model_span()
        measured = dict(self.node_seconds)
        for key, seconds in (node_seconds or {}).items():
            if key in measured:
                measured[key] = max(measured[key], seconds)
        compute = {k: max(0.0, s - span.get(k, 0.0)) for k, s in measured.items()}
        total = critical_path(
            dependencies, {k: model.get(k, 0.0) + compute.get(k, 0.0) for k in dependencies}
        )
        model_only = critical_path(dependencies, {k: model.get(k, 0.0) for k in dependencies})
        roles = self.roles()
        cost = _total(r.cost for r in roles.values())
        return Usage(
            backend=backend,
            calls=sum(r.calls for r in roles.values()),
            cached=sum(r.cached for r in roles.values()),
            prompt_tokens=sum(r.prompt_tokens for r in roles.values()),
            completion_tokens=sum(r.completion_tokens for r in roles.values()),
            retries=sum(r.retries for r in roles.values()),
            wall_s=round(wall_s, 6),
            critical_path_s=round(total, 6),
            model_critical_path_s=round(model_only, 6),
            roles=roles,
            cost=cost,
            currency=self.currency if cost is not None else None,
            left_out=tuple(self.trims),
        )


def _add(total: float | None, cost: float | None) -> float | None:
    if cost is None:
        return total
    return round((total or 0.0) + cost, 9)


def _total(costs: Iterator[float | None]) -> float | None:
    known = [c for c in costs if c is not None]
    return round(sum(known), 9) if known else None


def critical_path(dependencies: Mapping[str, Sequence[str]], weight: Mapping[str, float]) -> float:
    """Longest weighted path through a DAG (``dependencies``: node → the nodes it needs;
    unknown dependency names, e.g. graph sources, weigh nothing)."""
    finish: dict[str, float] = {}

    def visit(node: str, trail: frozenset[str]) -> float:
        if node in finish:
            return finish[node]
        if node in trail:
            raise ValueError(f"cycle through {node}")
        before = max(
            (visit(d, trail | {node}) for d in dependencies.get(node, ()) if d in dependencies),
            default=0.0,
        )
        finish[node] = before + weight.get(node, 0.0)
        return finish[node]

    return max((visit(n, frozenset()) for n in dependencies), default=0.0)


@contextmanager
def bind_ledger(ledger: Ledger) -> Iterator[Ledger]:
    token = current_ledger.set(ledger)
    try:
        yield ledger
    finally:
        current_ledger.reset(token)


@contextmanager
def bind_node(key: str) -> Iterator[None]:
    """Run a node's stage function: its model calls are accounted to ``key``, and its own
    duration is recorded in the run's ledger (for the critical path)."""
    token = current_node.set(key)
    started = time.perf_counter()
    try:
        yield
    finally:
        current_node.reset(token)
        ledger = current_ledger.get()
        if ledger is not None:
            with ledger._lock:
                ledger.node_seconds[key] = time.perf_counter() - started
