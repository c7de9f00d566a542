"""The semv exception tree.

::

    SemvError
    ├── InputError          bad user input: case folder, case.yaml, dataset file, media (exit 2)
    │   └── AdapterNotFound unknown adapter name (lists the valid ones)
    ├── ConfigError         invalid configuration file or environment value (exit 2)
    ├── StageError          a stage failed while running (exit 1)
    │   └── InvariantViolation  a node update broke an invariant of Def. 3.2 (Eq. 9)
    ├── StoreError          persistence failed, or a run/node was not found
    │   ├── StoreUnavailable the store URL is unusable or its database cannot be opened (exit 2)
    │   ├── RunBusy         another process claimed the run first (exit 2)
    │   └── RunNotFound     (exit 2)
    ├── GoldAccessError     gold labels requested before the report was committed
    └── ContestError        a review batch cannot be applied to the run (exit 2)

Foreign errors are converted at the boundary with ``raise ... from exc``.
"""

from __future__ import annotations

__all__ = [
    "AdapterNotFound",
    "ConfigError",
    "ContestError",
    "GoldAccessError",
    "InputError",
    "InvariantViolation",
    "RunBusy",
    "RunNotFound",
    "SemvError",
    "StageError",
    "StoreError",
    "StoreUnavailable",
]


class SemvError(Exception):
    """Base class of every error semv raises on purpose."""

    exit_code: int = 1


class InputError(SemvError):
    """The input (a case, a dataset file, a media file) is unusable. Names file and problem."""

    exit_code = 2


class AdapterNotFound(InputError):
    """An adapter name that is not registered."""


class ConfigError(SemvError):
    """A configuration file or environment value is invalid."""

    exit_code = 2


class StageError(SemvError):
    """A stage of the graph failed."""

    def __init__(self, node: str, message: str) -> None:
        super().__init__(f"{node}: {message}")
        self.node = node


class InvariantViolation(StageError):
    """A node's output breaks an invariant of Def. 3.2; the update is rejected (Eq. 9)."""

    def __init__(self, node: str, invariant: str, message: str) -> None:
        super().__init__(node, f"{invariant}: {message}")
        self.invariant = invariant
        self.detail = message


class StoreError(SemvError):
    """Persistence failed."""


class StoreUnavailable(StoreError):
    """The store URL is unusable or its database cannot be opened (a user condition: a wrong
    URL, an unreachable host, a refused login)."""

    exit_code = 2


class RunBusy(StoreError):
    """Another process claimed the run first (two resumes of one interrupted run)."""

    exit_code = 2


class RunNotFound(StoreError):
    """No run with that id (or prefix) exists in the store."""

    exit_code = 2


class GoldAccessError(SemvError):
    """Gold annotations were requested before the run's report was committed (I_gold)."""


class ContestError(SemvError):
    """A review batch is malformed or cannot be applied to the run it names (Module E)."""

    exit_code = 2
