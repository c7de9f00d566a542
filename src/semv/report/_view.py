"""The report's sections as plain data: what every format (Markdown, HTML, JSON) shows.

One view model, three renderings: the templates and the JSON report read the same values, so
the formats cannot drift apart.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from semv.dimensions import report_order

__all__ = [
    "ArgumentView",
    "ArtifactView",
    "CaseSummary",
    "ClashView",
    "DecisionView",
    "DimensionSection",
    "EvidenceRef",
    "FinalStatus",
    "GlossaryEntry",
    "MediaView",
    "NoteView",
    "ProbabilityView",
    "RelationView",
    "ReportView",
    "ReviewItem",
    "SourceSection",
    "TopArgument",
    "VerdictSummary",
]


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NoteView(_View):
    """An uncertainty note."""

    code: str
    subject: str
    detail: str
    meaning: str | None = None
    """What the code means in plain language (``semv.glossary``)."""


class EvidenceRef(_View):
    """An evidence item as cited or listed; ``found`` is False for an unknown id."""

    id: str
    found: bool
    source: str | None = None
    source_type: str | None = None
    url: str | None = None
    link: str | None = None
    """``url`` when it is safe to link (http or https), else None."""
    title: str | None = None
    published: str | None = None
    reliability: float | None = None
    content: str | None = None
    provenance: str | None = None
    image: str | None = None
    """A relative link to an image next to the report (a forensic map: ``maps/<sha256>.png``)."""
    pair: tuple[str, str] | None = None
    """A reverse-image match's thumbnails side by side: this image, the matched copy
    (``maps/<sha256>.png`` each)."""
    pair_label: str | None = None
    """What the matched copy is (its file name, or its host)."""


class ArgumentView(_View):
    """One argument with the evidence it cites."""

    id: str
    stance: str
    text: str
    strength: float
    verified: bool
    admissible: bool
    origin: str
    uncertainty: tuple[str, ...]
    evidence: tuple[EvidenceRef, ...]
    directness: str = "event"
    """What its evidence bears on: ``media``, ``media-reference`` or ``event``."""


class ClashView(_View):
    """A major factual conflict found by clash resolution."""

    support: str
    attack: str
    support_strength: float
    attack_strength: float
    reduced: dict[str, float]
    judge_win_rate: float | None = None
    """The judge's win rate of the support over the attack (1 = support, 0 = attack)."""
    judge_winner: str | None = None
    """``support``, ``attack`` or ``neither`` (a rate of exactly 0.5), from the rate."""
    judge_reason: str = ""


class RelationView(_View):
    """An argument-to-argument relation of the subclaim's A-QBAF (A-QBAF MV2026 §2.5) and what
    propagating it did to the strengths of its two arguments (w_a → σ(a))."""

    id: str
    kind: str
    """``cue-conflict``, ``metadata-contradiction`` or ``corroboration``."""
    polarity: str
    """``attacks`` or ``supports``."""
    mutual: bool
    """The relation holds both ways (cue conflict, corroboration)."""
    src: str
    dst: str
    fact: str
    evidence: tuple[str, ...]
    src_weight: float | None = None
    src_strength: float | None = None
    dst_weight: float | None = None
    dst_strength: float | None = None


class DimensionSection(_View):
    """A report section built around one subclaim (where, when, who, why, forensic, other)."""

    key: str
    title: str
    dimension: str
    subclaim_id: str | None
    statement: str | None
    asserted: bool | None
    score: float | None
    band: str | None
    support_total: float | None
    attack_total: float | None
    support: tuple[ArgumentView, ...]
    attack: tuple[ArgumentView, ...]
    unshown_arguments: int
    """Arguments of the subclaim beyond the top support/attack lists (or mixed/neutral)."""
    clash: ClashView | None
    notes: tuple[NoteView, ...]
    evidence_title: str | None = None
    evidence: tuple[EvidenceRef, ...] = ()
    """Extra evidence of the section (metadata for forensics, uncited items for other)."""
    relations: tuple[RelationView, ...] = ()
    """The subclaim's argument-to-argument relations (none in a star graph)."""


class ArtifactView(_View):
    """A file derived from a media asset (a keyframe PNG)."""

    label: str
    path: str


