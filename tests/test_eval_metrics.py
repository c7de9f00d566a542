"""Evaluation metrics against hand-computed small cases and the papers' own numbers."""

from __future__ import annotations

import datetime as dt
import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from semv.eval import (
    BinaryCounts,
    abstention_rate,
    accuracy,
    auroc,
    case_accuracy,
    cluster_bootstrap,
    expected_calibration_error,
    field_coverage,
    hamming_loss,
    multiclass_report,
    multilabel_report,
    normalize_url,
    subset_accuracy,
    temporal_outcome,
    temporal_rates,
    two_proportion_z_test,
    url_f1,
    url_prf,
    wilson_interval,
)
from semv.eval._stats import cluster_bootstrap_mean


def test_multiclass_by_hand() -> None:
    gold = ["a", "a", "a", "b", "b", "c"]
    pred = ["a", "a", "b", "b", "c", "c"]
    r = multiclass_report(pred, gold, ["a", "b", "c"])
    assert r.accuracy == pytest.approx(4 / 6)
    # a: tp 2 fp 0 fn 1 -> P 1, R 2/3; b: tp 1 fp 1 fn 1 -> 1/2, 1/2; c: tp 1 fp 1 fn 0 -> 1/2, 1
    assert r.per_class["a"].precision == 1.0 and r.per_class["a"].recall == pytest.approx(2 / 3)
    assert r.per_class["b"].f1 == pytest.approx(0.5)
    assert r.per_class["c"].f1 == pytest.approx(2 / 3)
    macro = r.averages["macro"]
    assert macro.precision == pytest.approx((1 + 0.5 + 0.5) / 3)
    assert macro.recall == pytest.approx((2 / 3 + 0.5 + 1) / 3)
    assert macro.f1 == pytest.approx((0.8 + 0.5 + 2 / 3) / 3)
    weighted = r.averages["weighted"]
    assert weighted.f1 == pytest.approx((3 * 0.8 + 2 * 0.5 + 1 * 2 / 3) / 6)
    assert r.averages["micro"].f1 == pytest.approx(4 / 6)  # single-label: micro = accuracy
    assert r.confusion == [[2, 1, 0], [0, 1, 1], [0, 0, 1]]


def test_abstention_is_a_miss_in_multiclass() -> None:
    r = multiclass_report(["", "a"], ["a", "a"], ["a", "b"])
    assert r.accuracy == 0.5 and r.per_class["a"].recall == 0.5 and r.per_class["a"].precision == 1


def test_multilabel_by_hand() -> None:
    labels = ["x", "y", "z"]
    gold = [{"x"}, {"x", "y"}, set(), set()]
    pred = [{"x"}, {"y", "z"}, {"z"}, set()]
    r = multilabel_report(pred, gold, labels)
    # slots wrong: s1 0, s2 x,z = 2, s3 z = 1, s4 0 -> 3 of 12
    assert r.hamming_loss == pytest.approx(3 / 12)
    assert r.subset_accuracy == pytest.approx(2 / 4)
    assert r.per_class["x"].recall == pytest.approx(0.5) and r.per_class["x"].precision == 1.0
    assert r.per_class["z"].precision == 0.0 and r.per_class["z"].support == 0
    # samples: s1 P1 R1 F1 1; s2 P 1/2 R 1/2 F 1/2; s3 0 0 0; s4 empty/empty -> 0 (zero_division)
    samples = r.averages["samples"]
    assert samples.precision == pytest.approx(1.5 / 4)
    assert samples.f1 == pytest.approx(1.5 / 4)
    micro = r.averages["micro"]  # tp 2 (x, y), fp 2 (z, z), fn 1 (x)
    assert micro.precision == pytest.approx(2 / 4) and micro.recall == pytest.approx(2 / 3)
    assert hamming_loss(pred, gold, labels) == r.hamming_loss
    assert subset_accuracy([{"x", "unknown"}], [{"x"}], labels) == 1.0


