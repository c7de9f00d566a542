"""``escalate:k``: uncertainty-aware escalation of one subclaim (A-QBAF MV2026 §2.6.3)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from semv.model._base import Frozen
from semv.model._enums import Band
from semv.model._nodes import Arguments, SolvedQbaf


class EscalationRecord(Frozen):
    """What the stronger verifier did to one uncertain subclaim."""

    verifier: str = Field(description="The stronger verifier (model name).")
    status: Literal["escalated", "failed"]
    score_before: float
    band_before: Band
    score_after: float
    band_after: Band
    reverified: tuple[str, ...] = Field((), description="Arguments the verifier judged.")
    changed: tuple[str, ...] = Field((), description="Arguments whose v_a it changed.")


class Escalated(Frozen):
    """``escalate:k``: the subclaim's final arguments and QBAF. Without escalation (no stronger
    verifier, or a score outside the band) both are ``argue:k``'s and ``qbaf:k``'s values."""

    arguments: Arguments
    solved: SolvedQbaf
    escalation: EscalationRecord | None = None
