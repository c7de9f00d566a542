"""Evidence relevance: the fitted claim-relevance gate of retrieved items, the
when/where "refers to this case" test, and the relevance term of Eq. 14."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from semv.config import Settings
from semv.dimensions import DIMENSIONS
from semv.dimensions._common import ClaimView, refers_to_case
from semv.model import (
    Dimension,
    Evidence,
    Modality,
    ProducerKind,
    Provenance,
    ReverseSearchMatch,
    SourceType,
    Stance,
    Subclaim,
)
from semv.nlp.quotes import quotes_claim
from semv.retrieval import load_relevance_model, relevance_gate
from semv.retrieval._relevance import RelevanceFeatures

CLAIM = (
    "Flooding in Paris on 14 March 2024: the Seine has burst its banks and the quays near the "
    "Île de la Cité are under water."
)
RELATED = (
    "Fact check of the claim “Flooding in Paris on 14 March 2024: the Seine has burst its "
    "banks”. Rating: False. The photo was taken in Lyon on 1 June 2019."
)
UNRELATED = (
    "Which bank loans did Zimbabwe receive from the African Export Import Bank? In June 2020 "
    "Afreximbank approved a loan facility for Zimbabwe."
)


def retrieved(
    text: str, *, id_: str = "ev:doc:x", kind: SourceType = SourceType.FACT_CHECK
) -> Evidence:
    return Evidence(
        id=id_,
        source="example.org",
        source_type=kind,
        modality=Modality.TEXT,
        content=text,
        reliability=0.7,
        provenance=Provenance(producer=ProducerKind.RETRIEVAL, agent="local-corpus/corpus"),
    )


def test_the_shipped_model_is_fitted_declared_and_separates_extremes() -> None:
    data = json.loads(
        (Path(__file__).parents[1] / "src/semv/retrieval/data/relevance.json").read_text()
    )
    assert "scripts/fit_relevance.py" in data["command"]
    assert "AVeriTeC" in data["trained_on"]
    for embeddings in (True, False):
        model = load_relevance_model(embeddings)
        assert 0 < model.threshold < 1
        low = RelevanceFeatures(cos=0.7, lex=0.0, ent=0.0, date=0.0, similarity=0.0)
        high = RelevanceFeatures(cos=0.9, lex=0.5, ent=1.0, date=1.0, similarity=0.6)
        # a near-paraphrase sharing names is admitted, an unrelated text is not
        assert model.probability(high) > model.probability(low)
        assert model.probability(low) < model.threshold <= model.probability(high)


def test_gate_refuses_an_unrelated_document_and_admits_a_related_fact_check() -> None:
    gate = relevance_gate(Settings())
    assert gate is not None
    kept, refused, scores = gate.screen(
        CLAIM, [retrieved(UNRELATED, id_="ev:doc:u"), retrieved(RELATED, id_="ev:doc:r")], "en"
    )
    assert [e.id for e in kept] == ["ev:doc:r"]
    assert 0 < scores["ev:doc:r"] <= 1 and set(scores) == {"ev:doc:r"}
    (out,) = refused
    assert out.id == "ev:doc:u"
    assert out.relevance < gate.model.threshold or out.similarity < 0.1
    assert out.reason


def test_a_reverse_image_match_is_admitted_by_its_media_fingerprint() -> None:
    gate = relevance_gate(Settings())
    assert gate is not None
    match = Evidence(
        id="ev:rsearch:1",
        source="tineye",
        source_type=SourceType.PRIOR_CAPTION,
        modality=Modality.IMAGE,
        content="Sunny afternoon on the Saône",
        reliability=0.5,
        observation=ReverseSearchMatch(match_method="tineye", first_seen="2019-06-02"),
        provenance=Provenance(producer=ProducerKind.RETRIEVAL, agent="tineye"),
    )
    verdict = gate.judge(CLAIM, match, "en")
    assert verdict.relevant and "fingerprint" in verdict.reason


def test_gate_off_admits_everything() -> None:
    settings = Settings.model_validate({"retrieval": {"relevance_gate": False}})
    assert relevance_gate(settings) is None


def _view(dimension: Dimension, facts: dict[str, tuple[str, ...]]) -> ClaimView:
    from semv.model import ClaimFacts

    sub = Subclaim(
        id=f"claim:{dimension.value}",
        dimension=dimension,
        statement="s",
        claim_type="x",
        asserted=True,
        facts=ClaimFacts(**facts),
    )
    return ClaimView(subclaim=sub, claim_text=CLAIM, language="en")


def test_quotation_of_the_claim_is_recognised() -> None:
    assert quotes_claim(CLAIM, RELATED)
    assert not quotes_claim(CLAIM, "He said “the loan was approved quickly” in June.")
    assert not quotes_claim(CLAIM, UNRELATED)


def test_when_and_where_attacks_need_a_retrieved_item_to_refer_to_the_case() -> None:
    cfg = Settings().offline
    when = _view(Dimension.WHEN, {"dates": ("2024-03-14",)})
    where = _view(Dimension.WHERE, {"places": ("Paris",)})
    other_date = retrieved("The bridge in Harare was opened on 3 June 2020 by the minister.")
    other_place = retrieved("The bridge was opened in Harare, Zimbabwe, by the minister.")
    assert not refers_to_case(when, other_date, cfg.place_tolerance_km)
    assert DIMENSIONS[Dimension.WHEN].rule(when, other_date, cfg) == []
    assert DIMENSIONS[Dimension.WHERE].rule(where, other_place, cfg) == []
    # the same texts supplied with the case are about it: they still attack
    supplied = other_date.model_copy(
        update={"provenance": Provenance(producer=ProducerKind.USER, agent="case")}
    )
    (finding,) = DIMENSIONS[Dimension.WHEN].rule(when, supplied, cfg)
    assert finding.stance is Stance.ATTACK
    # a retrieved fact-check quoting the claim refers to it: it attacks when and where
    related = retrieved(RELATED)
    assert refers_to_case(when, related, cfg.place_tolerance_km)
    (date_attack,) = DIMENSIONS[Dimension.WHEN].rule(when, related, cfg)
    (place_attack,) = DIMENSIONS[Dimension.WHERE].rule(where, related, cfg)
    assert date_attack.stance is Stance.ATTACK and place_attack.stance is Stance.ATTACK


@pytest.mark.parametrize("relevance", [0.02, 0.9])
def test_calibrated_relevance_caps_the_relevance_term_of_eq14(relevance: float) -> None:
    import asyncio

    from semv.agents.offline import OfflineAgents
    from semv.graph import StageContext
    from semv.model import QueryRecord, Retrieved
    from semv.stages import validate

    item = retrieved(RELATED, id_="ev:doc:r")
    sub = _view(Dimension.WHEN, {"dates": ("2024-03-14",)}).subclaim
    got = asyncio.run(
        validate.validate(
            StageContext(
                node="validate:when",
                settings=Settings(),
                agents=OfflineAgents(Settings()),
                params={},
            ),
            retrieved=Retrieved(
                subclaim=sub.id,
                evidence=(item,),
                queries=(
                    QueryRecord(
                        id="src:when:0", source="corpus", query="q", mode="offline", hits=(item.id,)
                    ),
                ),
                relevance={item.id: relevance},
            ),
            subclaim=sub,
        )
    )
    (ranked,) = got.evidence
    assert ranked.relevance <= relevance


def test_the_fitted_model_file_enters_the_retrieve_fingerprint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from semv._code import source_hash
    from semv.stages import retrieve

    assert "semv.retrieval" in retrieve.STAGE.code
    data = Path(__file__).parents[1] / "src/semv/retrieval/data/relevance.json"
    before = source_hash.__wrapped__("semv.retrieval")
    real = Path.read_bytes

    def edited(path: Path) -> bytes:
        body = real(path)
        return body + b" " if path.resolve() == data.resolve() else body

    monkeypatch.setattr(Path, "read_bytes", edited)
    assert source_hash.__wrapped__("semv.retrieval") != before
