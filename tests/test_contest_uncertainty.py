"""Uncertainty detection before a decision is final (SEMV §4.5): each code, its stages."""

from __future__ import annotations

from semv.config import ReviewDetectionConfig
from semv.model import (
    Argument,
    ClaimFacts,
    Dimension,
    Evidence,
    MediaLocation,
    Modality,
    OcrText,
    Origin,
    SourceType,
    Stage,
    Stance,
    Subclaim,
    Transcript,
    UncertaintyCode,
)
from semv.reasoning import review_codes
from tests.paper_reasoning import OVERLAP

CFG = ReviewDetectionConfig()
SUB = Subclaim(
    id="claim:when",
    dimension=Dimension.WHEN,
    statement="The flood happened on 14 March 2024.",
    claim_type="time",
    asserted=True,
    facts=ClaimFacts(dates=("2024-03-14",)),
)


def ev(id_: str, **kw: object) -> Evidence:
    base: dict[str, object] = dict(
        source="s",
        source_type=SourceType.NEWS,
        modality=Modality.TEXT,
        content="text",
        reliability=0.8,
    )
    base.update(kw)
    return Evidence(id=id_, **base)  # type: ignore[arg-type]


def arg(id_: str, stance: Stance, evidence: tuple[str, ...], strength: float = 0.5) -> Argument:
    return Argument(
        id=id_,
        subclaim=SUB.id,
        stance=stance,
        text="t",
        evidence=evidence,
        strength=strength,
        origin=Origin(kind="agent", name="a"),
    )


def codes(*args: Argument, items: tuple[Evidence, ...], s: float = 0.0, a: float = 0.0) -> dict:
    found = review_codes(
        SUB, args, items, support_total=s, attack_total=a, config=CFG, overlap=OVERLAP
    )
    return {n.code: n.stages for n in found}


def test_missing_and_uniformly_low_reliability_evidence() -> None:
    assert codes(items=())[UncertaintyCode.NO_EVIDENCE] == (Stage.RETRIEVE, Stage.VALIDATE)
    low = (ev("ev:w:1", reliability=0.3), ev("ev:w:2", reliability=0.4))
    assert UncertaintyCode.LOW_RELIABILITY in codes(items=low)
    mixed = (ev("ev:w:1", reliability=0.3), ev("ev:w:2", reliability=0.9))
    assert UncertaintyCode.LOW_RELIABILITY not in codes(items=mixed)


def test_ocr_asr_disagreement_on_the_same_asset() -> None:
    where = MediaLocation(asset_id="asset:1")
    ocr = ev(
        "ev:ocr:asset:1",
        content="STOP the war now",
        location=where,
        observation=OcrText(lines=(), languages=("en",)),
    )
    asr = ev(
        "ev:asr:asset:1",
        content="welcome to the cooking show",
        modality=Modality.AUDIO,
        location=where,
        observation=Transcript(segments=(), language="en"),
    )
    agree = asr.model_copy(update={"content": "stop the war now please"})
    assert codes(items=(ocr, asr))[UncertaintyCode.OCR_ASR_DISAGREEMENT] == (
        Stage.VALIDATE,
        Stage.ARGUE,
    )
    assert UncertaintyCode.OCR_ASR_DISAGREEMENT not in codes(items=(ocr, agree))


def test_metadata_conflict_earlier_context_and_forensic_source_conflict() -> None:
    exif = ev("ev:exif:asset:1", modality=Modality.METADATA, source_type=SourceType.METADATA)
    prior = ev("ev:sup:prior", source_type=SourceType.PRIOR_CAPTION, published="2019-06-02")
    later = prior.model_copy(update={"published": "2024-05-01"})
    forensic = ev("ev:ela:asset:1", source_type=SourceType.FORENSIC, modality=Modality.IMAGE)
    news = ev("ev:sup:news")
    found = codes(
        arg("arg:when:att:1", Stance.ATTACK, (exif.id,)),
        arg("arg:when:att:2", Stance.ATTACK, (forensic.id,)),
        arg("arg:when:sup:1", Stance.SUPPORT, (news.id,)),
        items=(exif, prior, forensic, news),
    )
    assert UncertaintyCode.METADATA_CLAIM_CONFLICT in found
    assert found[UncertaintyCode.EARLIER_CONTEXT_MATCH] == (Stage.RETRIEVE, Stage.ARGUE)
    assert Stage.QBAF in found[UncertaintyCode.FORENSIC_SOURCE_CONFLICT]
    assert UncertaintyCode.EARLIER_CONTEXT_MATCH not in codes(items=(later,))


def test_near_tie_between_support_and_attack() -> None:
    assert codes(items=(ev("ev:w:1"),), s=1.0, a=0.9)[UncertaintyCode.NEAR_TIE] == (Stage.QBAF,)
    assert UncertaintyCode.NEAR_TIE not in codes(items=(ev("ev:w:1"),), s=1.0, a=0.3)
    assert UncertaintyCode.NEAR_TIE not in codes(items=(ev("ev:w:1"),), s=1.0, a=0.0)