def test_ece_bins_by_hand() -> None:
    # 10 bins: 0.15 and 0.19 share bin 1 (acc 1/2, conf 0.17), 0.95 in bin 9 (acc 0, conf .95)
    conf = [0.15, 0.19, 0.95]
    correct = [True, False, False]
    expected = 2 / 3 * abs(0.5 - 0.17) + 1 / 3 * abs(0.0 - 0.95)
    assert expected_calibration_error(conf, correct, bins=10) == pytest.approx(expected)
    # with 2 bins the first two land with nothing else, the last alone: same here
    assert expected_calibration_error(conf, correct, bins=2) == pytest.approx(expected)
    # 1.0 goes to the last bin (closed), a perfectly calibrated bin has zero error
    assert expected_calibration_error([1.0, 1.0], [True, True], bins=5) == 0.0


def test_wilson_at_zero_and_n() -> None:
    lo, hi = wilson_interval(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.1611, abs=1e-4)
    lo, hi = wilson_interval(20, 20)
    assert hi == 1.0 and lo == pytest.approx(1 - 0.1611, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # Table 4's SEMV rows on n = 1,700: Qwen3.6 91.88% -> [90.5, 93.1], Nemotron3 91.76% ->
    # [90.4, 93.0], InternVL3.5 90.65% -> [89.2, 91.9]
    for acc, expected in ((0.9188, (90.5, 93.1)), (0.9176, (90.4, 93.0)), (0.9065, (89.2, 91.9))):
        lo, hi = wilson_interval(round(acc * 1700), 1700)
        assert (round(100 * lo, 1), round(100 * hi, 1)) == expected


def test_z_test_on_the_papers_numbers() -> None:
    qwen = two_proportion_z_test(0.9188, 1700, 0.8910, 1700)
    assert qwen.p_value == pytest.approx(0.006, abs=0.0005)
    nemotron = two_proportion_z_test(0.9176, 1700, 0.8910, 1700)
    assert nemotron.p_value == pytest.approx(0.009, abs=0.0015)
    gemma = two_proportion_z_test(0.8935, 1700, 0.8910, 1700)
    assert gemma.p_value == pytest.approx(0.820, abs=0.01)
    internvl = two_proportion_z_test(0.9065, 1700, 0.8910, 1700)
    assert internvl.p_value == pytest.approx(0.140, abs=0.01)
    assert two_proportion_z_test(0.5, 10, 0.5, 10).p_value == pytest.approx(1.0)


def test_auroc_by_hand_with_ties() -> None:
    # positives 0.9, 0.5; negatives 0.5, 0.1: pairs (0.9>0.5),(0.9>0.1),(0.5=0.5 -> 1/2),(0.5>0.1)
    assert auroc([0.9, 0.5, 0.5, 0.1], [True, True, False, False]) == pytest.approx(3.5 / 4)
    assert auroc([0.1, 0.9], [True, False]) == 0.0
    with pytest.raises(ValueError, match="positive and one negative"):
        auroc([0.3, 0.4], [True, True])


@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=2, max_size=30))
def test_auroc_flips_with_the_scores(pairs: list[tuple[float, bool]]) -> None:
    scores = [s for s, _ in pairs]
    labels = [b for _, b in pairs]
    if all(labels) or not any(labels):
        return
    assert auroc(scores, labels) + auroc([-s for s in scores], labels) == pytest.approx(1.0)


def test_cluster_bootstrap() -> None:
    outcomes = [1, 1, 0, 0, 1, 1]
    clusters = ["a", "a", "b", "b", "c", "c"]
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    one = cluster_bootstrap(outcomes, clusters, mean, replicates=2000, seed=3)
    again = cluster_bootstrap(outcomes, clusters, mean, replicates=2000, seed=3)
    assert one == again and one.estimate == pytest.approx(4 / 6)
    # a cluster is drawn whole: every replicate mean is k/3 for k in 0..3
    assert one.low == 0.0 and one.high == 1.0
    # with one cluster there is nothing to resample: a degenerate interval
    single = cluster_bootstrap(outcomes, ["x"] * 6, mean, replicates=50)
    assert single.low == single.high == pytest.approx(4 / 6)
    with pytest.raises(ValueError, match="empty"):
        cluster_bootstrap([], [], mean)


