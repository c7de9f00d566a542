"""The values of stage-graph nodes (one model per stage output).

Each node value is a frozen pydantic model; its canonical JSON is what the store hashes
(content addressing) and what the fingerprints of downstream nodes are built from.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from semv.model._base import Frozen
from semv.model._case import Case
from semv.model._enums import Dimension
from semv.model._evidence import Evidence, UncertaintyItem
from semv.model._reasoning import Argument, Qbaf, Relation, Subclaim, SubclaimDecision


class Bundle(Frozen):
    """``bundle``: the canonical case B_x with supplied evidence normalized (𝓔_0)."""

    case: Case
    supplied: tuple[Evidence, ...]


class MediaEvidence(Frozen):
    """``media:<asset>``: evidence extracted from one asset (Eq. 11) and what failed."""

    asset_id: str
    evidence: tuple[Evidence, ...]
    uncertainty: tuple[UncertaintyItem, ...] = ()


class Claims(Frozen):
    """``claims``: the scoped subclaims C_x (Eq. 12), keyed by dimension."""

    subclaims: dict[str, Subclaim] = Field(description="Dimension → subclaim.")

    @field_validator("subclaims")
    @classmethod
    def _dimension_order(cls, value: dict[str, Subclaim]) -> dict[str, Subclaim]:
        """The six dimensions in their declared order (what, where, when, who, why,
        authenticity), any other key after them as given: a value read back from the store,
        whose canonical JSON sorts keys, lists its subclaims as a fresh run does."""
        rank = {dim.value: n for n, dim in enumerate(Dimension)}
        return dict(sorted(value.items(), key=lambda item: rank.get(item[0], len(rank))))


class MemoryGuidance(Frozen):
    """One retrieved long-term record as planning/argument guidance (never evidence, Def. 3.1).

    It may add verification questions, query seeds, preferred source types and reasoning checks
    (``action`` with numeric ``params``); it never carries current-case evidence."""

    id: str
    type: str = Field(description="episodic | failure | semantic")
    dimension: str
    lesson: str
    action: str
    params: dict[str, float] = Field(default_factory=dict)
    questions: tuple[str, ...] = ()
    queries: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    trigger: dict[str, str] = Field(
        default_factory=dict,
        description="The record's condition on typed observations (a strength lesson moves only "
        "the arguments it holds on).",
    )
    score: float = Field(0.0, description="Final retrieval score.")


class MemoryView(Frozen):
    """``recall:k``: active long-term memory retrieved for subclaim k (guidance, never evidence)."""

    subclaim: str
    records: tuple[str, ...] = Field((), description="Retrieved memory ids.")
    note: str = ""
    guidance: tuple[MemoryGuidance, ...] = Field(
        (), description="The retrieved records' guidance, in rank order."
    )
    memory_hash: str | None = Field(
        None, description="Hash of the active long-term memory the view was retrieved from."
    )


class ResearchPlan(Frozen):
    """``plan:k``: verification questions, queries, source types, checks (§4.3)."""

    subclaim: str
    questions: tuple[str, ...]
    queries: tuple[str, ...]
    source_types: tuple[str, ...]
    checks: tuple[str, ...]
    memory_used: tuple[str, ...] = Field((), description="Memory ids that shaped this plan.")


class QueryRecord(Frozen):
    """One query sent to one evidence source: the evidence graph's source-provenance record.

    ``mode`` is ``offline`` (a local corpus) or ``web`` (a web request, recorded in the dated
    cache with ``retrieved_at``). Whether a run asked live or replayed the cache is in the
    node's params (its fingerprint), not here, so a replay's output is byte-identical to the
    live run it replays.
    """

    id: str = Field(description="Case-local record id, e.g. 'src:when:3'.")
    source: str
    query: str
    mode: str
    retrieved_at: str | None = None
    hits: tuple[str, ...] = Field((), description="Evidence ids this query returned.")
    excluded_after: int = Field(
        0, description="Items dropped by the temporal-leakage guard (published after 'before')."
    )
    error: str | None = None


class NotRelevant(Frozen):
    """A retrieved item the claim-relevance gate refused (``semv.retrieval`` relevance): it
    is listed as "retrieved, not relevant" with its score and never argued from."""

    id: str
    source: str
    title: str | None = None
    url: str | None = None
    relevance: float = Field(ge=0.0, le=1.0, description="Calibrated claim relevance.")
    similarity: float = Field(ge=0.0, le=1.0, description="Claim similarity (semv.nlp).")
    reason: str


class Retrieved(Frozen):
    """``retrieve:k``: candidate evidence for subclaim k (𝓔^ext_k plus pooled case evidence)."""

    subclaim: str
    evidence: tuple[Evidence, ...]
    uncertainty: tuple[UncertaintyItem, ...] = ()
    queries: tuple[QueryRecord, ...] = Field((), description="Source records of external hits.")
    before: str | None = Field(None, description="Temporal-leakage cut-off, if any.")
    leakage_excluded: int = Field(0, description="Items excluded as published after 'before'.")
    not_relevant: tuple[NotRelevant, ...] = Field(
        (), description="Retrieved items refused by the claim-relevance gate (never evidence)."
    )
    relevance: dict[str, float] = Field(
        default_factory=dict,
        description="Admitted retrieved item id → its calibrated claim relevance (caps q_e).",
    )


class RankedEvidence(Frozen):
    """``validate:k``: normalized (Eq. 13), ranked, top-k evidence for subclaim k."""

    subclaim: str
    evidence: tuple[Evidence, ...] = Field(description="Ranked, relevance q_e set per subclaim.")
    scores: dict[str, float] = Field(description="Evidence id → ranking score.")
    rejected: tuple[str, ...] = Field((), description="Reviewer-rejected ids that were excluded.")
    sources: dict[str, tuple[str, ...]] = Field(
        default_factory=dict,
        description="Evidence graph: evidence id → the query records (source provenance) that "
        "found it; case evidence maps to ().",
    )
    not_relevant: tuple[NotRelevant, ...] = Field(
        (), description="Retrieved items refused by the claim-relevance gate (never evidence)."
    )


class Arguments(Frozen):
    """``argue:k``: verified, scored arguments 𝒢_k for subclaim k."""

    subclaim: str
    arguments: tuple[Argument, ...]
    uncertainty: tuple[UncertaintyItem, ...] = ()
    relations: tuple[Relation, ...] = Field(
        (), description="Sparse argument-to-argument relations (A-QBAF MV2026 §2.5)."
    )


class SolvedQbaf(Frozen):
    """``qbaf:k``: the solved claim graph and its decision."""

    qbaf: Qbaf
    decision: SubclaimDecision
    uncertainty: tuple[UncertaintyItem, ...] = ()


class RenderedReport(Frozen):
    """``render``: the report in every format, as text (files are written after commit)."""

    markdown: str
    html: str
    json_report: str
