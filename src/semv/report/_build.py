"""Building the report view (``ReportView``) from a ``ReportContext``: pure and deterministic."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePath
from typing import Final

from semv._procedure_names import DEFAULT_PROCEDURE, opening_sentence
from semv.dimensions import DimensionSpec, SectionEvidence, report_order
from semv.glossary import explain, terms
from semv.model import (
    Argument,
    Band,
    ClashRecord,
    Dimension,
    Evidence,
    ForensicMap,
    Keyframes,
    Modality,
    ProducerKind,
    Provenance,
    Qbaf,
    Relation,
    ReverseSearchMatch,
    SourceType,
    Stance,
    SubclaimDecision,
    SuppliedEvidence,
    UncertaintyItem,
    Verdict,
)
from semv.public_url import publishable_url
from semv.reasoning import deciding_dimensions
from semv.report._context import ReportContext
from semv.report._view import (
    ArgumentView,
    ArtifactView,
    CaseSummary,
    ClashView,
    DecisionView,
    DimensionSection,
    EvidenceRef,
    FinalStatus,
    GlossaryEntry,
    MediaView,
    NoteView,
    ProbabilityView,
    RelationView,
    ReportView,
    ReviewItem,
    SourceSection,
    TopArgument,
    VerdictSummary,
)

__all__ = [
    "TOP_ARGUMENTS",
    "build_view",
    "case_relative",
    "data_relative",
    "provenance_line",
    "safe_link",
]

TOP_ARGUMENTS: Final = 3
"""Support and attack arguments shown per section."""

_EXCERPT_CHARS: Final = 280
_DIMENSION_VALUES: Final = frozenset(d.value for d in Dimension)
_REPORT_TERMS: Final = (
    "confidence",
    "aggregation rule",
    "subclaim",
    "asserted",
    "ψ (score)",
    "ψ̄ (mean score)",
    "strength (w)",
    "directness",
    "support / attack total (S, A)",
    "reliability (r)",
    "verified / not verified",
    "provenance",
    "SHA-256",
)
"""Terms every MV2026 report shows (their glossary entries go into its footer)."""
_SUPPLIED_TYPES: Final = frozenset({SourceType.SUPPLIED, SourceType.PRIOR_CAPTION})
_SUPPLIED_PRODUCERS: Final = frozenset({ProducerKind.USER, ProducerKind.DATASET})
_FORENSIC_TYPES: Final = frozenset({SourceType.METADATA, SourceType.FORENSIC})


def build_view(ctx: ReportContext) -> ReportView:
    """All sections of the report for ``ctx``."""
    builder = _Builder(ctx)
    case_summary = builder.case_summary()
    source = builder.source()
    sections = {spec.section.key: builder.section(spec) for spec in report_order()}
    final_status = builder.final_status()
    return ReportView.model_validate(
        {
            "summary": builder.summary(),
            "case_summary": case_summary,
            "source": source,
            **sections,
            "final_status": final_status,
            "glossary": builder.glossary(final_status),
        }
    )


def safe_link(url: str | None) -> str | None:
    """``url`` if it is an absolute http(s) URL to a public host (safe to put in an
    ``href``, ``semv.links``), else None: the text stays, only the link goes."""
    if not url:
        return None
    return url.strip() if publishable_url(url) else None


class _Builder:
    """Indexes of the context shared by the section builders."""

    def __init__(self, ctx: ReportContext) -> None:
        self.ctx = ctx
        self.evidence = {item.id: item for item in ctx.evidence}
        self.notes = _unique((*ctx.uncertainty, *ctx.verdict.uncertainty))
        self.shown_notes: set[UncertaintyItem] = set()
        self.cited = {
            evidence_id
            for arguments in ctx.arguments.values()
            for argument in arguments
            for evidence_id in argument.evidence
        }
        self.forensic_ids = [item.id for item in ctx.evidence if _is_forensic(item)]

    # ---- sections ------------------------------------------------------------------------

    def case_summary(self) -> CaseSummary:
        case = self.ctx.case
        return CaseSummary(
            id=case.id,
            claim=case.claim,
            adapter=case.adapter,
            media=tuple(
                MediaView(
                    id=asset.id,
                    kind=asset.kind.value,
                    role=asset.role,
                    file=PurePath(asset.path).name,
                    sha256=asset.sha256,
                    loaded=asset.loaded,
                    evidence=tuple(self.ref(item.id) for item in self.media_items(asset.id)),
                    artifacts=self.artifacts(asset.id),
                    notes=tuple(
                        _note(note) for note in self.ctx.uncertainty if note.subject == asset.id
                    ),
                )
                for asset in case.media
            ),
            date=case.context.date,
            location=case.context.location,
            source_url=case.context.source_url,
            source_link=safe_link(case.context.source_url),
            language=case.context.language,
        )

    def media_items(self, asset_id: str) -> list[Evidence]:
        """Evidence the media stage derived from ``asset_id`` (not supplied texts about it)."""
        return [
            item
            for item in self.ctx.evidence
            if item.location is not None
            and item.location.asset_id == asset_id
            and not _is_supplied(item)
        ]

    def artifacts(self, asset_id: str) -> tuple[ArtifactView, ...]:
        """Keyframe PNGs recorded by the asset's keyframe evidence."""
        out: list[ArtifactView] = []
        for item in self.media_items(asset_id):
            frames = item.observed(Keyframes)
            for frame in frames.keyframes if frames is not None else ():
                out.append(
                    ArtifactView(
                        label=f"keyframe {frame.number} at {frame.time_s:.2f} s",
                        path=data_relative(frame.artifact),
                    )
                )
        return tuple(out)

    def source(self) -> SourceSection:
        supplied = tuple(self.ref(item.id) for item in self.ctx.evidence if _is_supplied(item))
        if not supplied:
            supplied = tuple(
                _supplied_ref(index, item) for index, item in enumerate(self.ctx.case.evidence)
            )
        url = self.ctx.case.context.source_url
        return SourceSection(source_url=url, source_link=safe_link(url), supplied=supplied)

    def dimension(
        self,
        key: str,
        title: str,
        dimension: Dimension,
        *,
        extra_subjects: Iterable[str] = (),
        evidence_title: str | None = None,
        evidence: tuple[EvidenceRef, ...] = (),
    ) -> DimensionSection:
        subclaim = self.ctx.subclaims.get(dimension.value)
        subclaim_id = subclaim.id if subclaim is not None else f"claim:{dimension.value}"
        arguments = self.ctx.arguments.get(dimension.value, ())
        qbaf = self.ctx.qbafs.get(dimension.value)
        decision = next((d for d in self.ctx.verdict.decisions if d.dimension is dimension), None)
        support = _top(arguments, Stance.SUPPORT)
        attack = _top(arguments, Stance.ATTACK)
        subjects = {subclaim_id, *(a.id for a in arguments), *extra_subjects}
        notes = [note for note in self.notes if note.subject in subjects]
        self.shown_notes.update(notes)
        score = qbaf.score if qbaf is not None else decision.score if decision else None
        return DimensionSection(
            key=key,
            title=title,
            dimension=dimension.value,
            subclaim_id=subclaim.id if subclaim is not None else None,
            statement=subclaim.statement if subclaim is not None else None,
            asserted=subclaim.asserted if subclaim is not None else None,
            score=score,
            band=decision.band.value if decision is not None else None,
            support_total=qbaf.support_total if qbaf is not None else None,
            attack_total=qbaf.attack_total if qbaf is not None else None,
            support=tuple(self.argument(a) for a in support),
            attack=tuple(self.argument(a) for a in attack),
            unshown_arguments=len(arguments) - len(support) - len(attack),
            clash=_clash(qbaf.clash) if qbaf is not None and qbaf.clash is not None else None,
            notes=tuple(_note(note) for note in notes),
            evidence_title=evidence_title,
            evidence=evidence,
            relations=tuple(
                _relation(r, qbaf) for r in self.ctx.relations.get(dimension.value, ())
            ),
        )

    def section(self, spec: DimensionSpec) -> DimensionSection:
        """The section of one dimension, with the evidence its ``ReportSection`` lists."""
        shown = spec.section
        extra_subjects: list[str] = []
        evidence: tuple[EvidenceRef, ...] = ()
        if shown.evidence is SectionEvidence.INTEGRITY:
            extra_subjects = [asset.id for asset in self.ctx.case.media]
            evidence = tuple(self.ref(evidence_id) for evidence_id in self.forensic_ids)
        elif shown.evidence is SectionEvidence.UNCITED:
            forensic = set(self.forensic_ids)
            evidence = tuple(
                self.ref(item.id)
                for item in self.ctx.evidence
                if item.id not in self.cited and item.id not in forensic
            )
        return self.dimension(
            shown.key,
            shown.title,
            spec.dimension,
            extra_subjects=extra_subjects,
            evidence_title=shown.evidence_title,
            evidence=evidence,
        )

    def final_status(self) -> FinalStatus:
        verdict = self.ctx.verdict
        case_level = set(verdict.uncertainty)
        notes = [n for n in self.notes if n in case_level or n not in self.shown_notes]
        return FinalStatus(
            label=verdict.label,
            internal_label=verdict.internal_label.value,
            confidence=verdict.confidence,
            rule=verdict.rule,
            mean_score=verdict.mean_score,
            probabilities=tuple(
                ProbabilityView(label=label, probability=p, calibrated=_calibrated(verdict, label))
                for label, p in sorted(verdict.probabilities.items(), key=lambda i: (-i[1], i[0]))
            ),
            decisions=tuple(self.decision(d) for d in verdict.decisions),
            notes=tuple(_note(note) for note in notes),
            calibration=verdict.calibrated.calibration if verdict.calibrated else None,
        )

    def summary(self) -> VerdictSummary:
        """The verdict first: label, confidence, the rule and the subclaims that decided it,
        the strongest arguments on each side, what needs review."""
        verdict = self.ctx.verdict
        number = verdict.aggregation_rule.number if verdict.aggregation_rule else None
        asserted = {
            Dimension(key): subclaim.asserted
            for key, subclaim in self.ctx.subclaims.items()
            if key in _DIMENSION_VALUES
        }
        deciding = (
            deciding_dimensions(number, verdict.decisions, asserted, self.unargued())
            if number is not None
            else ()
        )
        by_dimension = {d.dimension: d for d in verdict.decisions}
        p_label = _calibrated(verdict, verdict.label)
        shown = verdict.confidence if p_label is None else p_label
        kind = "uncalibrated score" if p_label is None else "calibrated probability"
        return VerdictSummary(
            label=verdict.label,
            confidence=verdict.confidence,
            shown=shown,
            shown_kind=kind,
            label_meaning=explain(verdict.label),
            opening=opening_sentence(DEFAULT_PROCEDURE, verdict.label, shown, kind),
            reason=_reason(verdict),
            rule_number=number,
            deciding=tuple(self.decision(by_dimension[d]) for d in deciding),
            for_claim=self.strongest(Stance.SUPPORT),
            against_claim=self.strongest(Stance.ATTACK),
            review=_review(self.notes),
        )

    def unargued(self) -> set[Dimension]:
        """Uncertain subclaims that no admissible support or attack speaks to (neutral only
        for lack of evidence; rule 3 does not count them)."""
        return {
            d.dimension
            for d in self.ctx.verdict.decisions
            if d.band is Band.UNCERTAIN
            and not any(
                a.stance in (Stance.SUPPORT, Stance.ATTACK) and a.admissible
                for a in self.ctx.arguments.get(d.dimension.value, ())
            )
        }

    def strongest(self, stance: Stance) -> tuple[TopArgument, ...]:
        """The ``TOP_ARGUMENTS`` strongest admissible arguments of ``stance`` over every
        subclaim (by intrinsic strength w, Eq. 14; ties by id)."""
        sections = {spec.dimension.value: spec.section.key for spec in report_order()}
        pool = [
            (dimension, argument)
            for dimension, arguments in self.ctx.arguments.items()
            for argument in arguments
            if argument.stance is stance and argument.admissible
        ]
        pool.sort(key=lambda item: (-item[1].strength, item[1].id))
        return tuple(
            TopArgument(
                dimension=dimension,
                section=sections.get(dimension, dimension),
                argument=self.argument(argument),
            )
            for dimension, argument in pool[:TOP_ARGUMENTS]
        )

    def decision(self, decision: SubclaimDecision) -> DecisionView:
        subclaim = self.ctx.subclaims.get(decision.dimension.value)
        return DecisionView(
            dimension=decision.dimension.value,
            subclaim=decision.subclaim,
            score=decision.score,
            band=decision.band.value,
            clash=decision.clash,
            statement=subclaim.statement if subclaim is not None else None,
        )

    def glossary(self, final: FinalStatus) -> tuple[GlossaryEntry, ...]:
        """The glossary entries of the terms this report shows."""
        keys = {final.label, final.internal_label, *(d.band for d in final.decisions)}
        keys.update(d.dimension for d in final.decisions)
        keys.update(note.code for note in self.notes)
        keys.update(_REPORT_TERMS)
        if any(d.clash for d in final.decisions):
            keys.add("clash")
        if any(item.observed(ForensicMap) is not None for item in self.ctx.evidence):
            keys.add("forensic map")
        kinds = {r.kind.value for rs in self.ctx.relations.values() for r in rs}
        if kinds:
            keys.update({*kinds, "σ (final strength)"})
        return tuple(GlossaryEntry(term=t.term, meaning=t.meaning) for t in terms(keys))

    # ---- pieces --------------------------------------------------------------------------

    def argument(self, argument: Argument) -> ArgumentView:
        return ArgumentView(
            id=argument.id,
            stance=argument.stance.value,
            text=argument.text,
            strength=argument.strength,
            verified=argument.verified,
            admissible=argument.admissible,
            origin=f"{argument.origin.kind}: {argument.origin.name}",
            uncertainty=tuple(code.value for code in argument.uncertainty),
            evidence=tuple(self.ref(evidence_id) for evidence_id in argument.evidence),
            directness=argument.directness.value,
        )

    def ref(self, evidence_id: str) -> EvidenceRef:
        item = self.evidence.get(evidence_id)
        if item is None:
            return EvidenceRef(id=evidence_id, found=False)
        url = item.url or (item.provenance.url if item.provenance is not None else None)
        return EvidenceRef(
            id=item.id,
            found=True,
            source=item.source,
            source_type=item.source_type.value,
            url=url,
            link=safe_link(url),
            title=item.title,
            published=item.published,
            reliability=item.reliability,
            content=_excerpt(item.content),
            provenance=case_relative(provenance_line(item.provenance), self.ctx.case.source_path),
            image=_map_link(item),
            pair=_pair_links(item),
            pair_label=_pair_label(item),
        )


