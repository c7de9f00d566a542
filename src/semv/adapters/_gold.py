"""Sealed gold annotations: the label is handed out only after the report is committed.

Gold isolation (invariant I_gold of Def. 3.2): nothing that runs before the report is committed
may see the gold label. ``SealedGold`` keeps the label in a private slot, never shows it in
``repr``/``str``, and reveals it only to a caller that presents a committed run status.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from semv.errors import GoldAccessError
from semv.model import RunStatus

__all__ = ["SealedGold"]


class SealedGold:
    """A gold label (and optional rationale) that only a committed run may read."""

    __slots__ = ("_details", "_label", "_rationale", "_source")

    def __init__(
        self,
        label: str,
        rationale: str | None = None,
        *,
        source: str = "",
        details: Mapping[str, Any] | None = None,
    ) -> None:
        """Seal ``label``; ``source`` names where it was read from (for error messages);
        ``details`` holds further gold annotations (multi-label taxonomy, reference URLs, event
        time...) under the same access rule."""
        self._label = label
        self._rationale = rationale
        self._source = source
        self._details = dict(details or {})

    @property
    def source(self) -> str:
        """Where the annotation was read from (a gold file, or a dataset file and line)."""
        return self._source

    def reveal(self, run_status: RunStatus) -> str:
        """The gold label; raises ``GoldAccessError`` unless ``run_status`` is COMMITTED."""
        self._check(run_status)
        return self._label

    def reveal_rationale(self, run_status: RunStatus) -> str | None:
        """The gold rationale, if any; same access rule as :meth:`reveal`."""
        self._check(run_status)
        return self._rationale

    def reveal_details(self, run_status: RunStatus) -> dict[str, Any]:
        """Further gold annotations (a copy); same access rule as :meth:`reveal`."""
        self._check(run_status)
        return dict(self._details)

    def _check(self, run_status: RunStatus) -> None:
        if run_status is not RunStatus.COMMITTED:
            where = f" ({self._source})" if self._source else ""
            raise GoldAccessError(
                f"gold annotation{where} requested while the run is {run_status.value}: "
                "it is revealed only after the report is committed"
            )

    def __repr__(self) -> str:
        return "SealedGold(<sealed>)"

    __str__ = __repr__
