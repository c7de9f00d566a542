"""Clash resolution (SEMV §4.4) and the judge adjustment of A-QBAF MV2026 §2.6.1.

§4.4: "When the strongest support and attack both reach 0.55 and differ by at most 0.25, the
clash resolver flags a major factual conflict, reduces the competing argument scores, and
re-propagates the graph." The reduction factor is ``ClashConfig.reduction`` (0.5).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from semv.config import ClashConfig
from semv.model import ClashRecord
from semv.reasoning import ClashOutcome, judge_adjustment
from tests.paper_reasoning import claim_score, resolve_clash


def test_clash_flagged_and_competing_arguments_halved() -> None:
    out = resolve_clash({"s1": 0.80, "s2": 0.30}, {"a1": 0.60, "a2": 0.10})
    assert out.clash
    assert (out.support_id, out.support_strength) == ("s1", 0.80)
    assert (out.attack_id, out.attack_strength) == ("a1", 0.60)
    # both competing arguments (≥ 0.55) are halved; the weaker ones are untouched
    assert out.supports == pytest.approx({"s1": 0.40, "s2": 0.30})
    assert out.attacks == pytest.approx({"a1": 0.30, "a2": 0.10})
    assert out.reduced == pytest.approx({"s1": 0.40, "a1": 0.30})
    # re-propagation: before Δ = 1.1 − 0.7 = 0.4; after Δ = 0.7 − 0.4 = 0.3
    before = claim_score([0.80, 0.30], [0.60, 0.10])
    after = claim_score(out.supports.values(), out.attacks.values())
    assert before == pytest.approx(0.5 + 0.5 * 0.16 / 1.16)
    assert after == pytest.approx(0.5 + 0.5 * 0.09 / 1.09)
    assert abs(after - 0.5) < abs(before - 0.5)


def test_every_argument_at_or_above_threshold_is_reduced() -> None:
    out = resolve_clash({"s1": 0.9, "s2": 0.7}, {"a1": 0.8, "a2": 0.55, "a3": 0.5})
    assert out.clash
    assert out.reduced == pytest.approx({"s1": 0.45, "s2": 0.35, "a1": 0.4, "a2": 0.275})
    assert out.attacks["a3"] == 0.5


def test_boundaries_are_inclusive() -> None:
    # both reach 0.55 exactly and differ by exactly 0.25: a clash
    assert resolve_clash({"s": 0.55}, {"a": 0.80}).clash
    assert resolve_clash({"s": 0.80}, {"a": 0.55}).clash
    assert resolve_clash({"s": 0.55}, {"a": 0.55}).clash
    # just outside either condition: no clash, strengths unchanged
    far = resolve_clash({"s": 0.55}, {"a": 0.81})
    assert not far.clash
    assert far.supports == {"s": 0.55} and far.attacks == {"a": 0.81} and far.reduced == {}
    assert not resolve_clash({"s": 0.54}, {"a": 0.60}).clash
    assert not resolve_clash({"s": 0.90}, {"a": 0.54}).clash


def test_one_sided_or_empty_graphs_never_clash() -> None:
    out = resolve_clash({"s": 0.9}, {})
    assert not out.clash
    assert out.support_id == "s" and out.attack_id is None and out.attack_strength is None
    assert out.record() is None
    empty = resolve_clash({}, {})
    assert not empty.clash and empty.support_id is None


def test_ties_break_by_smallest_id() -> None:
    out = resolve_clash({"s_b": 0.7, "s_a": 0.7}, {"a_z": 0.6, "a_y": 0.6})
    assert out.support_id == "s_a"
    assert out.attack_id == "a_y"


def test_record_matches_data_model() -> None:
    out = resolve_clash({"arg:what:sup:1": 0.7}, {"arg:what:att:2": 0.65})
    record = out.record()
    assert record == ClashRecord(
        support="arg:what:sup:1",
        attack="arg:what:att:2",
        support_strength=0.7,
        attack_strength=0.65,
        reduced={"arg:what:sup:1": 0.35, "arg:what:att:2": 0.325},
    )


def test_constants_come_from_config() -> None:
    config = ClashConfig(threshold=0.4, margin=0.1, reduction=0.0)
    out = resolve_clash({"s": 0.45}, {"a": 0.5}, config=config)
    assert out.clash
    assert out.supports == {"s": 0.0} and out.attacks == {"a": 0.0}
    assert not resolve_clash({"s": 0.45}, {"a": 0.6}, config=config).clash


def test_invalid_inputs() -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        resolve_clash({"s": 1.2}, {})
    with pytest.raises(ValueError):
        resolve_clash({}, {"a": math.nan})
    with pytest.raises(ValueError, match="both sides"):
        resolve_clash({"x": 0.6}, {"x": 0.6})


unit = st.floats(min_value=0.0, max_value=1.0)
sides = st.dictionaries(st.text("abc", min_size=1, max_size=3), unit, max_size=5)


@given(sides, sides)
def test_resolution_never_raises_strengths(sup: dict[str, float], att: dict[str, float]) -> None:
    sup = {f"s{k}": v for k, v in sup.items()}
    att = {f"a{k}": v for k, v in att.items()}
    out = resolve_clash(sup, att)
    assert isinstance(out, ClashOutcome)
    assert out.supports.keys() == sup.keys() and out.attacks.keys() == att.keys()
    for key, value in {**out.supports, **out.attacks}.items():
        assert 0.0 <= value <= {**sup, **att}[key]
    if not out.clash:
        assert out.supports == sup and out.attacks == att


def test_judge_adjustment() -> None:
    # A-QBAF MV2026 §2.6.1: Δτ(a) = β(2w − 1)
    assert judge_adjustment(1.0, 0.1) == pytest.approx(0.1)
    assert judge_adjustment(0.0, 0.1) == pytest.approx(-0.1)
    assert judge_adjustment(0.5, 0.1) == 0.0
    assert judge_adjustment(0.75, 0.2) == pytest.approx(0.1)
    with pytest.raises(ValueError):
        judge_adjustment(1.5, 0.1)
    with pytest.raises(ValueError):
        judge_adjustment(0.5, -0.1)
