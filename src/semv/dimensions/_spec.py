"""``DimensionSpec``: everything semv knows about one verification dimension, in one value.

A dimension module (``when.py``...) builds one spec; the registry (``_registry.py``) lists them;
the stages, the offline backend, the report, the web pages, evaluation and the MV2026 report
reader ask the registry instead of keeping their own per-dimension tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from semv.config import OfflineAgentConfig
from semv.dimensions._common import ClaimView, Finding
from semv.model import (
    Case,
    ClaimFacts,
    Dimension,
    Distortion,
    Evidence,
    Facts,
    MemoryView,
    Modality,
    Scope,
    SourceType,
    Subclaim,
    UncertaintyItem,
)

__all__ = [
    "CaseFacts",
    "DimensionSpec",
    "PlanSeed",
    "ReportSection",
    "Rule",
    "SectionEvidence",
    "Statement",
    "no_finding",
]

Rule = Callable[[ClaimView, Evidence, OfflineAgentConfig], list[Finding]]
"""An offline rule: what one evidence item says for or against the subclaim (at most one
finding per item)."""


def no_finding(view: ClaimView, ev: Evidence, cfg: OfflineAgentConfig) -> list[Finding]:
    """The rule of a dimension that does not read an item."""
    return []


@dataclass(frozen=True)
class CaseFacts:
    """What the decomposer extracted from the whole case, shared by every dimension's
    statement: the facts (claim + claimed context), a one-line summary of the claim, the
    claimed places as the gazetteer labels them, and whether the case has media."""

    facts: ClaimFacts
    summary: str
    place_labels: tuple[str, ...]
    has_media: bool


@dataclass(frozen=True)
class Statement:
    """A subclaim's statement, whether the claim asserts it, and the facts it is about."""

    text: str
    asserted: bool
    facts: ClaimFacts


@dataclass(frozen=True)
class PlanSeed:
    """A dimension's research questions, checks and extra queries for one subclaim."""

    questions: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    queries: tuple[str, ...] = ()


class SectionEvidence(StrEnum):
    """Which evidence a report section lists besides the evidence its arguments cite."""

    NONE = "none"
    INTEGRITY = "integrity"
    """Metadata and forensic items, and notes about the case's media files."""
    UNCITED = "uncited"
    """Evidence no argument cites."""


@dataclass(frozen=True)
class ReportSection:
    """Where a dimension appears in the MV2026 report."""

    key: str
    """The section's key in ``ReportView`` and the JSON report ("when")."""
    title: str
    order: int
    """Position among the dimension sections (after case summary and source)."""
    evidence: SectionEvidence = SectionEvidence.NONE
    evidence_title: str | None = None


@dataclass(frozen=True)
class DimensionSpec:
    """One dimension: statement, plan, fitting sources, offline rule, re-check, report."""

    dimension: Dimension
    claim_type: str
    """What kind of fact its subclaim states ("time")."""
    scope: Scope | None
    """The subclaim's scope; None: the case's media (``asset``), or the case without media."""
    statement: Callable[[CaseFacts], Statement]
    plan: Callable[[Subclaim, OfflineAgentConfig], PlanSeed]
    sources: tuple[SourceType, ...]
    """Source types the research plan asks for, most useful first."""
    fits: frozenset[Modality | SourceType]
    """Modalities and source types whose items fit its claim type (the ranking bonus)."""
    rule: Rule
    """The offline rule for text and metadata items."""
    section: ReportSection
    signals: Rule = no_finding
    """The rule for forensic, C2PA and reverse-search-match items (``signal_kind``)."""
    reads_match_caption: bool = False
    """A reverse-search match's caption is read by ``rule`` as a text about the media."""
    rederives_match: bool = False
    """The grounding re-check re-derives findings on a reverse-search match (its first-seen
    date is a measurement, like metadata)."""
    claimed: Callable[[Subclaim], Facts] = field(default=lambda _sub: Facts())
    """The subclaim's claimed facts, typed (for the JSON result)."""
    typed: Callable[[tuple[str, ...], str | None], Facts] = field(
        default=lambda _facts, _language: Facts()
    )
    """An argument's key facts, typed (dates, places, quantities)."""
    missing: Callable[[Subclaim, tuple[Evidence, ...]], UncertaintyItem | None] = field(
        default=lambda _sub, _evidence: None
    )
    """An uncertainty note when the evidence cannot speak to the dimension at all."""
    notes: Callable[[Case, Subclaim], tuple[UncertaintyItem, ...]] = field(
        default=lambda _case, _sub: ()
    )
    """Uncertainty about what the case claims for this dimension (any backend)."""
    guided: Callable[
        [OfflineAgentConfig, MemoryView], tuple[OfflineAgentConfig | None, tuple[str, ...]]
    ] = field(default=lambda _cfg, _memory: (None, ()))
    """The rule configuration recalled memory asks for (a reasoning check, never evidence)
    and the records behind it; ``(None, ())`` when no recalled record changes the rule."""
    remmd_l2: Distortion | None = None
    """The ReMMD L2 distortion label a refuted subclaim of this dimension points to."""
    mv_field: str | None = None
    """The MV2026 required report field (Eq. 36) its section fills."""
    mv_headings: tuple[str, ...] = ()
    """Lower-case substrings of MV2026 report headings that fill ``mv_field``."""

    def subclaim_scope(self, has_media: bool) -> Scope:
        if self.scope is not None:
            return self.scope
        return Scope.ASSET if has_media else Scope.CASE
