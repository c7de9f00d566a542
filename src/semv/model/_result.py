"""Outputs: the verdict F(x) (Eq. 2), the JSON result contract, trace events, review actions."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from semv.model._base import Frozen
from semv.model._enums import Directness, InternalLabel, Stage, Stance, TraceKind, UncertaintyCode
from semv.model._evidence import Evidence, UncertaintyItem
from semv.model._facts import Facts
from semv.model._reasoning import Relation, SubclaimDecision
from semv.model._usage import Usage


class CalibratedProbability(Frozen):
    """A probability fitted on a declared training split (``semv.calibration``), reported
    beside the paper's Eq. 20 value; it never changes the label."""

    label: str = Field(description="The class it is the probability of (COSMOS: OOC).")
    probability: float = Field(ge=0.0, le=1.0)
    calibration: str = Field(
        description="The calibration's identity: contract@sha256 prefix of the shipped file."
    )


class AggregationRule(Frozen):
    """The aggregation rule of SEMV §4.4 that decided a case: its position in the priority
    order and the sentence that explains it for this case."""

    number: int = Field(ge=1, le=7, description="Position of the rule in the priority order.")
    sentence: str = Field(description="Why it fired, for this case, without the rule's number.")

    @property
    def text(self) -> str:
        """``"Rule N: <sentence>"``, the verdict's ``rule``."""
        return f"Rule {self.number}: {self.sentence}"


class Verdict(Frozen):
    """F(x) = ⟨ŷ, p, γ, J, T, Ξ⟩ (Eq. 2) before rendering: the aggregate stage's output."""

    label: str = Field(description="ŷ in the adapter's label contract.")
    internal_label: InternalLabel
    rule: str = Field(description="Which aggregation rule fired (for the justification).")
    aggregation_rule: AggregationRule | None = Field(
        None,
        description="semv's aggregation rule, as number and sentence (``rule`` is its text); "
        "None for a verdict of another procedure.",
    )
    probabilities: dict[str, float] = Field(description="p over the adapter's contract.")
    confidence: float = Field(ge=0.0, le=1.0, description="γ (Eq. 19).")
    mean_score: float = Field(description="ψ̄, the mean subclaim score.")
    decisions: tuple[SubclaimDecision, ...]
    uncertainty: tuple[UncertaintyItem, ...] = Field(description="Ξ: case-level codes.")
    veracity: str | None = Field(
        None, description="L1 of a 5-way procedure (ReMMD, MMD-Agent, T2-Agent); None for semv."
    )
    distortions: tuple[str, ...] = Field((), description="L2 labels (full names), after L1.")
    rationale: str | None = Field(None, description="L3: the rationale, in the post's language.")
    calibrated: CalibratedProbability | None = Field(
        None,
        description="The calibrated probability of the contract's positive class, when the "
        "contract has a shipped calibration (COSMOS); None otherwise.",
    )


# ---- the machine-readable result contract (DESIGN §4, `semv verify --json`) -------------


def _without_unset_facts(data: Any) -> Any:
    """Drop ``facts`` when there are none, so the result stays the DESIGN §4 contract."""
    if isinstance(data, dict) and data.get("facts") is None:
        data.pop("facts", None)
    return data


