"""MMD-Agent's three stages, offline: a signal and L2 codes from the offline rules' cues.

- **text veracity**: what / when / where / who rules on the world text (supplied and retrieved
  news, fact-checks, pages about the event). Codes: T2 Distortion for a contradicted event
  content or number (``what``), T3 Misleading Context for a contradicted time, place or person,
  T1 Fabrication when the stage strongly refutes and nothing supports the event content.
- **image veracity**: the authenticity rule on each asset's EXIF, JPEG structure, forensic
  maps and C2PA manifest. Codes: V1 for a C2PA manifest declaring AI generation, V2 for any
  other editing finding.
- **cross-modal consistency**: what / when / where / who / why rules on what ties the media to
  a context (EXIF time and GPS, reverse-search matches, OCR and speech, captions of the same
  media) and the ``why`` rule (recontextualisation markers, captions of other events) on the
  world text. Codes: C1 Semantic for contradicted content or people, C2 Contextual for a
  contradicted time, place or event. C3 (pragmatic) needs discourse reading: the offline rules
  never assign it.

The signal of a stage with cue masses S (support) and A (attack), balance b = (S − A)/(S + A):
b ≥ ``mmd_strong_balance`` and S ≥ ``mmd_strong_mass`` → STRONG_SUPPORT; b ≥
``mmd_weak_balance`` → WEAK_SUPPORT; symmetric for REFUTE; otherwise (or no cue) MIXED; a stage
with nothing to examine (no image, no evidence) is UNKNOWN.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from semv.config import BaselinesConfig, OfflineAgentConfig
from semv.dimensions import ClaimView
from semv.model import (
    ContentCredentials,
    Dimension,
    Distortion,
    Evidence,
    Frozen,
    Stance,
    UncertaintyItem,
)
from semv.procedures._cues import (
    Cue,
    cues,
    is_integrity,
    is_media_context,
    is_world_text,
    mass,
)
from semv.procedures.mmd_agent._rule import SIGNAL_SCORES, MmdStage, Signal

__all__ = [
    "QUESTIONS",
    "StageOutcome",
    "cross_stage",
    "image_stage",
    "signal_of",
    "text_stage",
]

QUESTIONS: Mapping[MmdStage, str] = {
    MmdStage.TEXT: "Is the post's text supported by evidence about the event it reports?",
    MmdStage.IMAGE: "Are the post's images authentic (not synthetic, not edited)?",
    MmdStage.CROSS: "Do the images fit the text's event, time, place and people?",
}
_TEXT_DIMS = (Dimension.WHAT, Dimension.WHEN, Dimension.WHERE, Dimension.WHO)
_CROSS_DIMS = (Dimension.WHAT, Dimension.WHEN, Dimension.WHERE, Dimension.WHO, Dimension.WHY)
_MAX_REASONS = 4


class StageOutcome(Frozen):
    """One stage's answer: signal, score, L2 codes, the cues or model rationale behind it."""

    stage: MmdStage
    signal: Signal
    codes: tuple[str, ...] = ()
    rationale: str
    cues: tuple[Cue, ...] = ()
    examined: tuple[str, ...] = ()
    """Ids of the evidence the stage looked at."""
    backend: str = "offline"
    uncertainty: tuple[UncertaintyItem, ...] = ()

    @property
    def score(self) -> int | None:
        return SIGNAL_SCORES.get(self.signal)

    @property
    def cited(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(i for c in self.cues for i in c.evidence))


def signal_of(support: float, attack: float, cfg: BaselinesConfig) -> Signal:
    """The five-way signal of the cue masses (module doc)."""
    total = support + attack
    if total <= 0:
        return Signal.MIXED
    balance = (support - attack) / total
    if balance >= cfg.mmd_strong_balance and support >= cfg.mmd_strong_mass:
        return Signal.STRONG_SUPPORT
    if balance <= -cfg.mmd_strong_balance and attack >= cfg.mmd_strong_mass:
        return Signal.STRONG_REFUTE
    if balance >= cfg.mmd_weak_balance:
        return Signal.WEAK_SUPPORT
    if balance <= -cfg.mmd_weak_balance:
        return Signal.WEAK_REFUTE
    return Signal.MIXED