@pytest.mark.parametrize("seed", [0, 3, 13, 2**40 + 7])
@pytest.mark.parametrize(("n", "n_clusters"), [(1, 1), (7, 3), (145, 145), (500, 100)])
def test_cluster_bootstrap_mean_is_the_generic_bootstrap_to_the_bit(
    seed: int, n: int, n_clusters: int
) -> None:
    """The vectorised bootstrap of a mean replays random.Random(seed)'s draws: the interval is
    exactly the generic one's (the metrics files of an evaluation must not change)."""
    rng = random.Random(seed + n)
    outcomes = [rng.random() < 0.6 for _ in range(n)]
    clusters = [f"c{rng.randrange(n_clusters)}" for _ in range(n)]
    generic = cluster_bootstrap(
        outcomes, clusters, lambda xs: sum(xs) / len(xs), replicates=1500, level=0.9, seed=seed
    )
    fast = cluster_bootstrap_mean(outcomes, clusters, replicates=1500, level=0.9, seed=seed)
    assert fast == generic
    with pytest.raises(ValueError, match="empty"):
        cluster_bootstrap_mean([], [])


def test_mv2026_accuracy_and_abstention() -> None:
    gold = ["false-context", "verified", "insufficient-evidence", "verified"]
    pred = ["false-context", "uncertain", "insufficient-evidence", "verified"]
    # the abstaining insufficient-evidence counts as an error even when it matches (Eq. 33)
    assert case_accuracy(pred, gold) == 50.0
    assert abstention_rate(pred) == 50.0


def test_url_normalization_and_f1() -> None:
    assert normalize_url("HTTPS://www.Example.org/a/b/?utm_source=x&b=2&a=1#frag") == (
        "example.org/a/b?a=1&b=2"
    )
    assert normalize_url("http://example.org:80/a") == normalize_url("https://example.org/a/")
    assert normalize_url("https://example.org:8443/a") == "example.org:8443/a"
    scores = url_prf(
        ["https://a.org/x", "https://b.org/y"], ["http://www.a.org/x/", "https://c.org"]
    )
    assert (scores.precision, scores.recall, scores.f1) == (0.5, 0.5, 0.5)
    assert url_prf([], ["https://a.org"]).f1 == 0.0  # no URL cited: F1 = 0
    assert url_f1([["https://a.org"], []], [["https://a.org"], ["https://b.org"]]) == 50.0


def test_temporal_outcomes() -> None:
    event, posted = dt.date(2025, 4, 16), dt.date(2025, 5, 7)
    assert temporal_outcome(event, event, [posted]).recovered
    confused = temporal_outcome(posted, event, [posted])
    assert confused.confused and not confused.recovered
    assert temporal_outcome(dt.date(2025, 4, 17), event, [posted], tolerance_days=1).recovered
    assert temporal_outcome(None, event, [posted]) == temporal_outcome(dt.date(2020, 1, 1), event)
    outcomes = [temporal_outcome(event, event), confused, temporal_outcome(None, event)]
    temp, conf = temporal_rates(outcomes)
    assert temp == pytest.approx(100 / 3) and conf == pytest.approx(100 / 3)


def test_field_coverage_eq36() -> None:
    fields = ["a", "b", "c", "d"]
    cases = [{"a": True, "b": True, "c": True, "d": True}, {"a": True, "b": False}]
    assert field_coverage(cases, fields) == pytest.approx(100 * 5 / 8)


def test_binary_counts_are_unchanged() -> None:
    c = BinaryCounts(tp=3, fp=1, tn=5, fn=1)
    assert accuracy(c) == 0.8 and math.isclose(c.n, 10)
