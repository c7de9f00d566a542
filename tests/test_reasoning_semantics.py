"""Claim score and decision bands, Eq. 16-18 of the SEMV paper (§4.4).

Expected values are the paper's own statements about Eq. 17 (ψ(Δ=2) = 0.90, ψ(Δ=5) = 0.98,
ψ > 0.70 ⇔ Δ > 0.816, ψ > 0.55 ⇔ Δ > 0.333) and hand evaluations of g(ν) = ν²/(1 + ν²).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from semv.config import DecisionConfig
from semv.model import Band
from semv.reasoning import influence
from tests.paper_reasoning import band, claim_score, delta_for_score

strength = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
strengths = st.lists(strength, max_size=12)


def test_influence_hand_values() -> None:
    assert influence(0.0) == 0.0
    assert influence(-3.0) == 0.0  # max(ν, 0)
    assert influence(1.0) == pytest.approx(0.5)  # 1/2
    assert influence(2.0) == pytest.approx(0.8)  # 4/5
    assert influence(3.0) == pytest.approx(0.9)  # 9/10
    assert influence(1e200) == 1.0
    assert influence(math.inf) == 1.0
    with pytest.raises(ValueError):
        influence(math.nan)


def test_paper_saturation_values() -> None:
    # §4.4: "Δ_k = 2 ⇒ ψ_k = 0.90; Δ_k = 5 ⇒ ψ_k = 0.98".
    assert claim_score([2.0], []) == pytest.approx(0.90, abs=1e-12)
    assert claim_score([1.0, 1.0], []) == pytest.approx(0.90, abs=1e-12)
    assert claim_score([5.0], []) == pytest.approx(0.98, abs=0.005)
    # the mirror image for attacks
    assert claim_score([], [2.0]) == pytest.approx(0.10, abs=1e-12)


def test_paper_thresholds_on_delta() -> None:
    # §4.4: "ψ_k > 0.70 requiring Δ_k > 0.816 and ψ_k > 0.55 requiring Δ_k > 0.333".
    d70 = delta_for_score(0.70)
    d55 = delta_for_score(0.55)
    assert d70 == pytest.approx(0.816, abs=1e-3)
    assert d55 == pytest.approx(0.333, abs=1e-3)
    # hand inversion: g(Δ) = 0.4 ⇒ Δ² = 2/3; g(Δ) = 0.1 ⇒ Δ² = 1/9
    assert d70 == pytest.approx(math.sqrt(2 / 3), abs=1e-12)
    assert d55 == pytest.approx(1 / 3, abs=1e-12)
    eps = 1e-6
    assert band(claim_score([d70 + eps], [])) is Band.SUPPORTED
    assert band(claim_score([d70 - eps], [])) is Band.WEAKLY_SUPPORTED
    assert band(claim_score([d55 + eps], [])) is Band.WEAKLY_SUPPORTED
    assert band(claim_score([d55 - eps], [])) is Band.UNCERTAIN
    # on the attack side the refuted thresholds mirror: ψ < 0.30 ⇔ Δ < −0.816
    assert delta_for_score(0.30) == pytest.approx(-math.sqrt(2 / 3), abs=1e-12)
    assert band(claim_score([], [d70 + eps])) is Band.REFUTED
    assert band(claim_score([], [d70 - eps])) is Band.WEAKLY_REFUTED
    assert delta_for_score(0.5) == 0.0


def test_star_graph_examples() -> None:
    assert claim_score([], []) == 0.5  # no arguments: the neutral base value
    # Δ = 0.9 − 0.4 = 0.5, g = .25/1.25 = .2 → ψ = .5 + .5 × .2 = .6
    assert claim_score([0.6, 0.3], [0.4]) == pytest.approx(0.6)
    # equal support and attack cancel
    assert claim_score([0.7], [0.7]) == pytest.approx(0.5)
    # a non-neutral base: β = .8, Δ = −1 → ψ = .8 − .8 × .5 = .4
    assert claim_score([], [1.0], base=0.8) == pytest.approx(0.4)


def test_band_boundaries_exactly_as_eq_18() -> None:
    cases = [
        (0.0, Band.REFUTED),
        (0.2999, Band.REFUTED),
        (0.30, Band.WEAKLY_REFUTED),
        (0.4499, Band.WEAKLY_REFUTED),
        (0.45, Band.UNCERTAIN),
        (0.50, Band.UNCERTAIN),
        (0.55, Band.UNCERTAIN),
        (0.5501, Band.WEAKLY_SUPPORTED),
        (0.70, Band.WEAKLY_SUPPORTED),
        (0.7001, Band.SUPPORTED),
        (1.0, Band.SUPPORTED),
    ]
    for score, expected in cases:
        assert band(score) is expected, score
    assert [b.value for b in Band] == [
        "refuted",
        "weakly-refuted",
        "uncertain",
        "weakly-supported",
        "supported",
    ]
    with pytest.raises(ValueError):
        band(math.nan)


def test_band_thresholds_come_from_config() -> None:
    strict = DecisionConfig(refuted=0.2, weakly_refuted=0.4, weakly_supported=0.6, supported=0.8)
    assert band(0.75, config=strict) is Band.WEAKLY_SUPPORTED
    assert band(0.58, config=strict) is Band.UNCERTAIN
    assert band(0.25, config=strict) is Band.WEAKLY_REFUTED


def test_invalid_inputs() -> None:
    with pytest.raises(ValueError):
        claim_score([-0.1], [])
    with pytest.raises(ValueError):
        claim_score([], [math.inf])
    with pytest.raises(ValueError):
        claim_score([0.5], [], base=1.5)
    for psi in (0.0, 1.0, -0.2, 1.2, math.nan):
        with pytest.raises(ValueError):
            delta_for_score(psi)


@given(strengths, strengths, strength)
def test_adding_a_support_never_lowers_the_score(s: list[float], a: list[float], x: float) -> None:
    assert claim_score([*s, x], a) >= claim_score(s, a) - 1e-12


@given(strengths, strengths, strength)
def test_adding_an_attack_never_raises_the_score(s: list[float], a: list[float], x: float) -> None:
    assert claim_score(s, [*a, x]) <= claim_score(s, a) + 1e-12


@given(strengths, strengths)
def test_score_strictly_inside_unit_interval(s: list[float], a: list[float]) -> None:
    # §4.4: with β = 0.5 and g ∈ [0, 1) the map is confined to (0, 1).
    assert 0.0 < claim_score(s, a) < 1.0


@given(strengths, strengths)
def test_duality_of_support_and_attack(s: list[float], a: list[float]) -> None:
    # Swapping supports and attacks mirrors the score around β = 0.5 (Potyka's Duality).
    assert claim_score(s, a) + claim_score(a, s) == pytest.approx(1.0, abs=1e-12)


@given(st.floats(min_value=0.001, max_value=0.999), st.floats(min_value=0.0, max_value=1.0))
def test_delta_for_score_inverts_eq_17(psi: float, base: float) -> None:
    delta = delta_for_score(psi, base)
    if delta >= 0:
        assert claim_score([delta], [], base=base) == pytest.approx(psi, abs=1e-9)
    else:
        assert claim_score([], [-delta], base=base) == pytest.approx(psi, abs=1e-9)
