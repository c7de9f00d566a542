"""The claim–evidence stance model (semv.nlp.stance) and its use by the why/what rules.

Every sentence here is written for these tests (none is an AVeriTeC, OOKPIK, COSMOS or VERITE
row). The cue lists are checked with positive and negative sentences; the shipped model with
its provenance; the rules with the bundled example, whose fact-check debunks the claim.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from semv import verify
from semv.config import Settings
from semv.dimensions import ClaimView, decompose_case, key_fact_found
from semv.dimensions.what import what_rule
from semv.dimensions.why import why_rule
from semv.model import (
    Case,
    Dimension,
    Evidence,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
)
from semv.model import Stance as ArgStance
from semv.nlp.markers import parse_marker_file
from semv.nlp.stance import (
    CUE_LABELS,
    FEATURES,
    Stance,
    StanceModel,
    asserted,
    cue_counts,
    cue_lists,
    judge_stance,
    stance_features,
    stance_model,
)
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "lyon-flood"
CFG = Settings().offline.model_copy(update={"embeddings": False})

CUES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # label: (sentences that must fire, sentences that must not)
    "negation": (
        (
            "The minister did not sign the decree.",
            "There is no record of the meeting.",
            "The bridge never collapsed.",
            "The mayor can't confirm the figure.",
        ),
        (
            "The river rose above its banks in the city centre.",
            "Notable guests arrived at the harbour.",
            "Nobel laureates met in the capital on Monday.",
            "Firefighters battle a blaze at a warehouse.",
        ),
    ),
    "contrast": (
        (
            "The video was filmed in 2019, however, not last week.",
            "In fact, the stadium was empty.",
            "The crowd gathered, but the speech was cancelled.",
        ),
        (
            "Athletes compete in the final of the 100 metres.",
            "The butcher opened his shop at dawn.",
            "A crowd gathers outside the courthouse ahead of the verdict.",
        ),
    ),
    "confirmation": (
        (
            "The figure is accurate, the ministry confirmed.",
            "Our rating: True.",
            "The photograph is genuine.",
        ),
        (
            "Supporters celebrate in the capital after the results.",
            "The truck drove across the border at night.",
            "Children play football in a refugee camp.",
        ),
    ),
    "reported": (
        (
            "The governor said the dam held.",
            "According to the police, six people were hurt.",
            "The group reportedly left the city.",
        ),
        (
            "Flood water covers a street after heavy rain.",
            "A man walks past a mural in the old town.",
            "Saidabad market reopened on Friday.",
        ),
    ),
}


def test_every_cue_list_has_provenance_and_patterns() -> None:
    lists = cue_lists()
    assert {c.label for c in lists} == CUE_LABELS
    for c in lists:
        assert len(c.provenance) > 40
        assert c.patterns


@pytest.mark.parametrize("label", sorted(CUES))
def test_cues_fire_on_positive_and_not_on_negative_sentences(label: str) -> None:
    fire, quiet = CUES[label]
    for sentence in fire:
        assert cue_counts(sentence)[label] > 0, sentence
    for sentence in quiet:
        assert cue_counts(sentence)[label] == 0, sentence


def test_a_cue_file_with_an_unknown_label_is_refused() -> None:
    with pytest.raises(ValueError, match=r"x\.txt:1: unknown marker label 'refutation'"):
        parse_marker_file("@list refutation\n@provenance p\nabc\n", "x.txt", CUE_LABELS)


def test_quotations_are_reported_not_asserted() -> None:
    text = 'The picture shared as "Rome under snow in 2023" was taken in Oslo.'
    out = asserted(text)
    assert "Rome" not in out and "Oslo" in out and len(out) == len(text)
    assert asserted('A "heat dome" formed.') == 'A "heat dome" formed.'  # a term stays


def test_the_dimension_rules_blank_quotations_exactly_as_stance_does() -> None:
    from semv.dimensions import asserted_text

    text = "Le cliché « Paris sous les eaux, 14 mars » montre Lyon; un «dôme» aussi."
    expected = (
        "Le cliché "
        + " " * len("« Paris sous les eaux, 14 mars »")
        + " montre Lyon; un «dôme» aussi."
    )
    assert asserted_text(text) == asserted(text) == expected


CLAIM = "Flooding in Rome on 12 May 2023: the Tiber burst its banks near the Colosseum."
DEBUNK = (
    'False. The photo shared as "Rome flooded on 12 May 2023" was taken in Hamburg in 2013 and '
    "shows the Elbe at its normal level; it does not show a flood."
)
CONFIRM = (
    "Heavy rain pushed the Tiber over its banks in Rome on 12 May 2023, and streets near the "
    "Colosseum were closed as the water rose."
)


def test_signals_of_a_debunking_text() -> None:
    feats = stance_features(CLAIM, DEBUNK, CFG).as_dict()
    assert feats["negation"] > 0 and feats["rating_refutes"] == 1.0
    assert feats["place_conflict"] == 1.0 and feats["date_conflict"] == 1.0
    assert feats["reported_speech"] == 1.0
    assert feats["date_agrees"] == 0.0  # the claimed date is inside the quotation


def test_signals_of_a_confirming_report() -> None:
    feats = stance_features(CLAIM, CONFIRM, CFG).as_dict()
    assert feats["negation"] == 0.0 and feats["rating_refutes"] == 0.0
    assert feats["place_conflict"] == 0.0 and feats["date_conflict"] == 0.0
    assert feats["date_agrees"] == 1.0 and feats["entities_shared"] > 0


@pytest.mark.parametrize("embeddings", [False, True])
def test_the_model_signs_a_debunk_as_refuting_and_a_report_as_supporting(
    embeddings: bool,
) -> None:
    """The sign the rules ask for (p(refutes) against p(supports)), in both variants."""
    cfg = Settings().offline.model_copy(update={"embeddings": embeddings})
    debunk = judge_stance(CLAIM, DEBUNK, cfg).probabilities
    confirm = judge_stance(CLAIM, CONFIRM, cfg).probabilities
    assert debunk[Stance.REFUTES] > debunk[Stance.SUPPORTS]
    assert confirm[Stance.SUPPORTS] > confirm[Stance.REFUTES]


def test_probabilities_are_a_distribution() -> None:
    probs = judge_stance(CLAIM, CONFIRM, CFG).probabilities
    assert set(probs) == set(Stance)
    assert sum(probs.values()) == pytest.approx(1.0)
    assert all(0.0 <= p <= 1.0 for p in probs.values())


def test_the_shipped_model_declares_its_training_split_and_scores() -> None:
    model = stance_model()
    prov = model.provenance
    assert prov["features"] == list(FEATURES)
    assert "fit_stance.py" in prov["command"]
    assert "even indices" in prov["training_set"] and "Odd indices held out" in prov["training_set"]
    assert len(prov["training_sha256"]) == 64
    for variant in ("e5", "lexical"):
        assert {"in_sample_fit_split", "out_of_sample_held_out"} <= set(prov["metrics"][variant])
    assert stance_model(embeddings=False).variant == "lexical"


def test_a_model_file_with_other_features_is_refused() -> None:
    data = json.loads(
        (ROOT / "src" / "semv" / "nlp" / "data" / "stance.json").read_text(encoding="utf-8")
    )
    data["features"] = data["features"][:-1]
    with pytest.raises(ValueError, match=r"bad\.json: features .* refit with `make fit-stance`"):
        StanceModel.from_json(data, "bad.json")
    with pytest.raises(ValueError, match=r"bad\.json: not a stance model"):
        StanceModel.from_json({"features": list(FEATURES)}, "bad.json")


def test_the_example_fact_check_attacks_the_why_subclaim(tmp_path: Path) -> None:
    result = verify(EXAMPLE, data_dir=tmp_path / "d", reports_dir=tmp_path / "o", text_only=True)
    why = next(s for s in result.subclaims if s.dimension == "why")
    on_fact_check = [a for a in why.arguments if "ev:sup:factcheck-lyon-2019" in a.evidence]
    assert on_fact_check
    assert all(a.stance is ArgStance.ATTACK for a in on_fact_check)
    assert "refutes the claim" in on_fact_check[0].text
    on_news = [a for a in why.arguments if "ev:sup:news-seine-rises" in a.evidence]
    assert on_news and all(a.stance is ArgStance.SUPPORT for a in on_news)


def _claim_view(dimension: Dimension) -> ClaimView:
    case = Case(id="case:1", claim=CLAIM)
    return ClaimView(subclaim=decompose_case(case).subclaims[dimension.value], claim_text=CLAIM)


HEADLINE = "No, this picture does not show Rome under water"
BODY = (
    'The picture shared as "Rome flooded on 12 May 2023" was taken in Hamburg in 2013; it '
    "shows the Elbe at its usual level."
)
"""A fact-check whose verdict is in its headline; its body names no rating (so the marker rule,
which reads the body, does not fire, and only the stance model can tell it from a report)."""


def _document(source_type: SourceType, text: str, title: str | None = None) -> Evidence:
    return Evidence(
        id="ev:sup:1",
        source="test",
        source_type=source_type,
        modality=Modality.TEXT,
        title=title,
        content=text,
        reliability=0.8,
        provenance=Provenance(producer=ProducerKind.DATASET, agent="test"),
    )


def test_the_why_rule_attacks_with_a_debunk_and_supports_with_a_report() -> None:
    cfg = Settings().offline
    view = _claim_view(Dimension.WHY)
    fact_check = _document(SourceType.FACT_CHECK, BODY, HEADLINE)
    debunk = why_rule(view, fact_check, cfg)
    assert [f.stance for f in debunk] == [ArgStance.ATTACK]
    assert "refutes the claim" in debunk[0].text
    assert debunk[0].key_facts and all(key_fact_found(k, fact_check) for k in debunk[0].key_facts)
    # the body alone, as the marker rule reads it, names no rating: without the stance model
    # the same document would support
    assert "disputes" not in debunk[0].text
    report = why_rule(view, _document(SourceType.NEWS, CONFIRM), cfg)
    assert [f.stance for f in report] == [ArgStance.SUPPORT]


def test_the_stance_setting_off_restores_the_support() -> None:
    cfg = Settings().offline.model_copy(update={"stance": False})
    fact_check = _document(SourceType.FACT_CHECK, BODY, HEADLINE)
    found = why_rule(_claim_view(Dimension.WHY), fact_check, cfg)
    assert [f.stance for f in found] == [ArgStance.SUPPORT]


def test_a_caption_of_the_same_media_is_left_to_the_caption_context_model() -> None:
    cfg = Settings().offline
    caption = _document(SourceType.PRIOR_CAPTION, BODY, HEADLINE)
    found = why_rule(_claim_view(Dimension.WHY), caption, cfg)
    assert all("stance model" not in f.text for f in found)


def test_the_what_rule_does_not_let_a_debunk_support_the_event_content() -> None:
    cfg = Settings().offline
    view = _claim_view(Dimension.WHAT)
    assert not [
        f
        for f in what_rule(view, _document(SourceType.FACT_CHECK, BODY, HEADLINE), cfg)
        if f.stance is ArgStance.SUPPORT
    ]
    off = cfg.model_copy(update={"stance": False})
    report = what_rule(view, _document(SourceType.NEWS, CONFIRM), cfg)
    assert [f.stance for f in report] == [ArgStance.SUPPORT]
    assert what_rule(view, _document(SourceType.NEWS, CONFIRM), off) == report
