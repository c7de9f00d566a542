"""Enumerations defined once and used everywhere (no control flow by strings)."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Dimension(StrEnum):
    """The six default verification dimensions (SEMV §4.3; A-QBAF MV2026 §2.2)."""

    WHAT = "what"
    WHERE = "where"
    WHEN = "when"
    WHO = "who"
    WHY = "why"
    AUTHENTICITY = "authenticity"


CORE_DIMENSIONS: tuple[Dimension, ...] = (
    Dimension.WHAT,
    Dimension.WHERE,
    Dimension.WHEN,
    Dimension.WHO,
    Dimension.AUTHENTICITY,
)
"""Dimensions whose support makes a case verified (§4.4, aggregation rule 3)."""

CONTEXT_DIMENSIONS: tuple[Dimension, ...] = (
    Dimension.WHERE,
    Dimension.WHEN,
    Dimension.WHO,
    Dimension.WHY,
)
"""Dimensions whose refutation, with supported content, makes false context (rule 2).

``why`` carries the caption-context claim (the narrative the media is used for)."""


class Stance(StrEnum):
    """Which side an argument takes on its subclaim: support, attack, mixed or neutral (σ_a,
    Eq. 4)."""

    SUPPORT = "sup"
    ATTACK = "att"
    MIXED = "mix"
    NEUTRAL = "neu"


class Directness(StrEnum):
    """What an argument's evidence bears on (docs/architecture.md, "Directness"): the media
    itself (its metadata, content credentials, forensic traces, text burnt into it), an item
    that refers to this media (a reverse-image match, a caption or fact-check of this image, a
    quotation of the claim), or only the event the claim reports."""

    MEDIA = "media"
    MEDIA_REFERENCE = "media-reference"
    EVENT = "event"

    @property
    def rank(self) -> int:
        """2 for ``media``, 1 for ``media-reference``, 0 for ``event``."""
        return {"media": 2, "media-reference": 1, "event": 0}[self.value]


class RelationKind(StrEnum):
    """The three argument-to-argument relations of A-QBAF MV2026 §2.5, and only those."""

    CUE_CONFLICT = "cue-conflict"
    """Attack: two arguments read the same visual cue in opposite ways (mutual)."""
    METADATA_CONTRADICTION = "metadata-contradiction"
    """Attack: a metadata argument (EXIF, container) on an argument reporting a date or place
    the metadata contradicts (one direction)."""
    CORROBORATION = "corroboration"
    """Support: two independent trusted sources confirming the same fact (mutual)."""

    @property
    def stance(self) -> Stance:
        """The edge's polarity: SUPPORT for corroboration, ATTACK otherwise."""
        return Stance.SUPPORT if self is RelationKind.CORROBORATION else Stance.ATTACK

    @property
    def mutual(self) -> bool:
        """Whether the relation holds in both directions (two QBAF edges)."""
        return self is not RelationKind.METADATA_CONTRADICTION

    @property
    def code(self) -> str:
        """The short code in relation ids (``rel:when:meta:1``)."""
        return _RELATION_CODES[self]


_RELATION_CODES: dict[RelationKind, str] = {
    RelationKind.CUE_CONFLICT: "cue",
    RelationKind.METADATA_CONTRADICTION: "meta",
    RelationKind.CORROBORATION: "conf",
}


class Band(StrEnum):
    """Subclaim decision d_k of Eq. 18."""

    REFUTED = "refuted"
    WEAKLY_REFUTED = "weakly-refuted"
    UNCERTAIN = "uncertain"
    WEAKLY_SUPPORTED = "weakly-supported"
    SUPPORTED = "supported"


class InternalLabel(StrEnum):
    """The internal (MV2026) label space; ``uncertain`` is the abstention."""

    VERIFIED = "verified"
    MOSTLY_VERIFIED = "mostly-verified"
    PARTIALLY_VERIFIED = "partially-verified"
    FALSE_CONTEXT = "false-context"
    MANIPULATED_OR_SYNTHETIC = "manipulated-or-synthetic"
    INSUFFICIENT_EVIDENCE = "insufficient-evidence"
    UNCERTAIN = "uncertain"


