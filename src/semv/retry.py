"""The one retry policy of semv's HTTP clients (the LLM backend's and retrieval's), on tenacity.

Which answers are retried: a transport error or time-out, and the statuses in
``RETRY_STATUS`` (request time-out, conflict, too early, too many requests, and the 5xx that
say "try again"). How long to wait before retry n (n = 0, 1, ...): the server's
``Retry-After`` seconds when it sends them, capped at ``max_s``; otherwise exponential backoff
with full jitter, uniform over [0, min(max_s, base_s · 2ⁿ)] (tenacity's
``wait_random_exponential``), so clients that failed together do not retry together. At most
``retries`` retries. Not from the papers.

``Backoff.retrying`` runs a synchronous body under the policy (``semv.retrieval._http``); the
LLM client's asynchronous loop asks ``Backoff.delay`` for each wait. tenacity is imported at
the first retry, so a run whose requests all succeed never loads it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import tenacity

__all__ = ["RETRY_STATUS", "Backoff", "Retryable", "retry_after_seconds"]

RETRY_STATUS: Final = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class Retryable(Exception):
    """One attempt that may be retried: ``problem`` says what went wrong, ``retry_after`` the
    seconds the server asked for (None when it did not)."""

    def __init__(self, problem: str, retry_after: float | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.retry_after = retry_after


def retry_after_seconds(header: str | None) -> float | None:
    """A ``Retry-After`` header in seconds (the HTTP-date form is not read), else None."""
    if header is None:
        return None
    try:
        seconds = float(header.strip())
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


@dataclass(frozen=True)
class Backoff:
    """``retries`` retries; waits from ``base_s`` doubling up to ``max_s`` (see the module)."""

    retries: int
    base_s: float
    max_s: float

    def _wait(self, state: tenacity.RetryCallState) -> float:
        import tenacity

        outcome = state.outcome
        failure = outcome.exception() if outcome is not None and outcome.failed else None
        asked = failure.retry_after if isinstance(failure, Retryable) else None
        if asked is not None:
            return min(asked, self.max_s)
        jittered = tenacity.wait_random_exponential(multiplier=self.base_s, max=self.max_s)
        return float(jittered(state))

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait after failed attempt ``attempt`` (0 = the first request)."""
        if retry_after is not None:
            return min(retry_after, self.max_s)
        import tenacity

        state = tenacity.RetryCallState(None, None, (), {})  # type: ignore[arg-type]
        state.attempt_number = attempt + 1
        return self._wait(state)

    def retrying(self, *, sleep: Callable[[float], None]) -> tenacity.Retrying:
        """Attempts of a body that raises ``Retryable`` for an answer worth retrying; after the
        last attempt that ``Retryable`` is raised again (any other exception at once)."""
        import tenacity

        return tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.retries + 1),
            wait=self._wait,
            retry=tenacity.retry_if_exception_type(Retryable),
            sleep=sleep,
            reraise=True,
        )
