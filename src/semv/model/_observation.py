"""Typed observations: the structured payload of an evidence item (the ``obs_e`` of Eq. 4
beyond its text), one frozen model per kind of producer, joined in a tagged union on ``kind``.

Adding a payload is one model here plus one line in ``Observation`` (and one member of
``EvidenceKind``). Readers match on the type (``ev.observed(Exif)``, ``isinstance``) instead
of reading string keys.

Before schema version 2 the payload was an untyped mapping ``Evidence.data``;
:func:`observation_from_data` maps such a mapping (stored runs, review batches, evidence files)
onto the union, and :meth:`ObservationBase.as_data` gives the flat mapping back.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Final, Literal

from pydantic import Field, JsonValue, TypeAdapter

from semv.model._base import Frozen
from semv.model._enums import EvidenceKind

__all__ = [
    "OBSERVATION_ADAPTER",
    "BorderCues",
    "ColourShare",
    "Container",
    "ContentCredentials",
    "Exif",
    "FileIntegrity",
    "ForensicMap",
    "JpegStructure",
    "Keyframe",
    "Keyframes",
    "MediaDescription",
    "Observation",
    "ObservationBase",
    "OcrLine",
    "OcrReading",
    "OcrText",
    "RetrievedDocument",
    "ReverseSearchMatch",
    "SuppliedItem",
    "Transcript",
    "TranscriptSegment",
    "VisualFeatures",
    "camera_name",
    "observation_from_data",
]

Scalar = str | int | float | bool


class ObservationBase(Frozen):
    """What every payload shares: its ``kind`` (the union's tag) and the flat views."""

    kind: EvidenceKind
    _KIND_IN_DATA: ClassVar[bool] = True
    """Whether the flat mapping names the kind (payloads typed before v2 did not)."""

    def as_data(self) -> dict[str, Any]:
        """The payload as the flat JSON mapping ``Evidence.data`` of schema version 1 (keys
        with a value only, nested rows as lists of mappings)."""
        out = self.model_dump(mode="json", exclude_none=True)
        if not self._KIND_IN_DATA:
            out.pop("kind", None)
        return out

    def scalars(self) -> dict[str, Scalar]:
        """The top-level scalar facts (strings, numbers, booleans) of :meth:`as_data`: what a
        verifier may quote or a prompt may show beside the item's text."""
        return {k: v for k, v in self.as_data().items() if isinstance(v, Scalar)}


# ---- metadata and file structure ------------------------------------------------------------


class Exif(ObservationBase):
    """Camera metadata read with exiftool (``ev:exif:<asset>``), plus file-time gaps."""

    kind: Literal[EvidenceKind.EXIF] = EvidenceKind.EXIF
    _KIND_IN_DATA: ClassVar[bool] = False
    capture_time: str | None = Field(None, description="ISO 8601, with its offset when known.")
    timezone_known: bool | None = None
    capture_time_tag: str | None = None
    timezone_source: str | None = None
    latitude: float | None = None
    longitude: float | None = None
    make: str | None = None
    model: str | None = None
    software: str | None = None
    modify_time: str | None = None
    file_modified: str | None = Field(None, description="File system mtime (UTC, ISO 8601).")
    modify_gap_hours: float | None = Field(None, description="EXIF modify − capture time.")
    file_modified_gap_hours: float | None = Field(None, description="mtime − capture time.")
    gap_approximate: bool | None = Field(None, description="A time zone was assumed (UTC).")

    @property
    def camera(self) -> str:
        """Make and model as one name, the make once ("Canon EOS 80D", not "Canon Canon EOS
        80D"); empty when neither is known."""
        return camera_name(self.make, self.model)


def camera_name(make: str | None, model: str | None) -> str:
    """A camera's name from its EXIF/QuickTime make and model: the model alone when it
    already starts with the make's first word (Canon writes Make "Canon", Model "Canon EOS
    80D"), else "make model"; empty when neither is known."""
    make, model = (make or "").strip(), (model or "").strip()
    if make and model and model.casefold().startswith(make.split()[0].casefold()):
        return model
    return " ".join(part for part in (make, model) if part)


class FileIntegrity(ObservationBase):
    """Hash, size, sniffed format and decoded size of the file (``ev:file:<asset>``)."""

    kind: Literal[EvidenceKind.FILE] = EvidenceKind.FILE
    sha256: str
    size_bytes: int
    format: str | None = None
    width: int | None = None
    height: int | None = None


class Container(ObservationBase):
    """What ffprobe reports of a video or audio container (``ev:container:<asset>``)."""

    kind: Literal[EvidenceKind.CONTAINER] = EvidenceKind.CONTAINER
    format: str | None = None
    duration_s: float | None = None
    video_streams: int = 0
    audio_streams: int = 0
    video_codec: str | None = None
    width: int | None = None
    height: int | None = None
    fps: float | None = None
    audio_codec: str | None = None
    sample_rate_hz: int | None = None
    channels: int | None = None
    creation_time: str | None = None
    encoder: str | None = None
    location_iso6709: str | None = None
    make: str | None = None
    model: str | None = None
    software: str | None = None


class ContentCredentials(ObservationBase):
    """The active C2PA manifest and its validation (``ev:c2pa:<asset>``)."""

    kind: Literal[EvidenceKind.C2PA] = EvidenceKind.C2PA
    validation_state: str
    signer: str
    issuer: str
    claim_generator: str
    actions: str = Field(description="Action names, comma-separated.")
    ai_generated: bool
    edited: bool
    hash_mismatch: bool
    trusted: bool
    failures: str = Field(description="Validation failure codes, comma-separated.")


# ---- forensics -----------------------------------------------------------------------------


class ForensicMap(ObservationBase):
    """One forensic score map (ELA, noise, ghost) or their mean (``forensic-combined``)."""

    kind: Literal[EvidenceKind.FORENSIC_MAP, EvidenceKind.FORENSIC_COMBINED] = (
        EvidenceKind.FORENSIC_MAP
    )
    map: str = Field(description="ela, noise, ghost or combined.")
    region_score: float
    threshold: float
    exceeds: bool
    region: str = Field(description="The most anomalous window, 'x,y,w,h' in pixels.")
    ela_score: float | None = None
    noise_score: float | None = None
    ghost_score: float | None = None
    editing_traces: str | None = Field(
        None, description="JPEG traces that corroborate the map ('; '-joined; combined only)."
    )
    map_png: str | None = Field(None, description="The heat map's content-addressed file name.")
    manipulation_probability: float | None = Field(
        None,
        description="Calibrated P(manipulated) of the fitted forensic model (combined only; "
        "semv.perception.manipulation).",
    )
    manipulation_threshold: float | None = Field(
        None, description="The fitted probability at or above which the image counts as edited."
    )
    manipulation_model: str | None = Field(None, description="The fitted model's version.")
    manipulation_gate: bool | None = Field(
        None,
        description="Whether the probability may argue against authenticity "
        "(forensics.manipulation_attacks); otherwise, or when not recorded, it is a review "
        "item only.",
    )
    signals: str | None = Field(
        None, description="'name=value; ...' of every forensic feature the model reads."
    )
    copy_move: str | None = Field(
        None,
        description="A cloned pair found by keypoint matching, 'x,y,w,h -> x,y,w,h'; only when "
        "the detector's own verification holds (the source, moved, reproduces the copy).",
    )
    review_threshold: float | None = Field(
        None,
        description="The probability at or above which the image is flagged for a reviewer "
        "(forensics.review_threshold: ≤ 5 % false alarms on real unedited photos).",
    )

    @property
    def flagged_for_review(self) -> bool:
        """The calibrated probability reaches the review threshold (a screening score)."""
        return (
            self.manipulation_probability is not None
            and self.review_threshold is not None
            and self.manipulation_probability >= self.review_threshold
        )

    @property
    def manipulated(self) -> bool:
        """The calibrated probability reaches the fitted threshold."""
        return (
            self.manipulation_probability is not None
            and self.manipulation_threshold is not None
            and self.manipulation_probability >= self.manipulation_threshold
        )

    @property
    def argues(self) -> bool:
        """The probability reaches the threshold and the gate lets it attack authenticity."""
        return self.manipulated and self.manipulation_gate is True

    @property
    def combined(self) -> bool:
        return self.kind is EvidenceKind.FORENSIC_COMBINED


class JpegStructure(ObservationBase):
    """Quantization tables, editor markers and the double-compression hint of a JPEG."""

    kind: Literal[EvidenceKind.JPEG_STRUCTURE] = EvidenceKind.JPEG_STRUCTURE
    jpeg_quality: int | None = None
    standard_tables: bool
    table_deviation: float
    progressive: bool
    quantization_tables: int
    luma_table: str
    subsampling: str | None = None
    editor_markers: str | None = Field(None, description="'; '-joined marker descriptions.")
    jpeg_comment: str | None = None
    double_compression_hint: bool = False
    ghost_dip_quality: int | None = None
    ghost_dip_ratio: float | None = None


class BorderCues(ObservationBase):
    """Uniform border bands (letterboxing, screenshots, recaptures), in pixels."""

    kind: Literal[EvidenceKind.BORDER_CUES] = EvidenceKind.BORDER_CUES
    border_top: int
    border_bottom: int
    border_left: int
    border_right: int
    border_fraction: float


# ---- perception of content -----------------------------------------------------------------


class ReverseSearchMatch(ObservationBase):
    """A copy of the image found by reverse search (``ev:rsearch:...``): in the local index
    (pHash, ORB or CLIP; the ``indexed_*`` and threshold fields) or by a web engine (TinEye,
    Google Lens; ``engine``, ``image_url``, ``search_rank``)."""

    kind: Literal[EvidenceKind.REVERSE_SEARCH_MATCH] = EvidenceKind.REVERSE_SEARCH_MATCH
    match_method: str = Field(description="phash, orb, clip, or the web engine's name.")
    indexed_sha256: str | None = Field(None, description="The indexed copy (local index).")
    indexed_path: str | None = None
    phash_threshold: int | None = None
    engine: str | None = Field(None, description="The web engine that found the page.")
    image_url: str | None = Field(None, description="The copy's image URL (web engines).")
    search_rank: int | None = Field(None, description="The match's rank in the engine's answer.")
    phash_distance: int | None = None
    orb_inliers: int | None = None
    orb_inlier_ratio: float | None = None
    orb_min_inlier_ratio: float | None = None
    clip_similarity: float | None = None
    clip_threshold: float | None = None
    first_seen: str | None = None
    caption: str | None = None
    source_url: str | None = None
    indexed_size: tuple[int, int] | None = Field(
        None, description="The indexed copy's width and height (pixels)."
    )
    verify_agreement: float | None = Field(
        None,
        description="Match verification: share of one image's own textured pixels that agree "
        "once the pair is aligned, the larger of the two images' shares (local index).",
    )
    verify_min_agreement: float | None = Field(
        None, description="The agreement at or above which a candidate is a verified match."
    )
    matched_region: tuple[int, int, int, int] | None = Field(
        None,
        description="Where the query lies in the indexed copy (x, y, w, h; its pixels).",
    )
    match_scale: float | None = Field(
        None, description="Indexed-copy pixels per query pixel in the alignment."
    )
    mirrored: bool | None = Field(None, description="True when the query is a mirrored copy.")
    query_thumb: str | None = Field(
        None, description="Content-addressed PNG thumbnail of the query image."
    )
    indexed_thumb: str | None = Field(
        None, description="Content-addressed PNG thumbnail of the indexed copy."
    )

    @property
    def has_provenance(self) -> bool:
        """True when the match says where or when the copy was seen, or how it was captioned."""
        return bool(self.source_url or self.first_seen or self.caption)


class OcrReading(Frozen):
    text: str
    confidence: float


class OcrLine(Frozen):
    """One line of text with its box (x, y, w, h), confidence and engine."""

    text: str
    box: tuple[int, int, int, int]
    confidence: float
    engine: str
    language: str
    readings: dict[str, OcrReading] = Field(
        default_factory=dict, description="What each engine read there."
    )


class OcrText(ObservationBase):
    """Text read in an image or a keyframe."""

    kind: Literal[EvidenceKind.OCR] = EvidenceKind.OCR
    lines: tuple[OcrLine, ...]
    languages: tuple[str, ...]
    frame_time_s: float | None = Field(None, description="The keyframe's time, for videos.")


class TranscriptSegment(Frozen):
    start_s: float
    end_s: float
    text: str
    avg_logprob: float


class Transcript(ObservationBase):
    """Speech recognized in an audio asset or a video's audio track."""

    kind: Literal[EvidenceKind.TRANSCRIPT] = EvidenceKind.TRANSCRIPT
    segments: tuple[TranscriptSegment, ...]
    language: str | None = None
    language_probability: float | None = None
    duration_s: float | None = None
    speech_s: float | None = None


class Keyframe(Frozen):
    number: int
    frame: int
    time_s: float
    scene_start_s: float
    scene_end_s: float
    phash: str
    sha256: str
    artifact: str = Field(description="Path of the saved frame.")
    width: int
    height: int


class Keyframes(ObservationBase):
    """Scene cuts and the keyframes kept of a video."""

    kind: Literal[EvidenceKind.KEYFRAMES] = EvidenceKind.KEYFRAMES
    cuts: tuple[int, ...]
    duration_s: float
    dropped_duplicates: int
    keyframes: tuple[Keyframe, ...]


class ColourShare(Frozen):
    colour: str
    share: float


class VisualFeatures(ObservationBase):
    """Classical visual features of an image or a keyframe."""

    kind: Literal[EvidenceKind.VISUAL] = EvidenceKind.VISUAL
    dominant_colours: tuple[ColourShare, ...]
    brightness: float
    colourfulness: float
    edge_density: float
    sky_share_top: float
    vegetation_share: float
    neutral_share: float
    scene_type: str


class MediaDescription(ObservationBase):
    """The ``describe`` role's structured observation of one asset."""

    kind: Literal[EvidenceKind.DESCRIPTION] = EvidenceKind.DESCRIPTION
    backend: str
    facts: dict[str, JsonValue] = Field(
        default_factory=dict, description="The role's fields (scene type, visible text, ...)."
    )

    def as_data(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "backend": self.backend, **self.facts}


# ---- text evidence -------------------------------------------------------------------------


class RetrievedDocument(ObservationBase):
    """A document found by retrieval: a corpus hit or a web search result."""

    kind: Literal[EvidenceKind.RETRIEVED] = EvidenceKind.RETRIEVED
    _KIND_IN_DATA: ClassVar[bool] = False
    corpus_doc: str | None = Field(None, description="The corpus document id.")
    prior: str = Field(description="The source category its reliability prior came from.")
    search_rank: int | None = Field(None, description="1-based rank in the web results.")


class SuppliedItem(ObservationBase):
    """Evidence supplied with the case or by a reviewer; ``facts`` are what the supplier
    stated beside the text (none for case evidence)."""

    kind: Literal[EvidenceKind.SUPPLIED] = EvidenceKind.SUPPLIED
    facts: dict[str, JsonValue] = Field(default_factory=dict)

    def as_data(self) -> dict[str, Any]:
        return dict(self.facts)


Observation = Annotated[
    Exif
    | FileIntegrity
    | Container
    | ContentCredentials
    | ForensicMap
    | JpegStructure
    | BorderCues
    | ReverseSearchMatch
    | OcrText
    | Transcript
    | Keyframes
    | VisualFeatures
    | MediaDescription
    | RetrievedDocument
    | SuppliedItem,
    Field(discriminator="kind"),
]
"""The tagged union of evidence payloads; ``kind`` selects the model."""

OBSERVATION_ADAPTER: Final[TypeAdapter[Observation]] = TypeAdapter(Observation)

_KINDS: Final = frozenset(k.value for k in EvidenceKind)
_EXIF_KEYS: Final = frozenset(Exif.model_fields) - {"kind"}
_RETRIEVED_KEYS: Final = frozenset(RetrievedDocument.model_fields) - {"kind"}


def observation_from_data(data: object, evidence_id: str = "") -> Observation | None:
    """The typed payload of a schema-v1 ``Evidence.data`` mapping (None when empty).

    The tag is ``data["kind"]``; mappings without one were EXIF (``ev:exif:`` ids, or only EXIF
    keys) or retrieval (``prior``, ``corpus_doc``, ``search_rank``); anything else was stated by
    a supplier or reviewer and becomes a :class:`SuppliedItem` with those facts."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ValueError(f"data must be a mapping of observations, not {type(data).__name__}")
    if not data:
        return None
    keys = frozenset(data)
    kind = data.get("kind")
    if kind is None and (evidence_id.startswith("ev:exif:") or keys <= _EXIF_KEYS):
        kind = EvidenceKind.EXIF.value
    elif kind is None and keys <= _RETRIEVED_KEYS and "prior" in keys:
        kind = EvidenceKind.RETRIEVED.value
    if kind == EvidenceKind.DESCRIPTION.value:
        facts = {k: v for k, v in data.items() if k not in ("kind", "backend")}
        return MediaDescription(backend=str(data.get("backend") or ""), facts=facts)
    if not isinstance(kind, str) or kind not in _KINDS or kind == EvidenceKind.SUPPLIED.value:
        return SuppliedItem(facts=data)
    return OBSERVATION_ADAPTER.validate_python({**data, "kind": kind})
