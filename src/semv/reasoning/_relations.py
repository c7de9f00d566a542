"""Sparse argument-to-argument relations of a subclaim's A-QBAF (A-QBAF MV2026 §2.5) and their
propagation with the general QBAF semantics.

The paper keeps 𝒢_k = ⟨X_k, R⁻_k, R⁺_k, τ_k⟩ sparse: besides the argument-to-claim edges of the
star (SEMV Eq. 15), only three relations between arguments are added, each decided here from the
typed observations (``semv.model._observation``) and typed facts (``Argument.facts``) the two
arguments rest on — never from their prose:

* **cue conflict** (attack, mutual): a support and an attack of the subclaim both cite the same
  visual cue — an item whose observation reads the pixels (forensic map, JPEG structure, border
  bands, visual features, a media description, OCR, keyframes) — and read it in opposite ways;
* **metadata contradiction** (attack, metadata → argument): an argument resting only on camera
  or container metadata whose capture time or GPS position contradicts every date or every place
  another argument reports (``capture_agreement`` with ``offline.time_tolerance_days``; GPS
  beyond ``offline.place_tolerance_km`` of a reported city, or outside a reported country or
  region);
* **corroboration** (support, mutual): two arguments of the same stance whose cited items are all
  trusted text sources (reliability ≥ ``relations.trusted_reliability``) with no publisher,
  web host or item in common, reporting the same fact (the same date at the same precision, the
  same place, or the same quantity).

:func:`propagate` solves the resulting graph with the quadratic-energy semantics of A-QBAF
MV2026 §2.6.1 (``σ(x) = τ(x) + (1 − τ(x))·h(E(x)) − τ(x)·h(−E(x))``, ``E`` the sum of the
supporters' minus the attackers' strengths), acyclic graphs by one forward pass and graphs with a
mutual relation by the RK4 integration of ``semv.reasoning.Qbaf``. Without relations every
argument keeps σ(a) = w_a and the claim's score is exactly Eq. 16-17.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol
from urllib.parse import urlsplit

from semv.model import (
    Argument,
    Container,
    DateFact,
    Evidence,
    EvidenceKind,
    Exif,
    Modality,
    PlaceFact,
    QbafEdge,
    Relation,
    RelationKind,
    SourceType,
    Stance,
)
from semv.reasoning._params import RelationsParams
from semv.reasoning._qbaf import Qbaf

__all__ = ["VISUAL_CUE_KINDS", "CaptureFacts", "Propagated", "build_relations", "propagate"]

VISUAL_CUE_KINDS: Final = frozenset(
    {
        EvidenceKind.FORENSIC_MAP,
        EvidenceKind.FORENSIC_COMBINED,
        EvidenceKind.JPEG_STRUCTURE,
        EvidenceKind.BORDER_CUES,
        EvidenceKind.VISUAL,
        EvidenceKind.DESCRIPTION,
        EvidenceKind.OCR,
        EvidenceKind.KEYFRAMES,
    }
)
"""Observations read from the pixels of the case's own media: the visual cues of §2.5."""

_METADATA_KINDS: Final = frozenset({EvidenceKind.EXIF, EvidenceKind.CONTAINER})
_TEXT_KINDS: Final = frozenset({None, EvidenceKind.RETRIEVED, EvidenceKind.SUPPLIED})
_NOT_SOURCES: Final = frozenset({SourceType.METADATA, SourceType.FORENSIC})
_BIPOLAR: Final = (Stance.SUPPORT, Stance.ATTACK)
_ISO6709: Final = re.compile(r"^([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)")


# ---- what the metadata says -----------------------------------------------------------------


