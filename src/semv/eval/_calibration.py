"""The verdict calibration ``semv eval`` reports beside Eq. 20 (``semv.calibration``).

``calibrated_ooc`` here takes the Eq. 20 p(OOC), as the evaluation records it, and recovers
ψ̄ from it (p = ψ̄ for a false-context decision, 1 − ψ̄ otherwise).
"""

from __future__ import annotations

from semv.calibration import calibrated_ooc as _from_mean
from semv.calibration import calibration

__all__ = ["calibrated_ooc", "calibration"]


def calibrated_ooc(decision_is_ooc: bool, p_ooc_eq20: float) -> float | None:
    """p_cal(OOC) for a COSMOS-contract verdict, from its decision and its Eq. 20 p(OOC);
    None when no calibration is shipped."""
    psi = p_ooc_eq20 if decision_is_ooc else 1.0 - p_ooc_eq20
    return _from_mean(decision_is_ooc, psi)
