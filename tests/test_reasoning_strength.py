"""Argument strength, Eq. 14 of the SEMV paper (§4.4).

Expected values are hand calculations of Eq. 14 with the paper's weights
(.20 r + .25 q + .15 d_src + .15 d_mod + .20 prov + .05 ℓ; η_v = 0.25, η_u = 0.85).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from semv.config import StrengthConfig
from semv.model import Band, StrengthFeatures
from tests.paper_reasoning import argument_strength, band, claim_score, strength_from_features

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
count = st.integers(min_value=0, max_value=20)
length = st.integers(min_value=0, max_value=2000)


def test_maximal_verified_argument_has_strength_one_and_is_supported() -> None:
    # §4.4: "A single verified argument with maximal component scores attains w_a = 1, so one
    # such argument is sufficient to reach the supported band."
    w = argument_strength(1.0, 1.0, 3, 2, 1.0, 280, True, False)
    assert w == pytest.approx(1.0, abs=1e-12)
    assert band(claim_score([w], [])) is Band.SUPPORTED


def test_hand_computed_example() -> None:
    # r=.8, q=.6, one source (1/3), one modality (1/2), prov=.5, |t|=140 (ℓ=.5):
    # .16 + .15 + .05 + .075 + .10 + .025 = 0.56
    args = (0.8, 0.6, 1, 1, 0.5, 140)
    assert argument_strength(*args, True, False) == pytest.approx(0.56)
    assert argument_strength(*args, False, False) == pytest.approx(0.56 * 0.25)  # 0.14
    assert argument_strength(*args, True, True) == pytest.approx(0.56 * 0.85)  # 0.476
    assert argument_strength(*args, False, True) == pytest.approx(0.56 * 0.25 * 0.85)  # 0.119


def test_specificity_floor_and_caps() -> None:
    # Everything zero: only ℓ = clip(0/280, .25, 1) = .25 contributes, .05 × .25 = .0125.
    assert argument_strength(0.0, 0.0, 0, 0, 0.0, 0, True, False) == pytest.approx(0.0125)
    # ℓ saturates at |t| = 280; diversity saturates at 3 sources / 2 modalities.
    assert argument_strength(0.0, 0.0, 0, 0, 0.0, 10_000, True, False) == pytest.approx(0.05)
    assert argument_strength(0.0, 0.0, 3, 0, 0.0, 0, True, False) == argument_strength(
        0.0, 0.0, 30, 0, 0.0, 0, True, False
    )
    assert argument_strength(0.0, 0.0, 0, 2, 0.0, 0, True, False) == pytest.approx(0.15 + 0.0125)
    # 2 sources of a cap of 3: .15 × 2/3 = .10
    assert argument_strength(0.0, 0.0, 2, 0, 0.0, 0, True, False) == pytest.approx(0.1125)


def test_constants_come_from_the_config() -> None:
    only_r = StrengthConfig(
        w_reliability=1.0,
        w_relevance=0.0,
        w_source_diversity=0.0,
        w_modality_diversity=0.0,
        w_provenance=0.0,
        w_specificity=0.0,
    )
    assert argument_strength(0.3, 1.0, 3, 2, 1.0, 280, True, False, config=only_r) == 0.3
    halved = StrengthConfig(eta_unverified=0.5, eta_uncertain=0.5)
    full = argument_strength(1.0, 1.0, 3, 2, 1.0, 280, False, True, config=halved)
    assert full == pytest.approx(0.25)
    caps = StrengthConfig(source_cap=1, modality_cap=1, specificity_chars=10)
    assert argument_strength(0.0, 0.0, 1, 1, 0.0, 10, True, False, config=caps) == pytest.approx(
        0.15 + 0.15 + 0.05
    )


def test_strength_from_features_matches() -> None:
    features = StrengthFeatures(
        reliability=0.8,
        relevance=0.6,
        n_sources=1,
        n_modalities=1,
        provenance_fraction=0.5,
        text_length=140,
    )
    assert strength_from_features(features, True, False) == pytest.approx(0.56)
    assert strength_from_features(features, False, True) == argument_strength(
        0.8, 0.6, 1, 1, 0.5, 140, False, True
    )


@pytest.mark.parametrize(
    "args",
    [
        (1.1, 0.5, 1, 1, 0.5, 10),
        (0.5, -0.1, 1, 1, 0.5, 10),
        (0.5, 0.5, -1, 1, 0.5, 10),
        (0.5, 0.5, 1, -2, 0.5, 10),
        (0.5, 0.5, 1, 1, float("nan"), 10),
        (0.5, 0.5, 1, 1, 0.5, -5),
    ],
)
def test_out_of_domain_components_are_rejected(
    args: tuple[float, float, int, int, float, int],
) -> None:
    with pytest.raises(ValueError):
        argument_strength(*args, True, False)


@given(unit, unit, count, count, unit, length, st.booleans(), st.booleans())
def test_strength_in_unit_interval(
    r: float, q: float, ns: int, nm: int, prov: float, n: int, v: bool, u: bool
) -> None:
    assert 0.0 <= argument_strength(r, q, ns, nm, prov, n, v, u) <= 1.0


@given(
    unit,
    unit,
    count,
    count,
    unit,
    length,
    st.booleans(),
    st.booleans(),
    st.integers(min_value=0, max_value=5),
    st.floats(min_value=0.0, max_value=1.0),
    st.integers(min_value=0, max_value=500),
)
def test_strength_monotone_in_each_component(
    r: float,
    q: float,
    ns: int,
    nm: int,
    prov: float,
    n: int,
    v: bool,
    u: bool,
    extra: int,
    frac: float,
    extra_len: int,
) -> None:
    base = argument_strength(r, q, ns, nm, prov, n, v, u)

    def up(x: float) -> float:
        return x + (1.0 - x) * frac

    tol = 1e-12
    assert argument_strength(up(r), q, ns, nm, prov, n, v, u) >= base - tol
    assert argument_strength(r, up(q), ns, nm, prov, n, v, u) >= base - tol
    assert argument_strength(r, q, ns + extra, nm, prov, n, v, u) >= base - tol
    assert argument_strength(r, q, ns, nm + extra, prov, n, v, u) >= base - tol
    assert argument_strength(r, q, ns, nm, up(prov), n, v, u) >= base - tol
    assert argument_strength(r, q, ns, nm, prov, n + extra_len, v, u) >= base - tol
    # verification raises, uncertainty lowers the strength
    assert argument_strength(r, q, ns, nm, prov, n, True, u) >= base - tol
    assert argument_strength(r, q, ns, nm, prov, n, v, False) >= base - tol