_MAP_NAME: Final = re.compile(r"^[0-9a-f]{64}\.png$")


def _map_link(item: Evidence) -> str | None:
    """``maps/<sha256>.png`` for an item with a content-addressed map (copied next to the
    report by the pipeline); anything else is not linked."""
    scored = item.observed(ForensicMap)
    name = scored.map_png if scored is not None else None
    return f"maps/{name}" if name is not None and _MAP_NAME.match(name) else None


def _pair_links(item: Evidence) -> tuple[str, str] | None:
    """``(maps/<query>.png, maps/<copy>.png)`` for a reverse-image match with both thumbnails."""
    match = item.observed(ReverseSearchMatch)
    if match is None or match.query_thumb is None or match.indexed_thumb is None:
        return None
    names = (match.query_thumb, match.indexed_thumb)
    if not all(_MAP_NAME.match(name) for name in names):
        return None
    return f"maps/{names[0]}", f"maps/{names[1]}"


def _pair_label(item: Evidence) -> str | None:
    match = item.observed(ReverseSearchMatch)
    if match is None or match.indexed_path is None:
        return None
    name = match.indexed_path.replace("\\", "/").rsplit("/", 1)[-1]
    return name if match.has_provenance else f"{name} (no provenance)"


def _top(arguments: tuple[Argument, ...], stance: Stance) -> list[Argument]:
    chosen = [a for a in arguments if a.stance is stance]
    return sorted(chosen, key=lambda a: (-a.strength, a.id))[:TOP_ARGUMENTS]