class CosmosLabel(StrEnum):
    """𝒴_COSMOS of Eq. 3."""

    OOC = "OOC"
    NOOC = "NOOC"


class MediaKind(StrEnum):
    IMAGE = "image"
    VIDEO = "video"
    AUDIO = "audio"


class Modality(StrEnum):
    """What kind of content an evidence item is: text, image, video, audio or metadata (the
    modality term of Eq. 14)."""

    TEXT = "text"
    IMAGE = "image"
    VIDEO = "video"
    AUDIO = "audio"
    METADATA = "metadata"


class SourceType(StrEnum):
    """What kind of source an evidence item comes from."""

    SUPPLIED = "supplied"
    PRIOR_CAPTION = "prior-caption"
    NEWS = "news"
    FACT_CHECK = "fact-check"
    WEB = "web"
    SOCIAL = "social"
    OFFICIAL = "official"
    METADATA = "metadata"
    FORENSIC = "forensic"
    HUMAN = "human"
    OTHER = "other"


class EvidenceKind(StrEnum):
    """What an evidence item's typed observation is (the tag of ``Observation``)."""

    EXIF = "exif"
    FILE = "file"
    CONTAINER = "container"
    C2PA = "c2pa"
    FORENSIC_MAP = "forensic-map"
    FORENSIC_COMBINED = "forensic-combined"
    JPEG_STRUCTURE = "jpeg-structure"
    BORDER_CUES = "border-cues"
    REVERSE_SEARCH_MATCH = "reverse-search-match"
    OCR = "ocr"
    TRANSCRIPT = "transcript"
    KEYFRAMES = "keyframes"
    VISUAL = "visual"
    DESCRIPTION = "description"
    RETRIEVED = "retrieved-document"
    SUPPLIED = "supplied"


class ProducerKind(StrEnum):
    """Who produced an evidence item (provenance ρ)."""

    TOOL = "tool"
    DATASET = "dataset"
    USER = "user"
    HUMAN_REVIEWER = "human-reviewer"
    RETRIEVAL = "retrieval"


class Scope(StrEnum):
    """Subclaim scope (§4.3)."""

    CASE = "case"
    ASSET = "asset"
    SEGMENT = "segment"
    SOURCE = "source"
    EVENT = "event"


class Stage(StrEnum):
    """Stage symbols in pipeline order C ≺ R ≺ V ≺ A ≺ Q ≺ F ≺ O (§4.5)."""

    CLAIMS = "C"
    RETRIEVE = "R"
    VALIDATE = "V"
    ARGUE = "A"
    QBAF = "Q"
    AGGREGATE = "F"
    RENDER = "O"


