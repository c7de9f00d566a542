"""Final decision aggregation (SEMV §4.4), confidence (Eq. 19), p(OOC) (Eq. 20), contracts.

Rules, in priority order, as stated in §4.4 "Final Decision Aggregation"; confidence floors
from Table S4 ("verified 0.65; manipulated/false-context/mostly verified 0.55; partially
verified 0.45; insufficient evidence 0.35").
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from semv.config import AggregationConfig, ConfidenceConfig, Settings
from semv.model import (
    AggregationRule,
    Band,
    CosmosLabel,
    Dimension,
    InternalLabel,
    SubclaimDecision,
)
from semv.reasoning import COSMOS, ooc_probability
from tests.paper_reasoning import INTERNAL, aggregate, band, confidence, contract

D = Dimension
L = InternalLabel


def dec(dim: Dimension, score: float) -> SubclaimDecision:
    return SubclaimDecision(
        subclaim=f"claim:{dim.value}",
        dimension=dim,
        score=score,
        band=band(score),
        support_total=0.0,
        attack_total=0.0,
    )


def decisions(**scores: float) -> list[SubclaimDecision]:
    return [dec(Dimension(name), score) for name, score in scores.items()]


# ---- the seven rules, in priority order ---------------------------------------------------


def test_rule_1_refuted_authenticity_is_manipulated() -> None:
    out = aggregate(decisions(what=0.9, where=0.8, authenticity=0.2))
    assert (out.label, out.rule_number) == (L.MANIPULATED_OR_SYNTHETIC, 1)
    assert "authenticity" in out.rule
    # rule 1 outranks rule 2 (supported content + refuted context)
    out = aggregate(decisions(what=0.9, where=0.1, authenticity=0.2))
    assert out.label is L.MANIPULATED_OR_SYNTHETIC
    # only a refuted band counts: weakly-refuted authenticity does not fire rule 1
    out = aggregate(decisions(what=0.9, authenticity=0.35))
    assert out.label is not L.MANIPULATED_OR_SYNTHETIC


def test_the_rule_that_fired_is_a_number_and_a_sentence() -> None:
    out = aggregate([dec(D.WHAT, 0.9), dec(D.WHERE, 0.1)])
    assert out.fired.number == 2
    assert out.fired.sentence.startswith("where is refuted while the event content (what)")
    assert out.rule == f"Rule 2: {out.fired.sentence}"  # the text is built from the two
    fallback = aggregate([dec(D.WHO, 0.5), dec(D.WHY, 0.5)], argued=True)
    assert fallback.fired == AggregationRule(
        number=5, sentence="2 of 2 subclaims are uncertain (at least 1), so the case is uncertain."
    )


@pytest.mark.parametrize("context", [D.WHERE, D.WHEN, D.WHO, D.WHY])
@pytest.mark.parametrize("what_score", [0.9, 0.6])  # supported, weakly-supported
@pytest.mark.parametrize("context_score", [0.1, 0.4])  # refuted, weakly-refuted
def test_rule_2_supported_content_with_refuted_context_is_false_context(
    context: Dimension, what_score: float, context_score: float
) -> None:
    out = aggregate([dec(D.WHAT, what_score), dec(context, context_score)])
    assert (out.label, out.rule_number) == (L.FALSE_CONTEXT, 2)
    assert context.value in out.rule


def test_rule_2_needs_unrefuted_content_and_a_context_dimension() -> None:
    # Refuted content: not false context (a false content is not a false context).
    assert aggregate(decisions(what=0.4, where=0.1)).label is not L.FALSE_CONTEXT
    assert aggregate(decisions(what=0.1, why=0.1)).label is not L.FALSE_CONTEXT
    # Content that no evidence speaks about (uncertain) does not block rule 2: "supported
    # event content" is read as "content not refuted" (see the rule's docstring and
    # docs/architecture.md, "Aggregation").
    out = aggregate(decisions(what=0.5, where=0.1))
    assert (out.label, out.rule_number) == (L.FALSE_CONTEXT, 2)
    assert "what) is not refuted" in out.rule
    # no refuted context dimension: not false context, whatever the content
    assert aggregate(decisions(what=0.5)).label is not L.FALSE_CONTEXT
    # refuted authenticity (weakly) is not a context dimension
    assert aggregate(decisions(what=0.9, authenticity=0.4)).label is not L.FALSE_CONTEXT
    # rule 2 outranks rule 3: all core supported but the caption context (why) refuted
    out = aggregate(decisions(what=0.9, where=0.9, when=0.9, who=0.9, authenticity=0.9, why=0.2))
    assert out.label is L.FALSE_CONTEXT


def test_rule_3_all_present_core_supported_is_verified() -> None:
    out = aggregate(decisions(what=0.9, where=0.8, when=0.85, who=0.75, authenticity=0.95, why=0.5))
    assert (out.label, out.rule_number) == (L.VERIFIED, 3)
    # mean of all six scores: 4.75 / 6
    assert out.mean_score == pytest.approx(4.75 / 6)


def test_rule_3_mostly_verified_when_core_mean_below_threshold() -> None:
    config = AggregationConfig(verified_mean=0.85)
    out = aggregate(decisions(what=0.8, where=0.8, authenticity=0.9), config=config)
    # core mean = 2.5 / 3 ≈ 0.833 < 0.85
    assert (out.label, out.rule_number) == (L.MOSTLY_VERIFIED, 3)
    out = aggregate(decisions(what=0.9, where=0.8, authenticity=0.9), config=config)
    assert out.label is L.VERIFIED  # 2.6 / 3 ≈ 0.867


@given(st.lists(st.floats(min_value=0.7001, max_value=1.0), min_size=1, max_size=5))
def test_with_paper_constants_all_supported_core_is_always_verified(scores: list[float]) -> None:
    # A supported score exceeds 0.70 (Eq. 18), so the mean does too: the mostly-verified
    # branch needs verified_mean above the supported band.
    core = [D.WHAT, D.WHERE, D.WHEN, D.WHO, D.AUTHENTICITY]
    out = aggregate([dec(dim, s) for dim, s in zip(core, scores, strict=False)])
    assert out.label is L.VERIFIED


def test_rule_3_present_dimensions_follow_asserted() -> None:
    ds = decisions(what=0.9, where=0.5, when=0.9, authenticity=0.9)
    # where is uncertain, so with every dimension present rule 3 does not fire...
    assert aggregate(ds).label is not L.VERIFIED
    # ...but when the claim asserts nothing about where, it is not a present dimension
    asserted = {D.WHAT: True, D.WHERE: False, D.WHEN: True, D.AUTHENTICITY: True}
    out = aggregate(ds, asserted=asserted)
    assert (out.label, out.rule_number) == (L.VERIFIED, 3)
    # a dimension missing from `asserted` is not present; no present dimension: no rule 3
    out = aggregate(decisions(what=0.9, when=0.9), asserted={})
    assert out.rule_number != 3


def test_rule_4_weakly_supported_subclaim_is_partially_verified() -> None:
    out = aggregate(decisions(what=0.6, where=0.5, when=0.5))
    assert (out.label, out.rule_number) == (L.PARTIALLY_VERIFIED, 4)
    # a weakly-supported core dimension blocks rule 3 and lands in rule 4
    out = aggregate(decisions(what=0.9, where=0.9, when=0.65, who=0.9, authenticity=0.9))
    assert (out.label, out.rule_number) == (L.PARTIALLY_VERIFIED, 4)


def test_rule_5_enough_uncertain_subclaims() -> None:
    # Rule 2 fires on uncertain content with a refuted context, so these cases
    # keep rule 2 out by a refuted `what`.
    # K = 6: ⌊6/2⌋ = 3 uncertain needed
    # (a supported subclaim would now be rule 4, so none is supported here)
    six = decisions(what=0.2, where=0.5, when=0.5, who=0.5, why=0.2, authenticity=0.4)
    out = aggregate(six)
    assert (out.label, out.rule_number) == (L.UNCERTAIN, 5)
    # two of six is not enough; mean = 2.0/6 = 0.33 < 0.45 → rule 6
    out = aggregate(decisions(what=0.2, where=0.5, when=0.5, who=0.2, why=0.2, authenticity=0.4))
    assert out.rule_number == 6
    # K = 1: max(1, 0) = 1
    assert aggregate(decisions(what=0.5)).rule_number == 5
    # rule 5 outranks rule 6 (mean here is 0.3625 < 0.45)
    out = aggregate(decisions(what=0.25, where=0.45, when=0.45, who=0.3))
    assert (out.label, out.rule_number) == (L.UNCERTAIN, 5)


def test_rule_6_low_mean_is_insufficient_evidence() -> None:
    # K = 4, one uncertain (< 2), mean = (0.2 + 0.35 + 0.5 + 0.4) / 4 = 0.3625
    out = aggregate(decisions(what=0.2, where=0.35, when=0.5, who=0.4))
    assert (out.label, out.rule_number) == (L.INSUFFICIENT_EVIDENCE, 6)
    assert out.mean_score == pytest.approx(0.3625)


def test_rule_7_otherwise_uncertain() -> None:
    # nothing at least weakly supported (rule 4), a refuted context with weakly refuted
    # content (not rule 2), two uncertain of six (not rule 5) and a mean of 0.456 (not rule 6)
    out = aggregate(
        decisions(what=0.449, where=0.29, when=0.449, who=0.55, why=0.55, authenticity=0.449)
    )
    assert (out.label, out.rule_number) == (L.UNCERTAIN, 7)
    # a supported subclaim is at least weakly supported: rule 4, never rule 7
    out = aggregate(decisions(what=0.8, where=0.8, when=0.5, who=0.8, why=0.8, authenticity=0.8))
    assert (out.label, out.rule_number) == (L.PARTIALLY_VERIFIED, 4)
    assert set(out.deciding) == {D.WHAT, D.WHERE, D.WHO, D.WHY, D.AUTHENTICITY}


def test_aggregation_constants_come_from_config() -> None:
    ds = decisions(what=0.2, where=0.35, when=0.5, who=0.4)
    assert aggregate(ds, config=AggregationConfig(insufficient_mean=0.3)).rule_number == 7


def test_aggregate_rejects_inconsistent_input() -> None:
    with pytest.raises(ValueError, match="at least one"):
        aggregate([])
    wrong = SubclaimDecision(
        subclaim="claim:what",
        dimension=D.WHAT,
        score=0.9,
        band=Band.REFUTED,
        support_total=1.0,
        attack_total=0.0,
    )
    with pytest.raises(ValueError, match="does not match"):
        aggregate([wrong])
    with pytest.raises(ValueError, match="two decisions"):
        aggregate([dec(D.WHAT, 0.9), dec(D.WHAT, 0.8)])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        aggregate([dec(D.WHAT, 0.9).model_copy(update={"score": 1.5, "band": Band.SUPPORTED})])


# ---- Eq. 19 and Eq. 20 -----------------------------------------------------------------


def test_confidence_floors_of_table_s4() -> None:
    floors = {
        L.VERIFIED: 0.65,
        L.MANIPULATED_OR_SYNTHETIC: 0.55,
        L.FALSE_CONTEXT: 0.55,
        L.MOSTLY_VERIFIED: 0.55,
        L.PARTIALLY_VERIFIED: 0.45,
        L.INSUFFICIENT_EVIDENCE: 0.35,
        L.UNCERTAIN: 0.0,
    }
    for label, floor in floors.items():
        # at ψ̄ = 0.5 the distance term is 0: the floor is the confidence
        assert confidence(0.5, label) == pytest.approx(floor), label


def test_confidence_distance_term() -> None:
    # Eq. 19: γ = max(2|ψ̄ − 0.5|, floor)
    assert confidence(0.95, L.VERIFIED) == pytest.approx(0.9)
    assert confidence(0.75, L.VERIFIED) == pytest.approx(0.65)  # 0.5 < floor 0.65
    assert confidence(0.1, L.INSUFFICIENT_EVIDENCE) == pytest.approx(0.8)
    assert confidence(0.6, L.UNCERTAIN) == pytest.approx(0.2)
    assert confidence(0.5, L.VERIFIED, config=ConfidenceConfig(verified=0.9)) == 0.9
    with pytest.raises(ValueError):
        confidence(1.2, L.VERIFIED)


@given(st.floats(min_value=0.0, max_value=1.0), st.sampled_from(list(InternalLabel)))
def test_confidence_in_unit_interval(mean: float, label: InternalLabel) -> None:
    assert 0.0 <= confidence(mean, label) <= 1.0


def test_ooc_probability_eq_20() -> None:
    assert ooc_probability(0.3, L.FALSE_CONTEXT) == pytest.approx(0.3)
    assert ooc_probability(0.8, L.FALSE_CONTEXT) == pytest.approx(0.8)
    for label in InternalLabel:
        if label is not L.FALSE_CONTEXT:
            assert ooc_probability(0.8, label) == pytest.approx(0.2)


# ---- label contracts ---------------------------------------------------------------------


def test_contract_lookup() -> None:
    assert contract("cosmos") is COSMOS
    assert contract("COSMOS") is COSMOS
    assert contract("internal").name == "internal"
    with pytest.raises(KeyError) as info:
        contract("fakeddit")
    assert "cosmos" in str(info.value) and "internal" in str(info.value)


def test_internal_contract() -> None:
    assert INTERNAL.labels == tuple(label.value for label in InternalLabel)
    assert len(INTERNAL.labels) == 7 and "uncertain" in INTERNAL.labels
    assert INTERNAL.map(L.FALSE_CONTEXT) == "false-context"
    # ψ̄ = 0.9, verified: γ = 0.8 on the label, 0.2 spread over the six others
    p = INTERNAL.probabilities(0.9, L.VERIFIED)
    assert p["verified"] == pytest.approx(0.8)
    for label in INTERNAL.labels:
        if label != "verified":
            assert p[label] == pytest.approx(0.2 / 6)
    # uncertain at ψ̄ = 0.5 has γ = 0: the chosen mass is raised to 1/7 (uniform)
    p = INTERNAL.probabilities(0.5, L.UNCERTAIN)
    assert all(v == pytest.approx(1 / 7) for v in p.values())
    # floors from a custom confidence section
    custom = contract("internal", config=ConfidenceConfig(verified=0.95))
    assert custom.probabilities(0.9, L.VERIFIED)["verified"] == pytest.approx(0.95)


@given(st.floats(min_value=0.0, max_value=1.0), st.sampled_from(list(InternalLabel)))
def test_internal_probabilities_sum_to_one_and_peak_at_the_label(
    mean: float, label: InternalLabel
) -> None:
    p = INTERNAL.probabilities(mean, label)
    assert tuple(p) == INTERNAL.labels
    assert math.fsum(p.values()) == pytest.approx(1.0)
    chosen = INTERNAL.map(label)
    assert p[chosen] == max(p.values())
    if confidence(mean, label) > 1 / 7:
        assert max(p, key=p.__getitem__) == chosen
        assert all(p[chosen] > v for k, v in p.items() if k != chosen)


def test_cosmos_contract() -> None:
    assert COSMOS.labels == ("OOC", "NOOC")
    assert COSMOS.map(L.FALSE_CONTEXT) == CosmosLabel.OOC.value
    for label in InternalLabel:
        if label is not L.FALSE_CONTEXT:
            assert COSMOS.map(label) == "NOOC"
    p = COSMOS.probabilities(0.7, L.FALSE_CONTEXT)
    assert p == pytest.approx({"OOC": 0.7, "NOOC": 0.3})
    p = COSMOS.probabilities(0.85, L.VERIFIED)
    assert p == pytest.approx({"OOC": 0.15, "NOOC": 0.85})


def test_cosmos_label_and_argmax_can_disagree() -> None:
    # Eq. 20 ties p(OOC) to ψ̄, not to the rule that fired. A false-context case whose mean
    # score is below 0.5 keeps the label OOC (the mapped internal decision) while p(OOC) < 0.5;
    # an insufficient-evidence case with ψ̄ < 0.5 is NOOC with p(OOC) > 0.5.
    ds = decisions(what=0.6, where=0.1, when=0.4, who=0.45)  # mean 0.3875
    out = aggregate(ds)
    assert out.label is L.FALSE_CONTEXT
    assert COSMOS.map(out.label) == "OOC"
    p = COSMOS.probabilities(out.mean_score, out.label)
    assert p["OOC"] == pytest.approx(0.3875)
    assert max(p, key=p.__getitem__) == "NOOC"
    low = COSMOS.probabilities(0.3, L.INSUFFICIENT_EVIDENCE)
    assert COSMOS.map(L.INSUFFICIENT_EVIDENCE) == "NOOC" and low["OOC"] == pytest.approx(0.7)


@given(st.floats(min_value=0.0, max_value=1.0), st.sampled_from(list(InternalLabel)))
def test_cosmos_probabilities(mean: float, label: InternalLabel) -> None:
    p = COSMOS.probabilities(mean, label)
    assert p["OOC"] + p["NOOC"] == pytest.approx(1.0)
    assert p["OOC"] == ooc_probability(mean, label)
    if mean > 0.5:  # label and argmax agree exactly when ψ̄ > 0.5
        assert max(p, key=p.__getitem__) == COSMOS.map(label)
    elif mean < 0.5:
        assert max(p, key=p.__getitem__) != COSMOS.map(label)


def test_defaults_are_the_settings_defaults() -> None:
    settings = Settings()
    ds = decisions(what=0.2, where=0.35, when=0.5, who=0.4)
    assert aggregate(ds) == aggregate(ds, config=settings.aggregation, bands=settings.decision)
    assert confidence(0.5, L.VERIFIED) == confidence(0.5, L.VERIFIED, config=settings.confidence)


def test_no_argument_at_all_abstains_as_insufficient_evidence() -> None:
    neutral = decisions(what=0.5, where=0.5, when=0.5, who=0.5, why=0.5, authenticity=0.5)
    out = aggregate(neutral, argued=False)
    assert (out.label, out.rule_number) == (L.INSUFFICIENT_EVIDENCE, 5)
    # with evidence that no rule decides the case stays uncertain
    assert aggregate(neutral, argued=True).label is L.UNCERTAIN
    # argued=False never overrides a decisive rule (it cannot co-occur with one in the
    # pipeline, but the priority order still holds)
    refuted = decisions(what=0.5, authenticity=0.05)
    assert aggregate(refuted, argued=False).label is L.MANIPULATED_OR_SYNTHETIC


# ---- deviations: no hole between rules 3, 4 and 7 ------------------------------------------

ALL_ASSERTED = {d: True for d in Dimension}


def test_rule_3_an_asserted_subclaim_without_evidence_is_not_present() -> None:
    """what/where/when supported, who not asserted, authenticity asserted but no argument
    speaks to it (neutral only for lack of evidence): verified by rule 3, never rule 7, and
    the sentence names authenticity as unchecked."""
    ds = decisions(what=0.84, where=0.87, when=0.87, who=0.5, why=0.7, authenticity=0.5)
    asserted = {**ALL_ASSERTED, D.WHO: False}
    before = aggregate(ds, asserted=asserted)  # without knowing what was argued
    assert before.rule_number != 3
    out = aggregate(ds, asserted=asserted, unargued={D.AUTHENTICITY, D.WHO})
    assert (out.label, out.rule_number) == (L.VERIFIED, 3)
    assert set(out.deciding) == {D.WHAT, D.WHERE, D.WHEN}
    assert "authenticity had no evidence either way and is not counted" in out.rule


def test_rule_3_needs_an_argued_present_dimension() -> None:
    ds = decisions(what=0.5, authenticity=0.5)
    out = aggregate(ds, asserted=ALL_ASSERTED, unargued={D.WHAT, D.AUTHENTICITY}, argued=False)
    assert (out.label, out.rule_number) == (L.INSUFFICIENT_EVIDENCE, 5)


def test_rule_3_an_argued_uncertain_subclaim_still_blocks_verified() -> None:
    """Only a subclaim that no argument speaks to is set aside: one whose arguments cancel
    out stays present and blocks rule 3 (rule 4 then, as what is supported)."""
    ds = decisions(what=0.84, where=0.87, when=0.5, authenticity=0.5)
    out = aggregate(ds, asserted=ALL_ASSERTED, unargued={D.AUTHENTICITY})
    assert (out.label, out.rule_number) == (L.PARTIALLY_VERIFIED, 4)
    assert "when is not supported" in out.rule


def test_rule_4_counts_a_supported_subclaim() -> None:
    out = aggregate(decisions(what=0.9, where=0.5, when=0.5, authenticity=0.5))
    assert (out.label, out.rule_number) == (L.PARTIALLY_VERIFIED, 4)
    assert out.deciding == (D.WHAT,)
    assert out.rule.startswith("Rule 4: what is supported")


def test_rules_2_to_4_name_the_media_evidence_in_their_sentence() -> None:
    grounds = {
        D.WHERE: "EXIF GPS 40.4168, -3.7038 lies 1,870 km from the claimed Berlin",
        D.WHEN: "EXIF capture time 2016-11-11 is 1,043 days before the claimed date",
    }
    out = aggregate(decisions(what=0.84, where=0.38, when=0.38), grounds=grounds)
    assert out.rule_number == 2
    first = out.rule.split(". ", 1)[0]
    assert grounds[D.WHERE] in first and grounds[D.WHEN] in first
    out = aggregate(decisions(what=0.84, where=0.87, when=0.87), grounds=grounds)
    assert out.rule_number == 3 and grounds[D.WHERE] in out.rule
    out = aggregate(decisions(what=0.84, where=0.65, when=0.87), grounds=grounds)
    assert out.rule_number == 4
    assert "where is not supported (where: EXIF GPS" in out.rule