class CaptureFacts(Protocol):
    """How a capture timestamp or GPS point compares with a reported date or place: the
    language layer's dates and gazetteer with the offline tolerances (``semv.nlp.capture``'s
    ``CaptureChecks``), passed in by the caller."""

    def capture_day(self, timestamp: str) -> str | None:
        """The ISO day of a capture timestamp; None without a day."""
        ...

    def date_contradicted(self, reported: Sequence[DateFact], timestamp: str) -> DateFact | None:
        """The first reported date when none agrees with the capture date (and one is
        comparable), else None."""
        ...

    def place_contradicted(self, fact: PlaceFact, lat: float, lon: float) -> bool | None:
        """Whether a GPS point contradicts a reported place; None when undecidable."""
        ...


@dataclass(frozen=True)
class _Metadata:
    """Capture dates (timestamp, ISO day) and GPS positions of one metadata argument's cited
    items."""

    ids: tuple[str, ...]
    dates: tuple[tuple[str, str], ...]
    points: tuple[tuple[str, float, float], ...]


def _metadata(
    arg: Argument, evidence: Mapping[str, Evidence], facts: CaptureFacts
) -> _Metadata | None:
    """What ``arg`` reads from metadata, when every item it cites is camera or container
    metadata; None otherwise."""
    cited = [evidence[i] for i in arg.evidence if i in evidence]
    if not cited or any(e.kind not in _METADATA_KINDS for e in cited):
        return None
    dates: list[tuple[str, str]] = []
    points: list[tuple[str, float, float]] = []
    for item in cited:
        exif, box = item.observed(Exif), item.observed(Container)
        stamp = exif.capture_time if exif else box.creation_time if box else None
        day = facts.capture_day(stamp) if stamp else None
        if stamp and day is not None:
            dates.append((stamp, day))
        if exif is not None and exif.latitude is not None and exif.longitude is not None:
            points.append((item.id, float(exif.latitude), float(exif.longitude)))
        elif box is not None and box.location_iso6709:
            m = _ISO6709.match(box.location_iso6709.strip())
            if m:
                points.append((item.id, float(m.group(1)), float(m.group(2))))
    if not dates and not points:
        return None
    return _Metadata(ids=tuple(e.id for e in cited), dates=tuple(dates), points=tuple(points))


def _places_contradicted(
    reported: Sequence[PlaceFact], lat: float, lon: float, facts: CaptureFacts
) -> PlaceFact | None:
    """The first reported place when every decidable one is contradicted by the point (and at
    least one is decidable), else None."""
    verdicts = [(p, facts.place_contradicted(p, lat, lon)) for p in reported]
    decided = [(p, v) for p, v in verdicts if v is not None]
    if not decided or not all(v for _, v in decided):
        return None
    return decided[0][0]


# ---- what a trusted source says -------------------------------------------------------------


def _host(url: str | None) -> str | None:
    if not url:
        return None
    host = (urlsplit(url).hostname or "").lower().removeprefix("www.")
    return host or None


@dataclass(frozen=True)
class _Sources:
    publishers: frozenset[str]
    hosts: frozenset[str]
    items: frozenset[str]


def _trusted(arg: Argument, evidence: Mapping[str, Evidence], floor: float) -> _Sources | None:
    """The sources of ``arg`` when every item it cites is a trusted text source."""
    cited = [evidence[i] for i in arg.evidence if i in evidence]
    if not cited:
        return None
    for item in cited:
        if item.kind not in _TEXT_KINDS or item.source_type in _NOT_SOURCES:
            return None
        if item.modality is Modality.METADATA or item.reliability < floor:
            return None
    hosts = {_host(e.url) or _host(e.provenance.url if e.provenance else None) for e in cited}
    return _Sources(
        publishers=frozenset(e.source.strip().casefold() for e in cited),
        hosts=frozenset(h for h in hosts if h),
        items=frozenset(e.id for e in cited),
    )


def _independent(a: _Sources, b: _Sources) -> bool:
    return not (a.publishers & b.publishers or a.hosts & b.hosts or a.items & b.items)


def _place_key(fact: PlaceFact) -> str:
    return (fact.label or fact.text).strip().casefold()