class UncertaintyCode(StrEnum):
    """Typed uncertainty codes ω (Eq. 4) and Ξ (Eq. 2)."""

    TOOL_MISSING = "tool-missing"
    MEDIA_UNREADABLE = "media-unreadable"
    EMPTY_OUTPUT = "empty-output"
    MEDIA_NOT_LOADED = "media-not-loaded"
    NO_METADATA = "no-metadata"
    GPS_INVALID = "gps-invalid"
    METADATA_INVALID = "metadata-invalid"
    """A metadata value that cannot be true (a capture time in the future, after the file
    itself was written, or before photography existed): dropped, not used as evidence."""
    INPUT_TRUNCATED = "input-truncated"
    """A claim or evidence text longer than ``limits`` allow was cut (``limits.oversize =
    "truncate"``): the verdict rests on the part that was kept."""
    METADATA_DOUBTFUL = "metadata-doubtful"
    """Metadata that may not describe the capture: written by an image editor, without a
    camera make or model (a screenshot or re-save), or a capture time after the media was
    already published. Its comparisons stay as arguments but outrank no other evidence."""
    TIMEZONE_UNKNOWN = "timezone-unknown"
    NO_EVIDENCE = "no-evidence"
    UNVERIFIED_ARGUMENT = "unverified-argument"
    UNRESOLVED_EVIDENCE = "unresolved-evidence-id"
    NOT_ASSERTED = "not-asserted"
    NEUTRAL_BAND = "neutral-band"
    MAJOR_CONFLICT = "major-factual-conflict"
    METADATA_CLAIM_CONFLICT = "metadata-claim-conflict"
    RETRIEVAL_GAP = "retrieval-gap"
    RETRIEVED_NOT_RELEVANT = "retrieved-not-relevant"
    """Retrieved items the claim-relevance gate refused: listed with their scores, never
    evidence."""
    EARLIER_CONTEXT_MATCH = "earlier-context-match"
    FORENSIC_ANOMALY = "forensic-anomaly"
    MEMORY_NOT_EVIDENCE = "memory-not-evidence"
    DATE_AMBIGUOUS = "date-ambiguous"
    """The claimed date is numeric with day and month both 12 or less ("7/3/2024") and the
    case's language tag does not decide their order: one reading was used, the other is
    named in the detail."""
    # uncertainty detection before a decision is final (SEMV §4.5, Module E)
    LOW_RELIABILITY = "low-reliability"
    OCR_ASR_DISAGREEMENT = "ocr-asr-disagreement"
    FORENSIC_SOURCE_CONFLICT = "forensic-source-conflict"
    NEAR_TIE = "near-tie"
    MEDIA_TYPE_MISMATCH = "media-type-mismatch"
    MEDIA_TOO_SMALL = "media-too-small"
    MEDIA_REFUSED = "media-refused"
    MODEL_FALLBACK = "model-fallback"
    """A model answer was unusable (after one repair) or the server unreachable: the role
    fell back to the deterministic offline backend (or, for the verifier, failed closed)."""
    ESCALATED = "escalated"
    """The subclaim's score lay in the escalation band (A-QBAF §2.6.3): a stronger verifier
    re-verified its arguments once and the QBAF was re-solved."""
    ESCALATION_FAILED = "escalation-failed"
    """The stronger verifier's answer was unusable: the subclaim keeps its original QBAF."""


class TraceKind(StrEnum):
    """Kinds of trace events."""

    RUN_STARTED = "run.started"
    NODE_EXECUTED = "node.executed"
    NODE_REUSED = "node.reused"
    NODE_REJECTED = "node.rejected"
    NODE_FAILED = "node.failed"
    RUN_COMMITTED = "run.committed"
    RUN_FAILED = "run.failed"
    RUN_INTERRUPTED = "run.interrupted"
    REPORT_WRITTEN = "report.written"
    # contestation (Module E): a review batch applied, the revision it produced
    CONTEST_APPLIED = "contest.applied"
    CONTEST_REVISED = "contest.revised"
    CTR_INJECTED = "ctr.injected"


class RunStatus(StrEnum):
    RUNNING = "running"
    COMMITTED = "committed"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
    """Its process died (kill -9, timeout, crash) before it finished; set when a resume
    claims it. A running run whose owner is gone is *shown* interrupted before that."""


class VeracityLabel(StrEnum):
    """ReMMD's five L1 veracity labels, ordered by severity (ReMMD §3)."""

    TRUE = "True"
    MOSTLY_TRUE = "Mostly True"
    MIXTURE = "Mixture"
    MOSTLY_FALSE = "Mostly False"
    FALSE = "False"


class Distortion(StrEnum):
    """ReMMD's eight L2 distortion labels (textual T, visual V, cross-modal C); the member's
    name is the label's code (``Distortion["T3"]``)."""

    T1 = "T1 Fabrication"
    T2 = "T2 Distortion"
    T3 = "T3 Misleading Context"
    V1 = "V1 Synthetic Visual Content"
    V2 = "V2 Visual Editing"
    C1 = "C1 Semantic Inconsistency"
    C2 = "C2 Contextual Inconsistency"
    C3 = "C3 Pragmatic Inconsistency"

    @property
    def code(self) -> str:
        """``T1`` … ``C3``."""
        return self.name

    @property
    def visual(self) -> bool:
        return self.name.startswith("V")


REMMD_L1: Final[tuple[VeracityLabel, ...]] = tuple(VeracityLabel)
"""ReMMD's five L1 veracity labels, ordered by severity (ReMMD §3)."""

REMMD_L2: Final[tuple[Distortion, ...]] = tuple(Distortion)
"""ReMMD's eight L2 distortion labels, in the paper's order."""
