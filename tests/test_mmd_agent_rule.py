"""MMD-Agent's label rule (ReMMD Appendix D): weights, cascade, bands, unknown stages, L2."""

from __future__ import annotations

import pytest

from semv.config import BaselinesConfig, Settings
from semv.errors import ConfigError
from semv.procedures.mmd_agent._rule import (
    SIGNAL_SCORES,
    MmdStage,
    Signal,
    combine_signals,
    union_codes,
    weighted_total,
)

CFG = Settings().baselines
S = Signal


def label(t: Signal, i: Signal, c: Signal, cfg: BaselinesConfig = CFG) -> str:
    return combine_signals(t, i, c, cfg).label


def test_the_papers_constants() -> None:
    assert (CFG.mmd_w_text, CFG.mmd_w_image, CFG.mmd_w_cross) == (0.45, 0.25, 0.30)
    assert (CFG.mmd_true_band, CFG.mmd_mostly_band) == (1.5, 0.6)
    assert [SIGNAL_SCORES[s] for s in list(Signal)[:5]] == [2, 1, 0, -1, -2]


def test_weighted_total() -> None:
    assert weighted_total(2, 2, 2, CFG) == pytest.approx(2.0)
    assert weighted_total(1, -2, 0, CFG) == pytest.approx(0.45 - 0.50)
    assert weighted_total(0, 0, -1, CFG) == pytest.approx(-0.30)


def test_cascade_before_bands() -> None:
    # rule 1: text +2, image and cross supportive
    assert label(S.STRONG_SUPPORT, S.STRONG_SUPPORT, S.STRONG_SUPPORT) == "True"
    assert label(S.STRONG_SUPPORT, S.WEAK_SUPPORT, S.STRONG_SUPPORT) == "Mostly True"
    # the band alone would say True (0.9 + 0.5 + 0.3 = 1.7), the cascade says Mostly True
    assert weighted_total(2, 2, 1, CFG) >= CFG.mmd_true_band
    assert label(S.STRONG_SUPPORT, S.STRONG_SUPPORT, S.WEAK_SUPPORT) == "Mostly True"
    # rule 2: text +1, nothing refutes, total >= 1.0
    assert label(S.WEAK_SUPPORT, S.STRONG_SUPPORT, S.STRONG_SUPPORT) == "Mostly True"
    # rule 3: text -2 and both others refute
    assert label(S.STRONG_REFUTE, S.WEAK_REFUTE, S.WEAK_REFUTE) == "False"
    # rule 4: all three refute, text only weakly (total -1.0 would be Mostly False anyway;
    # with image and cross strong the band says False but the cascade says Mostly False)
    assert weighted_total(-1, -2, -2, CFG) <= -CFG.mmd_true_band
    assert label(S.WEAK_REFUTE, S.STRONG_REFUTE, S.STRONG_REFUTE) == "Mostly False"
    # rule 5: text refutes, nothing supports, total <= -0.7
    assert label(S.STRONG_REFUTE, S.MIXED, S.WEAK_REFUTE) == "Mostly False"
    rule = combine_signals(S.STRONG_REFUTE, S.MIXED, S.WEAK_REFUTE, CFG)
    assert rule.total == pytest.approx(-1.2) and "text refutes" in rule.rule


def test_bands_at_their_edges() -> None:
    # text +2 / image -2 / cross +2: total 0.9 - 0.5 + 0.6 = 1.0, no cascade rule → Mostly True
    assert label(S.STRONG_SUPPORT, S.STRONG_REFUTE, S.STRONG_SUPPORT) == "Mostly True"
    # exactly +0.6: text 0, image 0, cross +2 → Mostly True (>=); cross +1 → 0.3 → Mixture
    assert weighted_total(0, 0, 2, CFG) == pytest.approx(0.6)
    assert label(S.MIXED, S.MIXED, S.STRONG_SUPPORT) == "Mostly True"
    assert label(S.MIXED, S.MIXED, S.WEAK_SUPPORT) == "Mixture"
    # exactly -0.6 with text 0 (no cascade rule): Mostly False; -0.3: Mixture
    assert label(S.MIXED, S.MIXED, S.STRONG_REFUTE) == "Mostly False"
    assert label(S.MIXED, S.MIXED, S.WEAK_REFUTE) == "Mixture"
    # the True/False bands: text 0 cannot reach ±1.5 (max 1.1); move the bands to test them
    lowered = BaselinesConfig(mmd_true_band=1.0, mmd_mostly_band=0.6)
    assert label(S.MIXED, S.STRONG_SUPPORT, S.STRONG_SUPPORT, lowered) == "True"  # 1.1
    assert label(S.MIXED, S.STRONG_REFUTE, S.STRONG_REFUTE, lowered) == "False"  # -1.1
    assert label(S.MIXED, S.STRONG_SUPPORT, S.STRONG_SUPPORT) == "Mostly True"  # paper: 1.1
    # mixed evidence everywhere
    assert label(S.MIXED, S.MIXED, S.MIXED) == "Mixture"
    assert label(S.WEAK_SUPPORT, S.WEAK_REFUTE, S.MIXED) == "Mixture"


def test_unknown_stages_use_the_mean_of_the_known() -> None:
    assert label(S.STRONG_SUPPORT, S.UNKNOWN, S.UNKNOWN) == "Mostly True"
    assert label(S.WEAK_SUPPORT, S.UNKNOWN, S.UNKNOWN) == "Mostly True"  # mean exactly 1
    assert label(S.WEAK_SUPPORT, S.UNKNOWN, S.MIXED) == "Mixture"  # mean 0.5
    assert label(S.WEAK_REFUTE, S.UNKNOWN, S.STRONG_REFUTE) == "Mostly False"
    rule = combine_signals(S.UNKNOWN, S.UNKNOWN, S.UNKNOWN, CFG)
    assert rule.label == "Mixture" and rule.total is None


def test_l2_is_the_union_of_stage_codes_in_their_own_modality() -> None:
    codes = union_codes(
        {
            MmdStage.TEXT: ["T3", "V2"],  # V2 is not a text code: dropped
            MmdStage.IMAGE: ["V2 Visual Editing"],
            MmdStage.CROSS: ["c2", "C2", "T1"],
        }
    )
    assert codes == ("T3 Misleading Context", "V2 Visual Editing", "C2 Contextual Inconsistency")
    assert union_codes({MmdStage.TEXT: [], MmdStage.IMAGE: [], MmdStage.CROSS: []}) == ()


def test_band_order_is_validated(tmp_path: object) -> None:
    from pathlib import Path

    from semv.config import load_settings

    bad = Path(str(tmp_path)) / "bands.toml"
    bad.write_text("[baselines]\nmmd_mostly_band = 2.0\n")
    with pytest.raises(ConfigError, match=r"bands\.toml"):
        load_settings(bad)
