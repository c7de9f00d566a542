"""Agent calls started ahead of the node that makes them (the LLM wall time).

A backend whose first requests depend on less than their node's inputs may start them as soon
as the run starts, so the server answers while the process still loads, extracts media and
parses text. The decomposer's prompt holds only the claim and its context, but the ``claims``
node also waits for every media node (its query seeds come from the media text); a plan
prompt holds only its subclaim's statement, which the decomposer's answer already gives. The
node, when it runs, renders its prompt as always and takes the answer of the identical request
already started, so nothing it computes changes: the request is the same, and so is the answer
(the response cache, the ledger's records, the fallbacks are the call's own, made by the same
code).

``EarlyStart`` names what the run's graph lets a backend start (``semv.pipeline`` builds it
from the graph: the ``claims`` node, and the ``plan`` nodes when their memory view is empty);
``StartsEarly`` is the optional method a backend implements; ``EarlyCalls`` holds one run's
started calls, bound to the run's context (``bind_early``) like its ledger, so concurrent runs
of one backend never take each other's. A started call that no node takes (the node was reused
from the cache, or its prompt differs) is cancelled when the run ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Awaitable, Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from semv.model import Case
from semv.usage import current_node

__all__ = ["EarlyCalls", "EarlyStart", "StartsEarly", "bind_early", "current_early"]

_T = TypeVar("_T")


@dataclass(frozen=True)
class EarlyStart:
    """What a run's graph lets a backend start before the nodes run: ``decompose_node`` is
    the key of the node that decomposes ``case`` (None: none does); ``plan_nodes`` maps a
    dimension (its value) to the key of the node that plans its subclaim with an empty memory
    view (a memory-on graph maps none: the memory records are not known before recall)."""

    case: Case
    decompose_node: str | None
    plan_nodes: Mapping[str, str] = field(default_factory=dict)


@runtime_checkable
class StartsEarly(Protocol):
    """A backend that can start some of a run's calls ahead of their nodes."""

    def start_early(self, request: EarlyStart) -> None:
        """Start what ``request`` allows in the running event loop; the calls go into the
        ``EarlyCalls`` bound to the run (``current_early``); no-op when none is bound."""
        ...


class EarlyCalls:
    """One run's calls started ahead of their nodes, each under a key the node can rebuild
    (its role and its exact prompt)."""

    def __init__(self) -> None:
        self._tasks: dict[tuple[str, str], asyncio.Task[Any]] = {}

    def start(self, key: tuple[str, str], node: str, call: Coroutine[Any, Any, _T]) -> None:
        """Run ``call`` as a task whose model calls are accounted to ``node``; a key already
        started keeps its first task."""
        if key in self._tasks:
            call.close()
            return
        context = contextvars.copy_context()  # the caller's (its ledger), with the node's key
        context.run(current_node.set, node)
        self._tasks[key] = asyncio.get_running_loop().create_task(call, context=context)

    def take(self, key: tuple[str, str]) -> Awaitable[Any] | None:
        """The started call under ``key`` (once), or None."""
        return self._tasks.pop(key, None)

    def pending(self) -> int:
        return len(self._tasks)

    async def aclose(self) -> None:
        """Cancel and await every call no node took."""
        tasks, self._tasks = list(self._tasks.values()), {}
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


current_early: contextvars.ContextVar[EarlyCalls | None] = contextvars.ContextVar(
    "semv_current_early", default=None
)


@contextlib.contextmanager
def bind_early(calls: EarlyCalls) -> Iterator[EarlyCalls]:
    token = current_early.set(calls)
    try:
        yield calls
    finally:
        current_early.reset(token)