def _attacks(found: Iterable[Cue], dims: set[str]) -> list[Cue]:
    return [c for c in found if c.stance is Stance.ATTACK and c.dimension in dims]


def _rationale(stage: MmdStage, signal: Signal, found: Sequence[Cue], examined: int) -> str:
    if not examined:
        return f"{QUESTIONS[stage]} Nothing to examine: {signal.value}."
    s, a = mass(found)
    head = (
        f"{QUESTIONS[stage]} {signal.value}: {len(found)} findings on {examined} items "
        f"(support {s:.2f}, attack {a:.2f})."
    )
    ranked = sorted(found, key=lambda c: (-c.weight, c.stance.value, c.text))[:_MAX_REASONS]
    return " ".join([head, *(f"[{c.stance.value}] {c.text}" for c in ranked)])


def _outcome(
    stage: MmdStage,
    items: Sequence[Evidence],
    found: Sequence[Cue],
    codes: Iterable[str],
    cfg: BaselinesConfig,
) -> StageOutcome:
    signal = signal_of(*mass(found), cfg) if items else Signal.UNKNOWN
    return StageOutcome(
        stage=stage,
        signal=signal,
        codes=tuple(sorted(set(codes))),
        rationale=_rationale(stage, signal, found, len(items)),
        cues=tuple(found),
        examined=tuple(e.id for e in items),
    )


def _unique(items: Iterable[Evidence]) -> list[Evidence]:
    return list({e.id: e for e in items}.values())


def text_stage(
    views: Mapping[Dimension, ClaimView],
    evidence: Iterable[Evidence],
    cfg: BaselinesConfig,
    offline: OfflineAgentConfig,
) -> StageOutcome:
    """Text veracity from the world text among ``evidence`` (module doc)."""
    items = [e for e in _unique(evidence) if is_world_text(e)]
    found = cues(views, items, _TEXT_DIMS, offline)
    codes: set[str] = set()
    if _attacks(found, {"what"}):
        codes.add(Distortion.T2.code)
    if _attacks(found, {"when", "where", "who"}):
        codes.add(Distortion.T3.code)
    signal = signal_of(*mass(found), cfg)
    if signal is Signal.STRONG_REFUTE and not any(
        c.dimension == "what" and c.stance is Stance.SUPPORT for c in found
    ):
        codes.add(Distortion.T1.code)
    return _outcome(MmdStage.TEXT, items, found, codes, cfg)


def image_stage(
    views: Mapping[Dimension, ClaimView],
    evidence: Iterable[Evidence],
    images: int,
    cfg: BaselinesConfig,
    offline: OfflineAgentConfig,
) -> StageOutcome:
    """Image veracity from the integrity observations of the ``images`` loaded images."""
    items = [e for e in _unique(evidence) if is_integrity(e)] if images else []
    found = cues(views, items, (Dimension.AUTHENTICITY,), offline)
    ai = {e.id for e in items if (c2pa := e.observed(ContentCredentials)) and c2pa.ai_generated}
    codes = {
        (Distortion.V1 if ai.intersection(c.evidence) else Distortion.V2).code
        for c in _attacks(found, {"authenticity"})
    }
    return _outcome(MmdStage.IMAGE, items, found, codes, cfg)


def cross_stage(
    views: Mapping[Dimension, ClaimView],
    evidence: Iterable[Evidence],
    images: int,
    cfg: BaselinesConfig,
    offline: OfflineAgentConfig,
) -> StageOutcome:
    """Cross-modal consistency: the media's context against the text (module doc)."""
    pool = _unique(evidence) if images else []
    media = [e for e in pool if is_media_context(e)]
    world = [e for e in pool if is_world_text(e)]
    found = cues(views, media, _CROSS_DIMS, offline) + cues(views, world, (Dimension.WHY,), offline)
    codes: set[str] = set()
    if _attacks(found, {"what", "who"}):
        codes.add(Distortion.C1.code)
    if _attacks(found, {"when", "where", "why"}):
        codes.add(Distortion.C2.code)
    return _outcome(MmdStage.CROSS, media + world, found, codes, cfg)