def _unique(items: Iterable[UncertaintyItem]) -> list[UncertaintyItem]:
    seen: set[UncertaintyItem] = set()
    out = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _is_supplied(item: Evidence) -> bool:
    if item.source_type in _SUPPLIED_TYPES:
        return True
    return item.provenance is not None and item.provenance.producer in _SUPPLIED_PRODUCERS


def _is_forensic(item: Evidence) -> bool:
    return item.source_type in _FORENSIC_TYPES or item.modality is Modality.METADATA


def _supplied_ref(index: int, item: SuppliedEvidence) -> EvidenceRef:
    return EvidenceRef(
        id=item.id or f"supplied:{index + 1}",
        found=True,
        source=item.publisher,
        source_type=item.source_type.value,
        url=item.url,
        link=safe_link(item.url),
        title=item.title,
        published=item.published,
        reliability=item.reliability,
        content=_excerpt(item.text),
        provenance="supplied with the case",
    )


def case_relative(text: str | None, case_folder: str | None) -> str | None:
    """``text`` with the case folder's absolute path written relative to it: a report names
    files as the case names them, never where they sit on this machine."""
    if text is None or not case_folder:
        return text
    root = case_folder.rstrip("/")
    return text.replace(root + "/", "").replace(root, "case folder")


def provenance_line(provenance: Provenance | None) -> str | None:
    """One line naming who produced an item, with which tool and method, from what."""
    if provenance is None:
        return None
    text = f"{provenance.producer.value}: {provenance.agent}"
    if provenance.tool_version:
        text += f" {provenance.tool_version}"
    if provenance.method:
        text += f"; {provenance.method}"
    if provenance.derived_from:
        text += f"; from {', '.join(provenance.derived_from)}"
    return text


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    if len(flat) <= _EXCERPT_CHARS:
        return flat
    return flat[: _EXCERPT_CHARS - 1].rstrip() + "…"


