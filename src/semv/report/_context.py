"""Everything a report is rendered from (the inputs of the ``render`` stage)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from semv.model import (
    Argument,
    Case,
    Evidence,
    Qbaf,
    Relation,
    Subclaim,
    UncertaintyItem,
    Verdict,
)

__all__ = ["ReportContext"]


class ReportContext(BaseModel):
    """The committed results of one run, keyed by dimension value (``"where"``, ...)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    case: Case
    verdict: Verdict
    subclaims: dict[str, Subclaim] = Field(description="Dimension → subclaim.")
    arguments: dict[str, tuple[Argument, ...]] = Field(description="Dimension → its arguments.")
    qbafs: dict[str, Qbaf] = Field(description="Dimension → its solved QBAF.")
    relations: dict[str, tuple[Relation, ...]] = Field(
        default_factory=dict,
        description="Dimension → its argument-to-argument relations (A-QBAF MV2026 §2.5).",
    )
    evidence: tuple[Evidence, ...] = Field(description="Every evidence item of the case.")
    uncertainty: tuple[UncertaintyItem, ...] = Field(
        (), description="Uncertainty items of every stage (assets, subclaims, arguments)."
    )
