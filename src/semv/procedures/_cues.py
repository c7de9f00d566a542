"""What the baselines' offline stages read: the offline backend's evidence rules, applied to
the parts of a post's evidence that each stage or subtask examines.

MMD-Agent's stages and T²-Agent's subtasks split the evidence the same way:

- *world text* (``is_world_text``): news, fact-checks, web pages and corpus documents about the
  claimed event, not about the post's own media: the text-veracity stage / ``text`` subtask;
- *image integrity* (``is_integrity``): EXIF, JPEG structure, forensic maps, C2PA manifests of
  an asset: the image-veracity stage / ``image`` subtask;
- *media context* (``is_media_context``): what ties an asset to a time, place or event (EXIF
  time and GPS, reverse-search matches, OCR and speech, captions of the same media): the
  cross-modal stage / ``match`` subtask.

A ``Cue`` is one finding of the ``semv.dimensions`` offline rules (entity, date, place and number
comparison, forensic and C2PA readings) on one evidence item, weighted by that item's
reliability: the same deterministic machinery SEMV's offline arguments come from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from semv.config import OfflineAgentConfig
from semv.dimensions import (
    ClaimView,
    describes_same_media,
    is_media_text,
    is_metadata,
    is_observation,
    rule_for,
    signal_kind,
)
from semv.model import Case, Claims, Dimension, Evidence, EvidenceKind, Frozen, Modality, Stance
from semv.nlp.quantities import DAY_OF_MONTH, NUMBER, YEAR_NUMBER
from semv.nlp.text import STOPWORDS, normalize_token, tokens

__all__ = [
    "Cue",
    "asset_of",
    "claim_views",
    "cues",
    "is_integrity",
    "is_media_context",
    "is_world_text",
    "mass",
    "number_cues",
]


class Cue(Frozen):
    """One rule finding: the dimension it bears on, for or against, citing which items."""

    dimension: str
    stance: Stance
    text: str
    evidence: tuple[str, ...]
    weight: float
    """Reliability of the most reliable cited item: the finding's mass."""


def asset_of(ev: Evidence) -> str | None:
    return ev.location.asset_id if ev.location is not None else None


def is_world_text(ev: Evidence) -> bool:
    """A text about the claimed event written outside the post (not about its media)."""
    return (
        ev.modality is Modality.TEXT
        and bool(ev.content.strip())
        and not (is_metadata(ev) or is_observation(ev) or is_media_text(ev))
        and signal_kind(ev) is None
        and not describes_same_media(ev)
    )


def is_integrity(ev: Evidence) -> bool:
    """An observation of an asset's file integrity: EXIF, JPEG structure, forensics, C2PA."""
    kind = signal_kind(ev)
    if kind is not None and kind is not EvidenceKind.REVERSE_SEARCH_MATCH:
        return True
    return is_metadata(ev) and not is_observation(ev)


def is_media_context(ev: Evidence) -> bool:
    """What ties an asset to a time, place or event: EXIF capture time and GPS, a
    reverse-search match, text read or heard in the media, a caption of the same media."""
    if signal_kind(ev) is EvidenceKind.REVERSE_SEARCH_MATCH:
        return True
    if is_media_text(ev) or describes_same_media(ev):
        return True
    return is_metadata(ev) and not is_observation(ev)


def claim_views(case: Case, claims: Claims) -> dict[Dimension, ClaimView]:
    """One ``ClaimView`` per dimension: what the post's subclaim asserts, resolved once."""
    return {
        Dimension(k): ClaimView(subclaim=s, claim_text=case.claim, language=case.context.language)
        for k, s in claims.subclaims.items()
    }


def cues(
    views: Mapping[Dimension, ClaimView],
    evidence: Iterable[Evidence],
    dimensions: Sequence[Dimension],
    cfg: OfflineAgentConfig,
) -> tuple[Cue, ...]:
    """The offline rules' findings on each item for each dimension, weighted by reliability;
    with ``what``, also the counts the item states for the claim's counted nouns."""
    items = list(evidence)
    reliability = {e.id: e.reliability for e in items}
    out: list[Cue] = []
    for ev in items:
        for dim in dimensions:
            view = views.get(dim)
            if view is None or not view.subclaim.asserted:
                continue
            for finding in rule_for(dim)(view, ev, cfg):
                weight = max(
                    (reliability.get(i, ev.reliability) for i in finding.evidence), default=0.0
                )
                out.append(
                    Cue(
                        dimension=dim.value,
                        stance=finding.stance,
                        text=finding.text,
                        evidence=finding.evidence,
                        weight=weight,
                    )
                )
        what = views.get(Dimension.WHAT)
        if Dimension.WHAT in dimensions and what is not None and what.subclaim.asserted:
            out.extend(number_cues(what.claim_text, ev))
    return tuple(out)


_COUNTED = re.compile(r"\s*([^\W\d_][\w'’-]*)", re.UNICODE)


def counted(text: str) -> dict[str, set[str]]:
    """Counted quantities in ``text``: the noun after each number (its first content word,
    suffix-normalised) → the values stated for it. Years and days of the month are dates,
    not counts (the when rule compares them)."""
    text = DAY_OF_MONTH.sub(lambda m: " " * len(m.group(0)), text)
    out: dict[str, set[str]] = {}
    for match in NUMBER.finditer(text):
        value = re.sub(r"[,.\u202f ](?=\d{3}\b)", "", match.group(0).strip())
        if YEAR_NUMBER.match(value):
            continue
        rest = text[match.end() : match.end() + 40]
        for word in tokens(rest)[:3]:
            if word not in STOPWORDS and not word.isdigit():
                out.setdefault(normalize_token(word), set()).add(value)
                break
    return out


def number_cues(claim: str, ev: Evidence) -> tuple[Cue, ...]:
    """A count the evidence states for the same noun as the claim but with other values only
    (the claim's "12 people", the report's "2 people"): an attack on the event content; the
    same value: a support."""
    if not is_world_text(ev):
        return ()
    claimed, stated = counted(claim), counted(ev.content)
    out: list[Cue] = []
    for noun, values in claimed.items():
        seen = stated.get(noun)
        if not seen:
            continue
        agree = values & seen
        stance = Stance.SUPPORT if agree else Stance.ATTACK
        said = ", ".join(sorted(agree or seen))
        text = (
            f"{ev.id} states {said} {noun}"
            + ("" if agree else f" where the claim states {', '.join(sorted(values))}")
            + "."
        )
        out.append(
            Cue(
                dimension="what", stance=stance, text=text, evidence=(ev.id,), weight=ev.reliability
            )
        )
    return tuple(out)


def mass(found: Iterable[Cue]) -> tuple[float, float]:
    """(support, attack): the summed weights of supporting and attacking cues."""
    support = attack = 0.0
    for cue in found:
        if cue.stance is Stance.SUPPORT:
            support += cue.weight
        else:
            attack += cue.weight
    return support, attack
