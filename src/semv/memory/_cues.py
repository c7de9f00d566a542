"""Typed observations that a strength lesson's condition reads (SEMV §4.6, "Post-Prediction
Reflection" and "Reuse and Transfer").

A strength lesson never quotes a row. Its condition is a conjunction over the typed
observations of one argument: its stance and what its cited evidence is relative to the claim:

- ``evidence``: the kind of item: ``media-observation`` (a measurement or a text read off the
  media, such as EXIF or OCR), ``same-media-caption`` (a text that refers to the case's own
  media), ``metadata``, or the source type of an event report (``news``, ``fact-check``, ...);
- ``similarity``: the claim similarity of a text, in the bands of ``memory.cue_similarity``
  (``low`` / ``mid`` / ``high``);
- ``shared_names``: whether the text names any person, place, organisation or event the
  subclaim's claim names (``some`` / ``none``);
- ``evidence_names``: whether the text names any at all (``some`` / ``none``).

Measurements and metadata have no claim similarity or names: those keys read ``n/a``. The same
observations are computed at recall time for the case's supplied evidence (stance aside), so a
lesson is recalled only when an item it could apply to is present.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from semv.config import Settings
from semv.dimensions import (
    ClaimView,
    describes_same_media,
    is_media_text,
    is_metadata,
    is_observation,
    shared_entities,
)
from semv.model import Argument, Evidence, Subclaim
from semv.nlp.entities import extract
from semv.nlp.similarity import similarity

__all__ = [
    "CUE_KEYS",
    "EVIDENCE_KEYS",
    "NOT_APPLICABLE",
    "EvidenceCue",
    "argument_cue",
    "band",
    "evidence_cue",
    "evidence_kind",
    "matches",
]

EVIDENCE_KEYS = ("evidence", "similarity", "shared_names", "evidence_names")
"""The keys an evidence item's observation fills (recall matches a lesson on these)."""
CUE_KEYS = ("stance", *EVIDENCE_KEYS)
"""The keys of an argument's cue, the vocabulary of a strength lesson's trigger."""
NOT_APPLICABLE = "n/a"
_BAND_ORDER = ("low", "mid", "high")


@dataclass(frozen=True)
class EvidenceCue:
    """What one evidence item is, relative to the claim of the subclaim it was ranked for."""

    evidence: str
    similarity: str
    shared_names: str
    evidence_names: str

    def as_dict(self) -> dict[str, str]:
        return {
            "evidence": self.evidence,
            "similarity": self.similarity,
            "shared_names": self.shared_names,
            "evidence_names": self.evidence_names,
        }


def evidence_kind(ev: Evidence) -> str:
    """media-observation, same-media-caption, metadata, or the source type of a report."""
    if is_metadata(ev):
        return "metadata"
    if is_observation(ev) or is_media_text(ev):
        return "media-observation"
    if describes_same_media(ev):
        return "same-media-caption"
    return ev.source_type.value


def band(value: float, edges: tuple[float, float]) -> str:
    """``low`` below ``edges[0]``, ``mid`` below ``edges[1]``, else ``high``."""
    low, high = edges
    return "low" if value < low else "mid" if value < high else "high"


def evidence_cue(
    ev: Evidence, *, claim: str, subclaim: Subclaim, language: str | None, settings: Settings
) -> EvidenceCue:
    """The typed observation of ``ev`` for ``subclaim`` of the claim ``claim``."""
    kind = evidence_kind(ev)
    if kind in ("metadata", "media-observation") or not ev.content.strip():
        return EvidenceCue(kind, NOT_APPLICABLE, NOT_APPLICABLE, NOT_APPLICABLE)
    cfg = settings.offline
    view = ClaimView(subclaim=subclaim, claim_text=claim, language=language)
    facts = extract(ev.content, language)
    shared = shared_entities(view, facts, cfg.place_tolerance_km)
    named = bool(facts.people or facts.organizations or facts.events or facts.places)
    sim = similarity(claim, ev.content, cfg).value
    return EvidenceCue(
        evidence=kind,
        similarity=band(sim, settings.memory.cue_similarity),
        shared_names="some" if shared else "none",
        evidence_names="some" if named else "none",
    )


def _combined(cues: Sequence[EvidenceCue]) -> EvidenceCue:
    """One cue for an argument citing several items: the kinds joined, the highest similarity
    band, names present when any item has them."""
    if len(cues) == 1:
        return cues[0]
    sims = [c.similarity for c in cues if c.similarity in _BAND_ORDER]

    def any_of(values: Iterable[str]) -> str:
        vals = set(values)
        if vals <= {NOT_APPLICABLE}:
            return NOT_APPLICABLE
        return "some" if "some" in vals else "none"

    return EvidenceCue(
        evidence="+".join(sorted({c.evidence for c in cues})),
        similarity=max(sims, key=_BAND_ORDER.index) if sims else NOT_APPLICABLE,
        shared_names=any_of(c.shared_names for c in cues),
        evidence_names=any_of(c.evidence_names for c in cues),
    )


def argument_cue(
    arg: Argument,
    pool: Mapping[str, Evidence],
    *,
    claim: str,
    subclaim: Subclaim,
    language: str | None,
    settings: Settings,
    cache: dict[str, EvidenceCue] | None = None,
) -> dict[str, str] | None:
    """The cue of ``arg``: its stance and the observation of its cited evidence; None when it
    cites no current-case evidence (memory may never move such an argument, Def. 3.1)."""
    cited = [pool[e] for e in arg.evidence if e in pool]
    if not cited:
        return None
    memo = cache if cache is not None else {}
    cues = []
    for ev in cited:
        if ev.id not in memo:
            memo[ev.id] = evidence_cue(
                ev, claim=claim, subclaim=subclaim, language=language, settings=settings
            )
        cues.append(memo[ev.id])
    return {"stance": arg.stance.value, **_combined(cues).as_dict()}


def matches(trigger: Mapping[str, str], cue: Mapping[str, str]) -> bool:
    """A lesson's condition holds on a cue: every trigger key it names has the cue's value."""
    return all(cue.get(k) == v for k, v in trigger.items() if k in CUE_KEYS)
