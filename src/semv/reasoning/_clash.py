"""Clash resolution (SEMV §4.4; A-QBAF MV2026 §2.6.1, "Selective Clash Resolution")."""

from __future__ import annotations

import math
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from semv.model import ClashRecord
from semv.reasoning._params import ClashParams

__all__ = ["ClashOutcome", "judge_adjustment", "resolve_clash"]


class ClashOutcome(BaseModel):
    """The result of :func:`resolve_clash`.

    ``support_id``/``attack_id`` and their strengths name the strongest support and attack
    (``None`` when that side is empty) whether or not a clash was flagged; ``supports`` and
    ``attacks`` are the strengths to re-propagate (reduced when ``clash`` is true, unchanged
    otherwise).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    clash: bool
    support_id: str | None
    attack_id: str | None
    support_strength: float | None
    attack_strength: float | None
    supports: dict[str, float] = Field(description="Support id → strength after resolution.")
    attacks: dict[str, float] = Field(description="Attack id → strength after resolution.")
    reduced: dict[str, float] = Field(
        description="Id → reduced strength, for the arguments the resolution changed."
    )

    def record(self) -> ClashRecord | None:
        """The ``ClashRecord`` of the data model, or ``None`` when no clash was flagged."""
        if (
            not self.clash
            or self.support_id is None
            or self.attack_id is None
            or self.support_strength is None
            or self.attack_strength is None
        ):
            return None
        return ClashRecord(
            support=self.support_id,
            attack=self.attack_id,
            support_strength=self.support_strength,
            attack_strength=self.attack_strength,
            reduced=dict(self.reduced),
        )


def _check(side: str, strengths: Mapping[str, float]) -> None:
    for key, value in strengths.items():
        if not math.isfinite(value) or not 0.0 <= value <= 1.0:
            raise ValueError(f"{side} {key!r}: strength must lie in [0, 1], got {value!r}")


def _strongest(strengths: Mapping[str, float]) -> tuple[str, float] | None:
    """The argument with the highest strength; ties go to the smallest id (deterministic)."""
    if not strengths:
        return None
    key = min(strengths, key=lambda k: (-strengths[k], k))
    return key, strengths[key]


def _at_least(value: float, bound: float) -> bool:
    """value ≥ bound, inclusive up to floating-point rounding (``math.isclose`` defaults)."""
    return value >= bound or math.isclose(value, bound)


def resolve_clash(
    supports: Mapping[str, float],
    attacks: Mapping[str, float],
    *,
    config: ClashParams,
) -> ClashOutcome:
    """Flag and damp a major factual conflict on one subclaim (SEMV §4.4).

    The paper: "When the strongest support and attack both reach 0.55 and differ by at most
    0.25, the clash resolver flags a major factual conflict, reduces the competing argument
    scores, and re-propagates the graph." Here the clash condition is

    ``max(supports) ≥ threshold ∧ max(attacks) ≥ threshold ∧
    |max(supports) − max(attacks)| ≤ margin``

    (``threshold`` = 0.55 and ``margin`` = 0.25 by default, Table S4; both comparisons are
    inclusive up to floating-point rounding).

    The paper leaves the amount of the reduction unspecified. This implementation's choice:
    the *competing arguments* are all arguments, on both sides, whose strength reaches the
    clash threshold; each has its strength multiplied by ``config.reduction`` (0.5 by
    default). Arguments below the threshold keep their strength. Damping both sides
    symmetrically leaves the sign of the conflict to the weaker corroborating arguments and
    moves the re-propagated score (Eq. 17) towards the neutral base, which matches the
    paper's intent of marking the conflict rather than resolving it in favour of one side.
    (A-QBAF MV2026 §2.6.1 instead calls a judge model; see :func:`judge_adjustment`.)

    Args:
        supports: support argument id → strength w_a ∈ [0, 1].
        attacks: attack argument id → strength w_a ∈ [0, 1].
        config: the ``clash`` section of the settings.

    Raises:
        ValueError: a strength is outside [0, 1], or an id is on both sides.
    """
    _check("support", supports)
    _check("attack", attacks)
    both = sorted(set(supports) & set(attacks))
    if both:
        raise ValueError(f"arguments on both sides of the clash: {', '.join(both)}")
    top_s = _strongest(supports)
    top_a = _strongest(attacks)
    clash = (
        top_s is not None
        and top_a is not None
        and _at_least(top_s[1], config.threshold)
        and _at_least(top_a[1], config.threshold)
        and _at_least(config.margin, abs(top_s[1] - top_a[1]))
    )
    reduced: dict[str, float] = {}
    if clash:
        for side in (supports, attacks):
            for key, value in side.items():
                if _at_least(value, config.threshold):
                    reduced[key] = value * config.reduction
    return ClashOutcome(
        clash=clash,
        support_id=top_s[0] if top_s else None,
        attack_id=top_a[0] if top_a else None,
        support_strength=top_s[1] if top_s else None,
        attack_strength=top_a[1] if top_a else None,
        supports={key: reduced.get(key, value) for key, value in supports.items()},
        attacks={key: reduced.get(key, value) for key, value in attacks.items()},
        reduced=reduced,
    )


def judge_adjustment(win_rate: float, beta: float) -> float:
    """The judge-based strength update Δτ(a) = β(2w − 1) of A-QBAF MV2026 §2.6.1.

    ``w`` ∈ [0, 1] is the argument's win rate across judged clashes and ``β`` ≥ 0 a small
    adjustment magnitude: a win rate of 1 adds β, 0 subtracts β, 0.5 leaves τ(a) unchanged.

    Raises:
        ValueError: ``win_rate`` is outside [0, 1] or ``beta`` is negative or not finite.
    """
    if not math.isfinite(win_rate) or not 0.0 <= win_rate <= 1.0:
        raise ValueError(f"win_rate must lie in [0, 1], got {win_rate!r}")
    if not math.isfinite(beta) or beta < 0.0:
        raise ValueError(f"beta must be finite and non-negative, got {beta!r}")
    return beta * (2.0 * win_rate - 1.0)