def _calibrated(verdict: Verdict, label: str) -> float | None:
    """The calibrated probability of ``label`` (the calibrated class, or its complement in a
    binary contract); None without a calibration."""
    cal = verdict.calibrated
    if cal is None:
        return None
    if label == cal.label:
        return cal.probability
    return 1.0 - cal.probability if len(verdict.probabilities) == 2 else None


def _note(item: UncertaintyItem) -> NoteView:
    return NoteView(
        code=item.code.value,
        subject=item.subject,
        detail=item.detail,
        meaning=explain(item.code.value),
    )


def _reason(verdict: Verdict) -> str:
    """The sentence of the rule that decided ``verdict``, capitalized: semv's aggregation
    rule without its number, another procedure's rule as it wrote it."""
    fired = verdict.aggregation_rule
    text = fired.sentence if fired is not None else verdict.rule.strip()
    return text[:1].upper() + text[1:]


def _review(notes: Iterable[UncertaintyItem]) -> tuple[ReviewItem, ...]:
    """Every uncertainty item of the case, one entry per code (first-seen order), with the
    subjects and details it was raised for."""
    grouped: dict[str, list[UncertaintyItem]] = {}
    for note in notes:
        grouped.setdefault(note.code.value, []).append(note)
    return tuple(
        ReviewItem(
            code=code,
            meaning=explain(code),
            subjects=tuple(dict.fromkeys(item.subject for item in items)),
            details=tuple(dict.fromkeys(item.detail for item in items if item.detail)),
        )
        for code, items in grouped.items()
    )


