"""Gradual semantics: the claim score and decision band (SEMV Eq. 16-18) and the per-argument
update functions of the three QBAF semantics the general solver offers.

Each update function maps an argument's base score β and the (edge-weighted) strengths of its
supporters and attackers to its new strength; a QBAF's strengths are the fixed point of these
maps (computed in ``_qbaf``).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Final, Literal

from semv.model import Band
from semv.reasoning._params import DecisionParams

__all__ = [
    "SEMANTICS",
    "Semantics",
    "band",
    "claim_score",
    "delta_for_score",
    "influence",
]

Semantics = Literal["quadratic-energy", "df-quad", "euler"]
"""Names of the gradual semantics :meth:`semv.reasoning.Qbaf.solve` accepts."""

SEMANTICS: Final[tuple[Semantics, ...]] = ("quadratic-energy", "df-quad", "euler")

_LOG_FLOAT_MAX: Final[float] = math.log(sys.float_info.max)

UpdateFn = Callable[[float, Sequence[float], Sequence[float]], float]
"""(β, supporter strengths, attacker strengths) → strength; edge weights already applied."""


def _finite(name: str, value: float) -> float:
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return value


def _check_base(base: float) -> float:
    if not math.isfinite(base) or not 0.0 <= base <= 1.0:
        raise ValueError(f"base score must lie in [0, 1], got {base!r}")
    return base


def influence(x: float) -> float:
    """The saturating influence function g of Eq. 17 (Potyka's quadratic-energy influence).

    ``g(ν) = max(ν, 0)² / (1 + max(ν, 0)²)``; ``g`` is 0 for ν ≤ 0, strictly increasing for
    ν > 0 and tends to 1. Evaluated without overflow for very large ν.

    Raises:
        ValueError: ``x`` is NaN.
    """
    if math.isnan(x):
        raise ValueError("influence is undefined for NaN")
    positive = max(x, 0.0)
    square = positive * positive
    if math.isinf(square):
        return 1.0
    return square / (1.0 + square)


def _sum_strengths(name: str, values: Iterable[float]) -> float:
    checked: list[float] = []
    for value in values:
        if not math.isfinite(value) or value < 0.0:
            raise ValueError(f"{name} strengths must be finite and non-negative, got {value!r}")
        checked.append(value)
    return math.fsum(checked)


def _energy_score(base: float, energy: float) -> float:
    """β + (1 − β)·g(E) − β·g(−E): the right-hand side of Eq. 17 before clipping."""
    return base + (1.0 - base) * influence(energy) - base * influence(-energy)


def claim_score(
    supports: Iterable[float],
    attacks: Iterable[float],
    base: float,
) -> float:
    """The propagated claim score ψ_k of a claim-centred star QBAF, Eq. 16-17.

    ``S_k = Σ supports``, ``A_k = Σ attacks``, ``Δ_k = S_k − A_k`` (Eq. 16) and
    ``ψ_k = clip(β_k + (1 − β_k)·g(Δ_k) − β_k·g(−Δ_k), 0, 1)`` (Eq. 17), with ``g`` the
    :func:`influence` function. ``base`` is β_k (``decision.base_score``, 0.5).

    Raises:
        ValueError: a strength is negative or not finite, or ``base`` is outside [0, 1].
    """
    _check_base(base)
    delta = _sum_strengths("support", supports) - _sum_strengths("attack", attacks)
    return min(max(_energy_score(base, delta), 0.0), 1.0)


def delta_for_score(psi: float, base: float) -> float:
    """The net effect Δ at which Eq. 17 reaches the score ψ (the inverse of Eq. 17).

    For ψ > β: ``g(Δ) = (ψ − β)/(1 − β)`` and ``Δ = √(y/(1 − y))`` with ``y = (ψ − β)/(1 − β)``;
    for ψ < β the mirror image gives a negative Δ; ψ = β gives 0. Since Eq. 17 is strictly
    increasing in Δ for 0 < β < 1, ``claim_score > ψ ⇔ Δ > delta_for_score(ψ)``: with the
    paper's bands, ψ > 0.70 ⇔ Δ > 0.816 and ψ > 0.55 ⇔ Δ > 0.333 (§4.4).

    Raises:
        ValueError: ψ ≠ β is not in the open interval (0, 1) (Δ would be infinite), or
            ``base`` is outside [0, 1].
    """
    _check_base(base)
    _finite("psi", psi)
    if psi == base:
        return 0.0
    if not 0.0 < psi < 1.0:
        raise ValueError(f"psi must lie in the open interval (0, 1), got {psi!r}")
    if psi > base:
        y = (psi - base) / (1.0 - base)
        return math.sqrt(y / (1.0 - y))
    y = (base - psi) / base  # psi < base, so base > 0
    return -math.sqrt(y / (1.0 - y))


def band(score: float, *, config: DecisionParams) -> Band:
    """The subclaim decision d_k of Eq. 18.

    ========================  =====================================
    ψ < 0.30                  ``refuted``
    0.30 ≤ ψ < 0.45           ``weakly-refuted``
    0.45 ≤ ψ ≤ 0.55           ``uncertain``
    0.55 < ψ ≤ 0.70           ``weakly-supported``
    ψ > 0.70                  ``supported``
    ========================  =====================================

    The four thresholds are the ``decision`` section of the settings (Table S4).

    Raises:
        ValueError: ``score`` is NaN.
    """
    if math.isnan(score):
        raise ValueError("cannot band a NaN score")
    if score < config.refuted:
        return Band.REFUTED
    if score < config.weakly_refuted:
        return Band.WEAKLY_REFUTED
    if score <= config.weakly_supported:
        return Band.UNCERTAIN
    if score <= config.supported:
        return Band.WEAKLY_SUPPORTED
    return Band.SUPPORTED


# ---- per-argument updates of the general QBAF solver ----------------------------------------


def quadratic_energy_update(
    base: float, supporters: Sequence[float], attackers: Sequence[float]
) -> float:
    """Quadratic-energy semantics (Potyka, KR 2018).

    Energy ``E = Σ supporters − Σ attackers`` (weighted), strength
    ``s = β − β·h(−E) + (1 − β)·h(E)`` with ``h = g`` of Eq. 17. On a star graph this is
    exactly Eq. 16-17 (the A-QBAF formula of MV2026 §2.6.1).
    """
    return _energy_score(base, math.fsum(supporters) - math.fsum(attackers))


def _product_aggregation(values: Sequence[float]) -> float:
    """F(v_1..v_n) = 1 − Π(1 − v_i) (DF-QuAD; 0 for no values)."""
    remainder = 1.0
    for value in values:
        remainder *= 1.0 - min(max(value, 0.0), 1.0)
    return 1.0 - remainder


def df_quad_update(base: float, supporters: Sequence[float], attackers: Sequence[float]) -> float:
    """DF-QuAD semantics (Rago, Toni, Aurisicchio & Baroni, KR 2016).

    ``v_a = F(attackers)``, ``v_s = F(supporters)`` with the product aggregation
    ``F(v_1..v_n) = 1 − Π(1 − v_i)``; linear influence: if ``v_a ≥ v_s`` then
    ``s = β − β·(v_a − v_s)``, otherwise ``s = β + (1 − β)·(v_s − v_a)``.
    """
    v_att = _product_aggregation(attackers)
    v_sup = _product_aggregation(supporters)
    if v_att >= v_sup:
        return base - base * (v_att - v_sup)
    return base + (1.0 - base) * (v_sup - v_att)


def euler_update(base: float, supporters: Sequence[float], attackers: Sequence[float]) -> float:
    """Euler-based semantics (Amgoud & Ben-Naim, 2018).

    ``E = Σ supporters − Σ attackers`` (weighted), ``s = 1 − (1 − β²) / (1 + β·e^E)``.
    """
    energy = math.fsum(supporters) - math.fsum(attackers)
    if base == 0.0:
        return 0.0
    if energy > _LOG_FLOAT_MAX:
        return 1.0
    return 1.0 - (1.0 - base * base) / (1.0 + base * math.exp(energy))


UPDATES: Final[dict[Semantics, UpdateFn]] = {
    "quadratic-energy": quadratic_energy_update,
    "df-quad": df_quad_update,
    "euler": euler_update,
}
