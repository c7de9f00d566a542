"""The offline pipeline over COSMOS-format caption pairs, each verdict read as the calibration
reads it.

``scripts/fit_calibration.py`` fits the verdict calibration on these verdicts and
``benchmarks/ookpik_cv.py`` refits it inside every fold; both run the cases exactly as
``semv eval`` does (:func:`semv.eval.evaluate`, the offline agents, the COSMOS contract, text
only). Eq. 20 gives p(OOC) = ψ̄ for a false-context (OOC) decision and 1 − ψ̄ otherwise, so ψ̄
is recovered from the verdict's probability and its decision.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path

from semv.adapters import COSMOS_CONTRACT, LoadedCase, get_adapter
from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.eval import evaluate
from semv.model import CosmosLabel
from semv.store import Store

__all__ = ["CosmosVerdict", "cosmos_verdicts"]


@dataclass(frozen=True)
class CosmosVerdict:
    """One caption pair's verdict: whether it decides out of context, and its ψ̄."""

    ooc: bool
    """The predicted label is OOC (the decision is false context)."""
    psi: float
    """ψ̄, the mean subclaim score (Eq. 20: p(OOC) = ψ̄ when ``ooc``, else 1 − ψ̄)."""

    def calibration_input(self) -> tuple[float, float]:
        """The calibration's inputs (``decision_is_ooc``, ``mean_score``):
        p_cal(OOC) = σ(a·[decision = OOC] + b·ψ̄ + c)."""
        return (1.0 if self.ooc else 0.0, self.psi)


def cosmos_verdicts(
    path: Path,
    settings: Settings,
    *,
    store: Store | None = None,
    reports_dir: Path | None = None,
) -> list[CosmosVerdict]:
    """Verify every caption pair of the COSMOS-format file ``path`` (text only) with the offline
    agents under ``settings``; the verdicts in file order.

    With ``store`` the runs go there (a second pass under other settings reuses the stages the
    change leaves alone) and reports to ``reports_dir``; without it, both go to a temporary
    directory removed afterwards.
    """
    loaded = list(get_adapter("cosmos").load(path, text_only=True))
    if store is None:
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            own = Store(tmp / "store")
            try:
                return _run(loaded, settings, own, tmp / "reports")
            finally:
                own.close()
    return _run(loaded, settings, store, reports_dir)


def _run(
    loaded: list[LoadedCase], settings: Settings, store: Store, reports_dir: Path | None
) -> list[CosmosVerdict]:
    outcomes = asyncio.run(
        evaluate(
            loaded,
            store=store,
            settings=settings,
            agents=OfflineAgents(settings),
            contract=COSMOS_CONTRACT,
            reports_dir=reports_dir,
        )
    )
    verdicts: list[CosmosVerdict] = []
    for o in outcomes:
        ooc = o.predicted == CosmosLabel.OOC
        p = float(o.probabilities.get(CosmosLabel.OOC, 0.5))
        verdicts.append(CosmosVerdict(ooc, p if ooc else 1.0 - p))
    return verdicts
