"""Argument strength w_a (SEMV §4.4, Eq. 14)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from semv.model import (
    CONTEXT_DIMENSIONS,
    Dimension,
    Directness,
    MemoryGuidance,
    StrengthFeatures,
)
from semv.reasoning._params import StrengthParams

__all__ = [
    "ADJUST_STRENGTH",
    "argument_strength",
    "directness_factor",
    "memory_factor",
    "remembered_strength",
    "strength_from_features",
]

ADJUST_STRENGTH = "adjust-strength"
"""The memory action that scales an argument's strength (``semv.memory``'s ``Action``)."""


def _clip(value: float, low: float, high: float) -> float:
    return min(max(value, low), high)


def _unit(name: str, value: float) -> float:
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}")
    return value


def _count(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return value


def argument_strength(
    reliability: float,
    relevance: float,
    n_sources: int,
    n_modalities: int,
    provenance_fraction: float,
    text_length: int,
    verified: bool,
    has_uncertainty: bool,
    *,
    directness_factor: float = 1.0,
    config: StrengthParams,
) -> float:
    """The intrinsic strength of an argument, Eq. 14 of the SEMV paper, times the directness
    factor η_d (a deviation: docs/architecture.md, "Directness").

    .. math::

        w_a = \\operatorname{clip}\\bigl(\\eta_v\\,\\eta_u\\,[0.20\\,r_a + 0.25\\,q_a
              + 0.15\\,d^{src}_a + 0.15\\,d^{mod}_a + 0.20\\,prov_a + 0.05\\,\\ell_a], 0, 1\\bigr)

    with ``d^src = min(n_src / 3, 1)``, ``d^mod = min(n_mod / 2, 1)``,
    ``ℓ = clip(|t| / 280, 0.25, 1)``, ``η_v = 1`` for a verified argument and ``0.25``
    otherwise, ``η_u = 0.85`` when the argument carries uncertainty and ``1`` otherwise.
    ``η_d`` is ``directness_factor`` (:func:`directness_factor`: ``config.eta_event`` for an
    argument that reports only the event on a subclaim about the media's context, else 1).
    Every number above is read from ``config`` (weights, caps, ``η`` factors; Table S4);
    the values shown are the paper's defaults.

    Args:
        reliability: r_a, mean source reliability of the resolved evidence, in [0, 1].
        relevance: q_a, mean claim relevance of the resolved evidence, in [0, 1].
        n_sources: n^src_a, number of distinct sources (≥ 0).
        n_modalities: n^mod_a, number of distinct modalities (≥ 0).
        provenance_fraction: prov_a, fraction of resolved items with provenance, in [0, 1].
        text_length: |t_a|, length of the argument text in characters (≥ 0).
        verified: v_a, whether the grounding verifier accepted the argument.
        has_uncertainty: whether the argument carries an uncertainty code.
        directness_factor: η_d, in [0, 1].
        config: the ``strength`` section of the settings.

    Raises:
        ValueError: a component is outside its domain (not finite, negative, above 1).
    """
    r = _unit("reliability", reliability)
    q = _unit("relevance", relevance)
    prov = _unit("provenance_fraction", provenance_fraction)
    d_src = min(_count("n_sources", n_sources) / config.source_cap, 1.0)
    d_mod = min(_count("n_modalities", n_modalities) / config.modality_cap, 1.0)
    spec = _clip(
        _count("text_length", text_length) / config.specificity_chars,
        config.specificity_floor,
        1.0,
    )
    weighted = (
        config.w_reliability * r
        + config.w_relevance * q
        + config.w_source_diversity * d_src
        + config.w_modality_diversity * d_mod
        + config.w_provenance * prov
        + config.w_specificity * spec
    )
    eta_v = 1.0 if verified else config.eta_unverified
    eta_u = config.eta_uncertain if has_uncertainty else 1.0
    eta_d = _unit("directness_factor", directness_factor)
    return _clip(eta_v * eta_u * eta_d * weighted, 0.0, 1.0)


def directness_factor(
    directness: Directness, dimension: Dimension, *, config: StrengthParams
) -> float:
    """η_d: ``config.eta_event`` for an argument whose evidence reports only the event
    (``Directness.EVENT``) on a subclaim about the media's context (``CONTEXT_DIMENSIONS``:
    where, when, who, why), else 1. On ``what`` a report of the event speaks to the event
    content itself and keeps its full weight."""
    if directness is Directness.EVENT and dimension in CONTEXT_DIMENSIONS:
        return config.eta_event
    return 1.0


def strength_from_features(
    features: StrengthFeatures,
    verified: bool,
    has_uncertainty: bool,
    *,
    config: StrengthParams,
) -> float:
    """Eq. 14 applied to the audited inputs kept on an argument (``StrengthFeatures``).

    Equivalent to :func:`argument_strength` with the six components and η_d taken from
    ``features``.
    """
    return argument_strength(
        features.reliability,
        features.relevance,
        features.n_sources,
        features.n_modalities,
        features.provenance_fraction,
        features.text_length,
        verified,
        has_uncertainty,
        directness_factor=features.directness_factor,
        config=config,
    )


def memory_factor(memory: Iterable[str], guidance: Iterable[MemoryGuidance]) -> float:
    """The product of the ``factor`` of every strength lesson (action ``adjust-strength``) in
    ``guidance`` whose id is among ``memory`` (the M(a) of an argument); 1 when none is."""
    cited = set(memory)
    factor = 1.0
    for g in guidance:
        if g.id in cited and g.action == ADJUST_STRENGTH:
            factor *= g.params.get("factor", 1.0)
    return factor


def remembered_strength(strength: float, factor: float) -> float:
    """w_a of Eq. 14 moved by recalled strength lessons: ``clip(w_a · factor, 0, 1)``. Memory
    guides the weight of an argument that current-case evidence grounds; it never creates
    one (Def. 3.1)."""
    return _clip(strength * factor, 0.0, 1.0)