class ResultArgument(Frozen):
    id: str
    stance: Stance
    text: str
    evidence: tuple[str, ...]
    strength: float
    verified: bool
    directness: Directness | None = Field(
        None,
        description="What its evidence bears on: media, media-reference or event (the key is "
        "absent for results written before arguments recorded it).",
    )
    facts: Facts | None = Field(
        None,
        description="The dates, places and quantities the argument rests on, typed by its "
        "dimension (the key is absent when there are none).",
    )

    @model_serializer(mode="wrap")
    def _facts_only_when_set(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = _without_unset_facts(handler(self))
        if isinstance(data, dict) and data.get("directness") is None:
            data.pop("directness", None)
        return data


class ResultSubclaim(Frozen):
    id: str
    dimension: str
    statement: str
    score: float
    decision: str
    arguments: tuple[ResultArgument, ...]
    facts: Facts | None = Field(
        None,
        description="What the subclaim claims, typed (claimed dates with their precision, "
        "places); the key is absent when there is nothing typed.",
    )
    relations: tuple[Relation, ...] = Field(
        (),
        description="The argument-to-argument relations of its A-QBAF (A-QBAF MV2026 §2.5: "
        "cue-conflict, metadata-contradiction, corroboration); the key is absent when the "
        "graph is a star.",
    )

    @model_serializer(mode="wrap")
    def _facts_only_when_set(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = _without_unset_facts(handler(self))
        if isinstance(data, dict) and not data.get("relations"):
            data.pop("relations", None)
        return data


class ResultEvidence(Frozen):
    id: str
    source: str
    source_type: str
    modality: str
    content: str
    url: str | None
    published: str | None
    reliability: float
    provenance: dict[str, Any] | None
    uncertainty: tuple[str, ...]


class ResultUncertainty(Frozen):
    code: str
    subject: str
    detail: str
    stages: tuple[str, ...]


class Result(Frozen):
    """Exactly the JSON contract of DESIGN §4."""

    run_id: str
    case_id: str
    label: str
    probabilities: dict[str, float]
    confidence: float
    subclaims: tuple[ResultSubclaim, ...]
    evidence: tuple[ResultEvidence, ...]
    uncertainty: tuple[ResultUncertainty, ...]
    report_paths: dict[str, str]
    trace_head: str
    usage: Usage | None = Field(
        None,
        description="Model calls, tokens, wall and critical path (LLM backend only; the key is "
        "absent otherwise, so the offline contract is unchanged).",
    )
    procedure: str = Field("semv", description="The verification procedure that produced it.")
    veracity: str | None = Field(None, description="L1 of a 5-way procedure (absent for semv).")
    distortions: tuple[str, ...] = Field((), description="L2 labels of a 5-way procedure.")
    rationale: str | None = Field(None, description="L3 rationale of a 5-way procedure.")
    calibrated_probability: CalibratedProbability | None = Field(
        None,
        description="The calibrated probability beside Eq. 20's (COSMOS contract: p_cal(OOC) "
        "with the calibration's id; the key is absent for contracts without one).",
    )

    @property
    def shown_probability(self) -> float | None:
        """The calibrated probability of ``label`` (None without a calibration): the
        calibrated class's probability, or its complement in a binary contract."""
        cal = self.calibrated_probability
        if cal is None:
            return None
        if self.label == cal.label:
            return cal.probability
        return 1.0 - cal.probability if len(self.probabilities) == 2 else None

    @property
    def shown(self) -> str:
        """The number shown next to the label, named: "calibrated probability 0.93" or
        "uncalibrated score 0.55" (the confidence γ of Eq. 19)."""
        p = self.shown_probability
        if p is not None:
            return f"calibrated probability {p:.2f}"
        return f"uncalibrated score {self.confidence:.2f}"

    @model_serializer(mode="wrap")
    def _optional_keys_only_when_set(self, handler: SerializerFunctionWrapHandler) -> Any:
        """``usage`` only when measured; ``calibrated_probability`` only when the contract has
        a calibration; the procedure and the hierarchical labels only for a procedure other
        than semv: the semv offline contract is otherwise unchanged."""
        data = handler(self)
        if isinstance(data, dict):
            if data.get("usage") is None:
                data.pop("usage", None)
            if data.get("calibrated_probability") is None:
                data.pop("calibrated_probability", None)
            if data.get("procedure") == "semv" and data.get("veracity") is None:
                for key in ("procedure", "veracity", "distortions", "rationale"):
                    data.pop(key, None)
        return data


def result_evidence(item: Evidence) -> ResultEvidence:
    """Project an evidence item onto the result contract."""
    return ResultEvidence(
        id=item.id,
        source=item.source,
        source_type=item.source_type.value,
        modality=item.modality.value,
        content=item.content,
        url=item.url,
        published=item.published,
        reliability=item.reliability,
        provenance=item.provenance.model_dump(mode="json") if item.provenance else None,
        uncertainty=tuple(code.value for code in item.uncertainty),
    )


def result_uncertainty(item: UncertaintyItem) -> ResultUncertainty:
    return ResultUncertainty(
        code=item.code.value,
        subject=item.subject,
        detail=item.detail,
        stages=tuple(stage.value for stage in item.stages),
    )


# ---- trace ---------------------------------------------------------------------------------


class TraceEvent(Frozen):
    """One append-only, hash-chained trace event: ``hash = H(prev_hash, body)``."""

    run_id: str
    seq: int = Field(ge=0)
    kind: TraceKind
    node: str | None = None
    payload: dict[str, Any] = Field(default_factory=dict)
    at: str = Field(description="UTC ISO-8601 time of the event.")
    prev_hash: str
    hash: str


# ---- review actions (Eq. 21) ----------------------------------------------------------------


class ReviewMeta(Frozen):
    reviewer: str = "reviewer"
    target_stage: Stage | None = Field(
        None,
        description="The stage to re-enter the pipeline at (C claims, R retrieval, V "
        "validation, A argumentation, Q QBAF, F aggregation, O output), overriding the routing "
        "the action would get by default (Eq. 22).",
    )
    at: str | None = None


class _Review(Frozen):
    target: str = Field(
        description="The id of the argument (arg:where:att:1), evidence item (ev:exif:asset:1) "
        "or subclaim (claim:where) the action is about."
    )
    reason: str = Field(min_length=1, description="Why the reviewer takes the action (required).")
    meta: ReviewMeta = ReviewMeta()


class Accept(_Review):
    op: Literal["accept"] = "accept"


class Reject(_Review):
    op: Literal["reject"] = "reject"


class Edit(_Review):
    op: Literal["edit"] = "edit"
    text: str | None = None
    stance: Stance | None = None
    evidence_edited: tuple[Evidence, ...] = Field(
        (), description="Evidence items the edit replaces, as they should read."
    )
    cites: tuple[str, ...] = Field(
        (),
        description="Existing evidence ids the revised argument cites (default: the original's).",
    )


class Add(_Review):
    op: Literal["add"] = "add"
    text: str | None = None
    stance: Stance | None = None
    evidence_added: tuple[Evidence, ...] = Field(
        (), description="New evidence items the reviewer adds (recorded as the reviewer's)."
    )
    cites: tuple[str, ...] = Field(
        (), description="Existing evidence ids the added argument cites, besides the new items."
    )


ReviewAction = Annotated[Accept | Reject | Edit | Add, Field(discriminator="op")]
"""h = ⟨o_h, tgt_h, t_h, ς_h, E^+_h, E^Δ_h, rsn_h, meta_h⟩ (Eq. 21)."""

__all__ = [
    "Accept",
    "Add",
    "Edit",
    "Reject",
    "Result",
    "ResultArgument",
    "ResultEvidence",
    "ResultSubclaim",
    "ResultUncertainty",
    "ReviewAction",
    "ReviewMeta",
    "TraceEvent",
    "UncertaintyCode",
    "Verdict",
    "result_evidence",
    "result_uncertainty",
]
