"""What every dataset adapter returns and the protocol it implements."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Final, Protocol, runtime_checkable

from semv.adapters._gold import SealedGold
from semv.model import Case

__all__ = ["COSMOS_CONTRACT", "INTERNAL_CONTRACT", "Adapter", "LoadedCase", "limited"]

INTERNAL_CONTRACT: Final = "internal"
"""Label contract: the internal MV2026 label space (``semv.model.InternalLabel``)."""

COSMOS_CONTRACT: Final = "cosmos"
"""Label contract: COSMOS OOC / NOOC (``semv.model.CosmosLabel``)."""


@dataclass(frozen=True)
class LoadedCase:
    """One case read by an adapter, with its gold annotation sealed apart from the case."""

    case: Case
    gold: SealedGold | None = None
    released: str | None = None
    """When the case was released to the verifiers (UTC ISO 8601), if the case file says."""


@runtime_checkable
class Adapter(Protocol):
    """A dataset adapter: reads cases from a path in one input format."""

    name: str
    """Registry name (also stored in ``Case.adapter``)."""

    contract: str
    """Label contract of the dataset: ``"internal"`` or ``"cosmos"``."""

    def load(
        self, path: Path, *, text_only: bool = False, limit: int | None = None
    ) -> Iterator[LoadedCase]:
        """Yield the cases at ``path`` in order.

        ``text_only`` skips reading media (assets come out with ``loaded=False``, no hash, and
        their files need not exist); ``limit`` stops after that many cases. Raises
        ``semv.errors.InputError`` naming the file and the problem on any bad input.
        """
        ...


def limited(cases: Iterable[LoadedCase], limit: int | None) -> Iterator[LoadedCase]:
    """The first ``limit`` of ``cases`` (all when ``limit`` is None, none when it is ≤ 0).

    Lazy: nothing of ``cases`` is read before the first item is asked for, nothing after the
    ``limit``-th, and with ``limit`` ≤ 0 nothing at all (so a bad path is not even opened).
    """
    if limit is None:
        yield from cases
    elif limit > 0:
        yield from islice(cases, limit)
