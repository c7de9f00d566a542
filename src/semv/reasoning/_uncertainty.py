"""Uncertainty detection before a decision is final (SEMV §4.5, Module E): pure functions.

Per subclaim, the conditions that warrant review, each with the stages it affects so that a
reviewer can tell a factual conflict from a missing tool, missing evidence or insufficient
retrieval:

================================  ===========================================  ===========
code                              condition                                    stages
================================  ===========================================  ===========
``no-evidence``                   an asserted subclaim with no ranked evidence R, V
``low-reliability``               every ranked item has r_e below the bar       R, V
``ocr-asr-disagreement``          OCR and ASR text of one asset barely overlap  V, A
``metadata-claim-conflict``       an attack argument rests on metadata          V, A
``earlier-context-match``         a reverse-search match or earlier caption     R, A
                                  published before the claimed date
``forensic-source-conflict``      forensic and source evidence argue opposite   V, A, Q
``near-tie``                      support and attack totals nearly equal        Q
================================  ===========================================  ===========

The neutral band (``neutral-band``) is raised by the QBAF stage itself. Evidence kinds are
read from the items' typed observations (``EvidenceKind``: OCR text, transcript, reverse-search
match) and from the modality and source type.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Final

from semv.model import (
    Argument,
    Evidence,
    EvidenceKind,
    Modality,
    ReverseSearchMatch,
    SourceType,
    Stage,
    Stance,
    Subclaim,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.reasoning._params import ReviewParams

__all__ = ["evidence_kind", "review_codes"]

_SOURCE_TYPES: Final = frozenset(
    {SourceType.NEWS, SourceType.FACT_CHECK, SourceType.OFFICIAL, SourceType.WEB}
)
_ISO_DATE: Final = re.compile(r"^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?")


def evidence_kind(item: Evidence) -> str:
    """The kind segment of a typed evidence id (``ev:ocr:asset:1`` → ``ocr``); the kind of
    its payload is ``item.kind``."""
    parts = item.id.split(":")
    return parts[1] if len(parts) > 2 else ""


def _iso(value: str | None) -> str | None:
    """The ISO date prefix of ``value`` (YYYY, YYYY-MM or YYYY-MM-DD), if it has one."""
    match = _ISO_DATE.match(value or "")
    return match.group(0) if match is not None else None


def _before(a: str, b: str) -> bool:
    """``a`` is strictly earlier than ``b`` at their common precision."""
    n = min(len(a), len(b))
    return a[:n] < b[:n]


def _claimed(subclaim: Subclaim) -> str | None:
    dates = [d for d in (_iso(x) for x in subclaim.facts.dates) if d is not None]
    return min(dates) if dates else None


def review_codes(
    subclaim: Subclaim,
    arguments: Iterable[Argument],
    evidence: Iterable[Evidence],
    *,
    support_total: float,
    attack_total: float,
    config: ReviewParams,
    overlap: Callable[[str, str], float],
) -> tuple[UncertaintyItem, ...]:
    """The review codes of one subclaim (see the module docstring); ``overlap`` scores the
    word overlap of two texts in [0, 1] (``semv.nlp.text.lexical_overlap``)."""
    args = list(arguments)
    items = list(evidence)
    by_id = {e.id: e for e in items}
    sid = subclaim.id
    out: list[UncertaintyItem] = []

    def note(code: UncertaintyCode, detail: str, *stages: Stage) -> None:
        out.append(UncertaintyItem(code=code, subject=sid, detail=detail, stages=stages))

    if not items and subclaim.asserted:
        note(UncertaintyCode.NO_EVIDENCE, "no evidence was ranked", Stage.RETRIEVE, Stage.VALIDATE)
    elif items and all(e.reliability < config.low_reliability for e in items):
        worst = max(e.reliability for e in items)
        note(
            UncertaintyCode.LOW_RELIABILITY,
            f"every ranked item has reliability below {config.low_reliability:.2f} "
            f"(best {worst:.2f})",
            Stage.RETRIEVE,
            Stage.VALIDATE,
        )

    ocr = [e for e in items if e.kind is EvidenceKind.OCR]
    asr = [e for e in items if e.kind is EvidenceKind.TRANSCRIPT or e.modality is Modality.AUDIO]
    for o in ocr:
        for a in asr:
            same_asset = (o.location and a.location) and o.location.asset_id == a.location.asset_id
            if not same_asset:
                continue
            shared = overlap(o.content, a.content)
            if shared < config.ocr_asr_min_overlap:
                note(
                    UncertaintyCode.OCR_ASR_DISAGREEMENT,
                    f"{o.id} and {a.id} overlap {shared:.2f}",
                    Stage.VALIDATE,
                    Stage.ARGUE,
                )

    for arg in args:
        cited = [by_id[i] for i in arg.evidence if i in by_id]
        if arg.stance is Stance.ATTACK and any(e.modality is Modality.METADATA for e in cited):
            note(
                UncertaintyCode.METADATA_CLAIM_CONFLICT,
                f"{arg.id} attacks the subclaim from metadata",
                Stage.VALIDATE,
                Stage.ARGUE,
            )
            break

    claimed = _claimed(subclaim)
    for e in items:
        published = _iso(e.published)
        earlier = claimed is not None and published is not None and _before(published, claimed)
        match = e.observed(ReverseSearchMatch)
        reverse = match is not None
        # a copy without a source, date or caption shows no earlier context
        placed = match is not None and match.has_provenance
        if (reverse or e.source_type is SourceType.PRIOR_CAPTION) and (earlier or placed):
            note(
                UncertaintyCode.EARLIER_CONTEXT_MATCH,
                f"{e.id} shows the media in an earlier context"
                + (f" (published {e.published})" if e.published else ""),
                Stage.RETRIEVE,
                Stage.ARGUE,
            )
            break

    forensic = {
        a.stance
        for a in args
        if any(by_id[i].source_type is SourceType.FORENSIC for i in a.evidence if i in by_id)
    }
    sourced = {
        a.stance
        for a in args
        if any(by_id[i].source_type in _SOURCE_TYPES for i in a.evidence if i in by_id)
    }
    opposed = {Stance.SUPPORT, Stance.ATTACK}
    if opposed <= (forensic | sourced) and forensic & opposed and sourced & opposed - forensic:
        note(
            UncertaintyCode.FORENSIC_SOURCE_CONFLICT,
            "forensic and source evidence argue in opposite directions",
            Stage.VALIDATE,
            Stage.ARGUE,
            Stage.QBAF,
        )

    low, high = sorted((support_total, attack_total))
    if low > 0 and low / high >= config.near_tie_ratio:
        note(
            UncertaintyCode.NEAR_TIE,
            f"support {support_total:.2f} and attack {attack_total:.2f} are nearly tied",
            Stage.QBAF,
        )
    return tuple(out)
