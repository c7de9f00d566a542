"""``run``: ``asyncio.run`` for a coroutine whose result is a large value (a run's outcome).

At its end ``asyncio.run`` checks whether its SIGINT handler is still installed with
``signal.getsignal``, which tries ``signal.Handlers(handler)`` and, the handler not being one,
formats a ``ValueError`` message with ``repr`` of it: a ``functools.partial`` holding the main
task, whose repr holds the repr of the task's result. For a verify that is the whole outcome
(every subclaim, argument and evidence item as pydantic reprs): 5-35 ms of CPU after the
verdict, for a message nobody reads. Here the main task's result is None and the value is
handed over beside it; exceptions, cancellation and Ctrl-C behave as with ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run"]

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, returning ``main``'s result."""
    box: list[T] = []

    async def keep() -> None:
        box.append(await main)

    asyncio.run(keep())
    return box[0]