def _shared_fact(a: Argument, b: Argument) -> str | None:
    """The first fact both arguments report, in words; None when they share none."""
    dates = {(d.iso, d.precision) for d in b.facts.dates}
    for d in a.facts.dates:
        if (d.iso, d.precision) in dates:
            return f"date {d.iso}"
    places = {_place_key(p) for p in b.facts.places}
    for p in a.facts.places:
        if _place_key(p) in places:
            return f"place {p.label or p.text}"
    values = {q.value for q in b.facts.quantities}
    for q in a.facts.quantities:
        if q.value in values:
            return f"quantity {q.text}"
    return None


# ---- the three relations --------------------------------------------------------------------


@dataclass(frozen=True)
class _Found:
    kind: RelationKind
    src: str
    dst: str
    evidence: tuple[str, ...]
    fact: str


def _cue_conflicts(args: Sequence[Argument], evidence: Mapping[str, Evidence]) -> list[_Found]:
    found: list[_Found] = []
    for i, a in enumerate(args):
        for b in args[i + 1 :]:
            if {a.stance, b.stance} != set(_BIPOLAR):
                continue
            shared = [
                e
                for e in a.evidence
                if e in b.evidence and e in evidence and evidence[e].kind in VISUAL_CUE_KINDS
            ]
            if shared:
                kinds = ", ".join(dict.fromkeys(str(evidence[e].kind) for e in shared))
                found.append(
                    _Found(
                        RelationKind.CUE_CONFLICT,
                        a.id,
                        b.id,
                        tuple(shared),
                        f"opposite readings of the same {kinds} cue",
                    )
                )
    return found


def _metadata_contradictions(
    args: Sequence[Argument], evidence: Mapping[str, Evidence], facts: CaptureFacts
) -> list[_Found]:
    found: list[_Found] = []
    metadata = {a.id: _metadata(a, evidence, facts) for a in args}
    for m in args:
        meta = metadata[m.id]
        if meta is None:
            continue
        for target in args:
            if target.id == m.id or metadata[target.id] is not None:
                continue
            found_facts: list[str] = []
            for stamp, day in meta.dates:
                date = facts.date_contradicted(target.facts.dates, stamp)
                if date is not None:
                    found_facts.append(f"capture date {day} contradicts the reported {date.iso}")
                    break
            for _, lat, lon in meta.points:
                place = _places_contradicted(target.facts.places, lat, lon, facts)
                if place is not None:
                    found_facts.append(
                        f"GPS {lat:.4f}, {lon:.4f} contradicts the reported "
                        f"{place.label or place.text}"
                    )
                    break
            if found_facts:
                found.append(
                    _Found(
                        RelationKind.METADATA_CONTRADICTION,
                        m.id,
                        target.id,
                        meta.ids,
                        "; ".join(found_facts),
                    )
                )
    return found


def _corroborations(
    args: Sequence[Argument], evidence: Mapping[str, Evidence], floor: float
) -> list[_Found]:
    found: list[_Found] = []
    sources = {a.id: _trusted(a, evidence, floor) for a in args}
    for i, a in enumerate(args):
        sa = sources[a.id]
        if sa is None:
            continue
        for b in args[i + 1 :]:
            sb = sources[b.id]
            if sb is None or a.stance is not b.stance or not _independent(sa, sb):
                continue
            fact = _shared_fact(a, b)
            if fact is not None:
                found.append(
                    _Found(
                        RelationKind.CORROBORATION,
                        a.id,
                        b.id,
                        (*a.evidence, *b.evidence),
                        f"independent trusted sources confirm the {fact}",
                    )
                )
    return found


