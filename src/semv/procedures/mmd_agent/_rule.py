"""MMD-Agent's label rules as adapted by ReMMD (Appendix D): pure functions.

Each of the three stages (text veracity → image veracity → cross-modal consistency) ends in
one of five signals scored on {+2, +1, 0, −1, −2}, or UNKNOWN when the stage could not judge.
The L1 label comes from the weighted total ``w_t·s_t + w_i·s_i + w_c·s_c`` (.45/.25/.30)
through the rule cascade of the authors' released ``combine_stage_signals``:

1. text +2, image ≥ +1, cross ≥ +1 → True when all three are +2, else Mostly True;
2. text ≥ +1, image ≥ 0, cross ≥ 0 and total ≥ ``mmd_lean_total`` (1.0) → Mostly True;
3. text ≤ −2, cross ≤ −1, image ≤ −1 → False;
4. all three ≤ −1 → Mostly False;
5. text ≤ −1, image ≤ 0, cross ≤ 0 and total ≤ ``mmd_refute_total`` (−0.7) → Mostly False;
6. the bands: total ≥ 1.5 True, ≥ 0.6 Mostly True, ≤ −1.5 False, ≤ −0.6 Mostly False;
7. otherwise Mixture.

With a stage UNKNOWN the mean of the known scores decides (≥ 1 Mostly True, ≤ −1 Mostly
False, else Mixture); with none known, Mixture. L2 is the union of the stages' codes, each
stage contributing only the codes of its modality (T* text, V* image, C* cross).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from semv.config import BaselinesConfig
from semv.model import REMMD_L2, Distortion, VeracityLabel

__all__ = [
    "SIGNAL_SCORES",
    "STAGE_CODES",
    "MmdStage",
    "Signal",
    "StageRule",
    "combine_signals",
    "union_codes",
    "weighted_total",
]


class MmdStage(StrEnum):
    TEXT = "text"
    IMAGE = "image"
    CROSS = "cross"


class Signal(StrEnum):
    STRONG_SUPPORT = "STRONG_SUPPORT"
    WEAK_SUPPORT = "WEAK_SUPPORT"
    MIXED = "MIXED"
    WEAK_REFUTE = "WEAK_REFUTE"
    STRONG_REFUTE = "STRONG_REFUTE"
    UNKNOWN = "UNKNOWN"


SIGNAL_SCORES: Mapping[Signal, int] = {
    Signal.STRONG_SUPPORT: 2,
    Signal.WEAK_SUPPORT: 1,
    Signal.MIXED: 0,
    Signal.WEAK_REFUTE: -1,
    Signal.STRONG_REFUTE: -2,
}
"""Each known signal's score; UNKNOWN has none."""

STAGE_CODES: Mapping[MmdStage, tuple[str, ...]] = {
    MmdStage.TEXT: (Distortion.T1.code, Distortion.T2.code, Distortion.T3.code),
    MmdStage.IMAGE: (Distortion.V1.code, Distortion.V2.code),
    MmdStage.CROSS: (Distortion.C1.code, Distortion.C2.code, Distortion.C3.code),
}
"""The L2 codes a stage may contribute."""


@dataclass(frozen=True)
class StageRule:
    """The L1 label, the cascade branch that chose it, and the weighted total (None when a
    stage was unknown and the mean of the known scores decided)."""

    label: VeracityLabel
    rule: str
    total: float | None


def weighted_total(text: int, image: int, cross: int, cfg: BaselinesConfig) -> float:
    """``w_t·s_t + w_i·s_i + w_c·s_c`` (MMD-Agent, ReMMD Appendix D)."""
    return cfg.mmd_w_text * text + cfg.mmd_w_image * image + cfg.mmd_w_cross * cross


def combine_signals(text: Signal, image: Signal, cross: Signal, cfg: BaselinesConfig) -> StageRule:
    """The five-way L1 label of the three stage signals (the cascade in the module doc)."""
    signals = (text, image, cross)
    if Signal.UNKNOWN in signals:
        known = [SIGNAL_SCORES[s] for s in signals if s is not Signal.UNKNOWN]
        if not known:
            return StageRule(VeracityLabel.MIXTURE, "no stage could judge", None)
        mean = sum(known) / len(known)
        if mean >= cfg.mmd_unknown_lean:
            return StageRule(
                VeracityLabel.MOSTLY_TRUE, f"known stages lean supportive (mean {mean:+.2f})", mean
            )
        if mean <= -cfg.mmd_unknown_lean:
            return StageRule(
                VeracityLabel.MOSTLY_FALSE, f"known stages lean refuting (mean {mean:+.2f})", mean
            )
        return StageRule(
            VeracityLabel.MIXTURE, f"known stages inconclusive (mean {mean:+.2f})", mean
        )
    t, i, c = SIGNAL_SCORES[text], SIGNAL_SCORES[image], SIGNAL_SCORES[cross]
    total = weighted_total(t, i, c, cfg)
    if t == 2 and i >= 1 and c >= 1:
        if i == 2 and c == 2:
            return StageRule(VeracityLabel.TRUE, "all three stages strongly support", total)
        return StageRule(
            VeracityLabel.MOSTLY_TRUE, "text strongly supports; image and cross support", total
        )
    if t >= 1 and i >= 0 and c >= 0 and total >= cfg.mmd_lean_total:
        return StageRule(VeracityLabel.MOSTLY_TRUE, "text supports and no stage refutes", total)
    if t <= -2 and c <= -1 and i <= -1:
        return StageRule(VeracityLabel.FALSE, "every stage refutes, text strongly", total)
    if t <= -1 and i <= -1 and c <= -1:
        return StageRule(VeracityLabel.MOSTLY_FALSE, "every stage refutes", total)
    if t <= -1 and i <= 0 and c <= 0 and total <= cfg.mmd_refute_total:
        return StageRule(VeracityLabel.MOSTLY_FALSE, "text refutes and no stage supports", total)
    if total >= cfg.mmd_true_band:
        return StageRule(VeracityLabel.TRUE, f"total {total:+.2f} in the True band", total)
    if total >= cfg.mmd_mostly_band:
        return StageRule(
            VeracityLabel.MOSTLY_TRUE, f"total {total:+.2f} in the Mostly True band", total
        )
    if total <= -cfg.mmd_true_band:
        return StageRule(VeracityLabel.FALSE, f"total {total:+.2f} in the False band", total)
    if total <= -cfg.mmd_mostly_band:
        return StageRule(
            VeracityLabel.MOSTLY_FALSE, f"total {total:+.2f} in the Mostly False band", total
        )
    return StageRule(VeracityLabel.MIXTURE, f"total {total:+.2f} between the bands", total)


def union_codes(per_stage: Mapping[MmdStage, Iterable[str]]) -> tuple[str, ...]:
    """L2 = the union of the stages' codes, each stage keeping only its own modality's codes;
    full label names in the benchmark's order."""
    chosen: set[str] = set()
    for stage, codes in per_stage.items():
        allowed = STAGE_CODES[stage]
        chosen |= {c.strip().upper()[:2] for c in codes if c.strip().upper()[:2] in allowed}
    return tuple(label for label in REMMD_L2 if label.split()[0] in chosen)
