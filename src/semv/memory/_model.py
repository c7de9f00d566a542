"""Memory records, candidates and events (SEMV §4.6 "Long-term Memory Composition")."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from semv.model import Frozen


class MemoryType(StrEnum):
    """τ: the three record types of long-term memory (Table 2)."""

    EPISODIC = "episodic"
    FAILURE = "failure"
    SEMANTIC = "semantic"


class Status(StrEnum):
    """Lifecycle status of a record (§4.6)."""

    SHORT_TERM = "short-term"
    ACTIVE = "active"
    UNDER_REVIEW = "under-review"
    DEPRECATED = "deprecated"
    ARCHIVED = "archived"


class Diagnosis(StrEnum):
    """What reflection found (§4.6 "Post-Prediction Reflection")."""

    SUCCESS = "success"
    LABEL_MISMATCH = "label-mismatch"
    OVERCONFIDENT_ERROR = "overconfident-error"
    CONTEXT_VS_MANIPULATION = "context-vs-manipulation"
    RETRIEVAL_FAILURE = "retrieval-failure"
    UNRESOLVED_CLASH = "unresolved-clash"
    TEMPORAL_GEOLOCATION = "temporal-geolocation"
    WEAK_PROVENANCE = "weak-provenance"


class Action(StrEnum):
    """What a lesson recommends. Guidance only: questions, queries, source types and checks.

    ``CONTEXT_THRESHOLD`` is a reasoning check: a caption of the same media that names none of
    the claim's entities and has similarity below ``params['threshold']`` is read as describing a
    different event. The argument it yields still cites that caption (current-case evidence).

    ``ADJUST_STRENGTH`` scales w_a (Eq. 14) of the arguments whose typed observations meet the
    lesson's trigger (``semv.memory._cues``) by ``params['factor']``; the argument keeps its
    evidence and stance, and cites the record in M(a)."""

    CONTEXT_THRESHOLD = "context-threshold"
    ADJUST_STRENGTH = "adjust-strength"
    ADD_QUERY = "add-query"
    PREFER_SOURCE = "prefer-source"
    ADD_CHECK = "add-check"


class Candidate(Frozen):
    """κ: a reflected candidate with its grounding and provenance (§4.6)."""

    id: str
    type: MemoryType
    diagnosis: Diagnosis
    lesson: str = Field(min_length=1)
    task: str = Field(description="Dataset contract the lesson applies to (task scope).")
    dimension: str = Field(description="Claim scope: the subclaim dimension.")
    trigger: dict[str, str] = Field(description="When the lesson applies (pattern keys).")
    pattern: dict[str, float] = Field(
        default_factory=dict, description="The observed evidence pattern (numbers)."
    )
    action: str
    params: dict[str, float] = Field(default_factory=dict)
    queries: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    polarity: int = Field(1, description="+1 supports the lesson's key, -1 contradicts it.")
    evidence: tuple[str, ...] = Field(description="E_κ: grounding evidence ids.")
    arguments: tuple[str, ...] = Field(description="A_κ (𝒢_κ): grounding argument ids.")
    source_case: str
    source_run: str
    source_fingerprint: str
    confidence: float = Field(ge=0.0, le=1.0, description="c_κ.")
    supervision: str = Field(description="gold | human | none")
    reflector: str = Field(description="Which reflector produced it.")

    @property
    def key(self) -> str:
        """Canonical key: type-independent identity of what the lesson says (for clustering,
        duplicate detection, merge and conflict)."""
        trig = ",".join(f"{k}={v}" for k, v in sorted(self.trigger.items()))
        return f"{self.task}|{self.dimension}|{self.action}|{trig}"


class Record(Frozen):
    """m: a short- or long-term memory record."""

    id: str
    type: MemoryType
    status: Status
    key: str
    lesson: str
    task: str
    dimension: str
    trigger: dict[str, str]
    pattern: dict[str, float] = Field(default_factory=dict)
    action: str
    params: dict[str, float] = Field(default_factory=dict)
    queries: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    alpha: float = 1.0
    beta: float = 1.0
    n_support: int = 0
    n_conflict: int = 0
    cases: tuple[str, ...] = ()
    fingerprints: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = Field((), description="Candidate ids stored as counter-evidence.")
    candidates: tuple[str, ...] = Field((), description="Candidate ids merged into it.")
    uses_retrieved: int = 0
    uses_successful: int = 0
    provenance: dict[str, str] = Field(default_factory=dict)

    @property
    def confidence(self) -> float:
        """c(m) of Eq. 29."""
        return self.alpha / (self.alpha + self.beta)


class UsageKind(StrEnum):
    """Retrieval exposure vs. causal use (§4.6 "Retrieval and Evaluation Isolation")."""

    RETRIEVED = "retrieved"
    CITED_PLANNING = "cited-planning"
    CITED_ARGUMENT = "cited-argument"
    USED_SUCCESSFULLY = "used-successfully"
    CONTESTED = "contested"
