"""Directness of arguments (docs/architecture.md, "Directness"): which evidence bears on the
media, the η_d discount of Eq. 14, precedence over event reports and the weak-band cap."""

from __future__ import annotations

import pytest

from semv.config import DecisionConfig, StrengthConfig
from semv.dimensions import directness
from semv.model import (
    Argument,
    Band,
    Dimension,
    Directness,
    Evidence,
    Exif,
    MediaLocation,
    Modality,
    Origin,
    SourceType,
    Stance,
    UncertaintyCode,
)
from semv.reasoning import event_only_cap, media_grounds, outranked
from tests.paper_reasoning import argument_strength, directness_factor

CLAIM = "Climate strike protesters fill the streets of Berlin on 20 September 2019."


def item(ev_id: str, source_type: SourceType, text: str = "A report.", **extra: object) -> Evidence:
    return Evidence.model_validate(
        {
            "id": ev_id,
            "source": "test",
            "source_type": source_type,
            "modality": extra.pop("modality", Modality.TEXT),
            "content": text,
            "reliability": 0.7,
            **extra,
        }
    )


def test_directness_of_evidence_items() -> None:
    exif = item(
        "ev:exif:asset:1",
        SourceType.METADATA,
        "EXIF",
        modality=Modality.METADATA,
        observation=Exif(latitude=40.4, longitude=-3.7),
    )
    assert directness(exif, CLAIM) is Directness.MEDIA
    caption = item("ev:sup:c", SourceType.PRIOR_CAPTION, "A street in Madrid.")
    assert directness(caption, CLAIM) is Directness.MEDIA_REFERENCE
    web = item(
        "ev:sup:w",
        SourceType.WEB,
        "A street.",
        location=MediaLocation(asset_id="asset:1"),
    )
    assert directness(web, CLAIM) is Directness.MEDIA_REFERENCE
    assert directness(item("ev:sup:f", SourceType.FACT_CHECK), CLAIM) is Directness.MEDIA_REFERENCE
    news = item("ev:sup:n", SourceType.NEWS, "More than 100,000 people marched in Berlin.")
    assert directness(news, CLAIM) is Directness.EVENT
    quoting = item("ev:sup:q", SourceType.NEWS, f"Posts claimed “{CLAIM}” but the photo is old.")
    assert directness(quoting, CLAIM) is Directness.MEDIA_REFERENCE


def test_eta_d_discounts_event_reports_on_context_subclaims_only() -> None:
    cfg = StrengthConfig(eta_event=0.6)
    assert directness_factor(Directness.EVENT, Dimension.WHERE, config=cfg) == 0.6
    assert directness_factor(Directness.EVENT, Dimension.WHY, config=cfg) == 0.6
    assert directness_factor(Directness.EVENT, Dimension.WHAT, config=cfg) == 1.0
    assert directness_factor(Directness.MEDIA_REFERENCE, Dimension.WHERE, config=cfg) == 1.0
    full = argument_strength(0.7, 0.8, 1, 1, 1.0, 200, True, False, config=cfg)
    event = argument_strength(
        0.7, 0.8, 1, 1, 1.0, 200, True, False, directness_factor=0.6, config=cfg
    )
    assert event == pytest.approx(0.6 * full)
    with pytest.raises(ValueError, match="directness_factor"):
        argument_strength(0.7, 0.8, 1, 1, 1.0, 200, True, False, directness_factor=1.5)


def arg(
    n: int,
    stance: Stance,
    bears_on: Directness,
    strength: float,
    *,
    doubt: bool = False,
    dim: str = "where",
) -> Argument:
    return Argument(
        id=f"arg:{dim}:{stance.value}:{n}",
        subclaim=f"claim:{dim}",
        stance=stance,
        text=f"argument {n} about the {bears_on.value}.",
        evidence=(f"ev:{n}",),
        verified=True,
        admissible=True,
        strength=strength,
        directness=bears_on,
        uncertainty=(UncertaintyCode.METADATA_DOUBTFUL,) if doubt else (),
        origin=Origin(kind="agent", name="test"),
    )