class MediaView(_View):
    """One media file of the case."""

    id: str
    kind: str
    role: str
    file: str
    sha256: str | None
    loaded: bool
    evidence: tuple[EvidenceRef, ...] = ()
    """What the media stage extracted from the file, each item with its provenance."""
    artifacts: tuple[ArtifactView, ...] = ()
    """Files derived from the media (keyframe PNGs), content-addressed."""
    notes: tuple[NoteView, ...] = ()
    """What could not be extracted from the file, and why."""


class CaseSummary(_View):
    """Claim, media and claimed context."""

    id: str
    claim: str
    adapter: str
    media: tuple[MediaView, ...]
    date: str | None
    location: str | None
    source_url: str | None
    source_link: str | None
    language: str | None


class SourceSection(_View):
    """Where the claim comes from and the evidence supplied with it."""

    source_url: str | None
    source_link: str | None
    supplied: tuple[EvidenceRef, ...]


class ProbabilityView(_View):
    label: str
    probability: float
    calibrated: float | None = None
    """The calibrated probability of this label beside Eq. 20's (``FinalStatus.calibration``)."""


class DecisionView(_View):
    dimension: str
    subclaim: str
    score: float
    band: str
    clash: bool
    statement: str | None = None


class FinalStatus(_View):
    """The verdict: label, confidence, aggregation rule, probabilities, case-level notes."""

    label: str
    internal_label: str
    confidence: float
    rule: str
    mean_score: float
    probabilities: tuple[ProbabilityView, ...]
    decisions: tuple[DecisionView, ...]
    notes: tuple[NoteView, ...]
    calibration: str | None = None
    """The id of the calibration behind ``ProbabilityView.calibrated`` (None: no calibration)."""


class TopArgument(_View):
    """One of the strongest arguments of the whole case, with the subclaim it bears on."""

    dimension: str
    section: str
    """The key of the report section that lists it in full."""
    argument: ArgumentView


class ReviewItem(_View):
    """What needs a person's review: one uncertainty code with every subject it concerns."""

    code: str
    meaning: str | None
    subjects: tuple[str, ...]
    details: tuple[str, ...]


class VerdictSummary(_View):
    """The first screen of a report: the verdict, why, the strongest arguments on each side
    and what needs review."""

    label: str
    confidence: float
    label_meaning: str | None
    opening: str | None = None
    """What the procedure decided and what it does not look at, in one sentence
    (``semv._procedure_names.opening_sentence``); None in a report written before it."""
    shown: float = 0.0
    """The number shown next to the label: the calibrated probability of the label when the
    verdict has one, else the confidence γ of Eq. 19."""
    shown_kind: str = "uncalibrated score"
    """What ``shown`` is: ``calibrated probability`` or ``uncalibrated score``."""
    reason: str
    """One sentence: which aggregation rule fired and what it says."""
    rule_number: int | None
    """The aggregation rule (1-7 of ``semv.reasoning.aggregate``); None for another procedure."""
    deciding: tuple[DecisionView, ...]
    """The subclaims whose bands decided the rule."""
    for_claim: tuple[TopArgument, ...]
    against_claim: tuple[TopArgument, ...]
    review: tuple[ReviewItem, ...]


class GlossaryEntry(_View):
    """A term the report uses and its plain-language meaning (``semv.glossary``)."""

    term: str
    meaning: str


class ReportView(_View):
    """The whole report, sections in MV2026 order.

    The six MV2026 dimension sections are fields; a dimension registered beyond them adds its
    section under its ``ReportSection.key`` (an extra field, validated as a section)."""

    model_config = ConfigDict(extra="allow", frozen=True)
    __pydantic_extra__: dict[str, DimensionSection] = Field(init=False)

    summary: VerdictSummary | None = None
    """None only in a report written before the verdict-first layout."""
    case_summary: CaseSummary
    source: SourceSection
    where: DimensionSection
    when: DimensionSection
    who: DimensionSection
    why: DimensionSection
    forensic_analysis: DimensionSection
    other_evidence: DimensionSection
    final_status: FinalStatus
    glossary: tuple[GlossaryEntry, ...] = ()

    def dimension_sections(self) -> tuple[DimensionSection, ...]:
        """The dimension sections in report order (``semv.dimensions.report_order``)."""
        sections: list[DimensionSection] = []
        for spec in report_order():
            section = getattr(self, spec.section.key)
            if not isinstance(section, DimensionSection):
                raise TypeError(f"report section {spec.section.key!r} is {type(section).__name__}")
            sections.append(section)
        return tuple(sections)