def build_relations(
    subclaim: str,
    arguments: Sequence[Argument],
    evidence: Iterable[Evidence],
    *,
    config: RelationsParams,
    capture: CaptureFacts,
) -> tuple[Relation, ...]:
    """The sparse relations among ``arguments`` of ``subclaim`` (A-QBAF MV2026 §2.5): cue
    conflicts, then metadata contradictions, then corroborations, each in argument order and
    numbered per kind (``rel:<dimension>:<cue|meta|conf>:<n>``). Only support and attack
    arguments take part (mixed and neutral ones make no bipolar edge, Eq. 15); ``evidence``
    is the subclaim's ranked evidence, which the arguments cite; ``capture`` compares
    metadata with reported dates and places."""
    if not config.enabled:
        return ()
    pool = {e.id: e for e in evidence}
    args = [a for a in arguments if a.stance in _BIPOLAR]
    found = [
        *_cue_conflicts(args, pool),
        *_metadata_contradictions(args, pool, capture),
        *_corroborations(args, pool, config.trusted_reliability),
    ]
    dimension = subclaim.removeprefix("claim:")
    numbers: dict[RelationKind, int] = {}
    out: list[Relation] = []
    for f in found:
        numbers[f.kind] = numbers.get(f.kind, 0) + 1
        out.append(
            Relation(
                id=f"rel:{dimension}:{f.kind.code}:{numbers[f.kind]}",
                subclaim=subclaim,
                kind=f.kind,
                src=f.src,
                dst=f.dst,
                evidence=tuple(dict.fromkeys(f.evidence)),
                fact=f.fact,
            )
        )
    return tuple(out)


# ---- propagation ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Propagated:
    """The solved subclaim graph: final argument strengths σ(a), the totals of Eq. 16 over
    them, the claim's score ψ_k and the edges that were solved."""

    strengths: dict[str, float]
    support_total: float
    attack_total: float
    score: float
    edges: tuple[QbafEdge, ...]


def propagate(
    claim: str,
    base: float,
    weights: Mapping[str, float],
    stances: Mapping[str, Stance],
    relations: Sequence[Relation] = (),
    *,
    semantics: str = "quadratic-energy",
) -> Propagated:
    """Solve the claim-centred QBAF with its argument-to-argument relations.

    Every argument in ``weights`` (intrinsic strength τ = w_a after clash resolution) supports
    or attacks ``claim`` (base β_k) by its stance; a relation whose two ends are both present
    adds its edge (and the reverse edge when mutual). The claim's energy is
    ``Δ_k = Σ σ(supporters) − Σ σ(attackers)`` and ``ψ_k`` follows Eq. 17 at that Δ_k; with no
    relations σ(a) = w_a and this is exactly Eq. 16-17 on the star.
    """
    solver = Qbaf()
    solver.add_argument(claim, base)
    edges: list[QbafEdge] = []
    for arg_id, weight in weights.items():
        solver.add_argument(arg_id, weight)
    for arg_id in weights:
        stance = stances[arg_id]
        if stance is Stance.SUPPORT:
            solver.support(arg_id, claim)
        elif stance is Stance.ATTACK:
            solver.attack(arg_id, claim)
        else:
            raise ValueError(f"argument {arg_id} has stance {stance.value}: no bipolar edge")
        edges.append(QbafEdge(src=arg_id, dst=claim, kind=stance))
    for rel in relations:
        if rel.src not in weights or rel.dst not in weights:
            continue
        pairs = [(rel.src, rel.dst), (rel.dst, rel.src)] if rel.mutual else [(rel.src, rel.dst)]
        for src, dst in pairs:
            if rel.stance is Stance.SUPPORT:
                solver.support(src, dst)
            else:
                solver.attack(src, dst)
            edges.append(QbafEdge(src=src, dst=dst, kind=rel.stance, relation=rel.id))
    solved = solver.solve(semantics)
    strengths = {k: solved[k] for k in weights}
    sups = [strengths[k] for k in weights if stances[k] is Stance.SUPPORT]
    atts = [strengths[k] for k in weights if stances[k] is Stance.ATTACK]
    return Propagated(
        strengths=strengths,
        support_total=math.fsum(sups),
        attack_total=math.fsum(atts),
        score=solved[claim],
        edges=tuple(edges),
    )