def weights(*args: Argument) -> dict[str, float]:
    return {a.id: a.strength for a in args}


def test_contrary_media_evidence_outranks_event_reports() -> None:
    gps = arg(1, Stance.ATTACK, Directness.MEDIA, 0.57)
    news = [arg(n, Stance.SUPPORT, Directness.EVENT, 0.43) for n in (1, 2)]
    both = [gps, *news]
    assert outranked(Dimension.WHERE, both, weights(*both)) == tuple(a.id for a in news)
    # same-side event reports are not outranked
    agree = [arg(1, Stance.SUPPORT, Directness.MEDIA, 0.57), *news]
    assert outranked(Dimension.WHERE, agree, weights(*agree)) == ()
    # a doubted metadata argument outranks nothing
    doubted = [arg(1, Stance.ATTACK, Directness.MEDIA, 0.5, doubt=True), *news]
    assert outranked(Dimension.WHERE, doubted, weights(*doubted)) == ()
    # a caption of this image outranks event reports too
    caption = [arg(1, Stance.ATTACK, Directness.MEDIA_REFERENCE, 0.6), *news]
    assert len(outranked(Dimension.WHERE, caption, weights(*caption))) == 2
    # on `what` the event reports are direct: nothing is outranked
    what = [arg(1, Stance.ATTACK, Directness.MEDIA, 0.57, dim="what")]
    what += [arg(n, Stance.SUPPORT, Directness.EVENT, 0.7, dim="what") for n in (1, 2)]
    assert outranked(Dimension.WHAT, what, weights(*what)) == ()


def test_event_reports_alone_stay_in_the_weak_bands() -> None:
    cfg = DecisionConfig()
    news = [arg(n, Stance.SUPPORT, Directness.EVENT, 0.7) for n in (1, 2, 3)]
    assert event_only_cap(Dimension.WHEN, 0.93, news, weights(*news), config=cfg) == 0.70
    attacks = [arg(n, Stance.ATTACK, Directness.EVENT, 0.7) for n in (1, 2, 3)]
    assert event_only_cap(Dimension.WHEN, 0.05, attacks, weights(*attacks), config=cfg) == 0.30
    with_media = [*news, arg(9, Stance.SUPPORT, Directness.MEDIA, 0.56)]
    assert (
        event_only_cap(Dimension.WHEN, 0.93, with_media, weights(*with_media), config=cfg) == 0.93
    )
    assert event_only_cap(Dimension.WHAT, 0.93, news, weights(*news), config=cfg) == 0.93


def test_media_grounds_prefer_the_media_then_doubt_then_absence() -> None:
    gps = arg(1, Stance.ATTACK, Directness.MEDIA, 0.57)
    news = arg(2, Stance.SUPPORT, Directness.EVENT, 0.43)
    doubted = arg(3, Stance.ATTACK, Directness.MEDIA, 0.5, doubt=True, dim="when")
    only_news = arg(4, Stance.SUPPORT, Directness.EVENT, 0.43, dim="who")
    grounds = media_grounds(
        {Dimension.WHERE: [gps, news], Dimension.WHEN: [doubted], Dimension.WHO: [only_news]},
        {
            Dimension.WHERE: Band.WEAKLY_REFUTED,
            Dimension.WHEN: Band.UNCERTAIN,
            Dimension.WHO: Band.WEAKLY_SUPPORTED,
            Dimension.AUTHENTICITY: Band.UNCERTAIN,
        },
        {Dimension.AUTHENTICITY: "no forensic evidence"},
    )
    assert grounds[Dimension.WHERE] == "argument 1 about the media"
    assert grounds[Dimension.WHEN] == "argument 3 about the media"
    assert "only reports of the event" in grounds[Dimension.WHO]
    assert grounds[Dimension.AUTHENTICITY] == "no forensic evidence"