def data_relative(path: str) -> str:
    """An artifact path as the data directory names it (``artifacts/ab/<sha256>.png``), never
    where the data directory sits on this machine; the file name alone when it is not under
    an ``artifacts`` folder."""
    parts = PurePath(path).parts
    if "artifacts" in parts:
        start = len(parts) - 1 - parts[::-1].index("artifacts")
        return str(PurePath(*parts[start:]))
    return PurePath(path).name


def _relation(relation: Relation, qbaf: Qbaf | None) -> RelationView:
    """A relation with the weights w_a and the propagated strengths σ(a) of its arguments."""
    weights = qbaf.arguments if qbaf is not None else {}
    strengths = qbaf.strengths if qbaf is not None else {}
    return RelationView(
        id=relation.id,
        kind=relation.kind.value,
        polarity="supports" if relation.stance is Stance.SUPPORT else "attacks",
        mutual=relation.mutual,
        src=relation.src,
        dst=relation.dst,
        fact=relation.fact,
        evidence=relation.evidence,
        src_weight=weights.get(relation.src),
        src_strength=strengths.get(relation.src),
        dst_weight=weights.get(relation.dst),
        dst_strength=strengths.get(relation.dst),
    )


def _clash(record: ClashRecord) -> ClashView:
    return ClashView(
        support=record.support,
        attack=record.attack,
        support_strength=record.support_strength,
        attack_strength=record.attack_strength,
        reduced=dict(sorted(record.reduced.items())),
        judge_win_rate=record.judge_win_rate,
        judge_winner=_winner(record.judge_win_rate),
        judge_reason=record.judge_reason,
    )


def _winner(rate: float | None) -> str | None:
    """The side a clash judge's support win rate favours (the report names it)."""
    if rate is None:
        return None
    return "support" if rate > 0.5 else "attack" if rate < 0.5 else "neither"
