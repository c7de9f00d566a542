"""Argue rules on hand-made evidence, the grounding verifier, plans, determinism.

Every sentence here is hand-written (none is taken from an evaluation row)."""

from __future__ import annotations

from typing import Any

import pytest

from semv.agents import (
    Agents,
    ArgueInput,
    ArgueOutput,
    ArgumentDraft,
    ClashInput,
    DecomposeInput,
    PlanInput,
    VerifyInput,
)
from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.model import (
    Case,
    Claims,
    Context,
    Dimension,
    Evidence,
    Exif,
    MemoryGuidance,
    MemoryView,
    Modality,
    OcrText,
    ProducerKind,
    Provenance,
    SourceType,
    Stance,
    UncertaintyCode,
)
from semv.nlp.entities import extract
from semv.nlp.text import find_phrase

AGENTS = OfflineAgents(Settings())
CLAIM = "Floodwater covers the streets of Paris, France on 2023-03-14 as Mayor Anne Hidalgo visits."


def exif(**data: Any) -> Evidence:
    """An EXIF item; ``data`` are ``Exif`` fields."""
    return Evidence(
        id="ev:exif:asset:1",
        source="exiftool",
        source_type=SourceType.METADATA,
        modality=Modality.METADATA,
        content="EXIF summary",
        observation=Exif(**data),
        reliability=0.9,
        provenance=Provenance(producer=ProducerKind.TOOL, agent="exiftool"),
    )


def text_ev(
    content: str,
    ev_id: str = "ev:sup:1",
    source_type: SourceType = SourceType.PRIOR_CAPTION,
    **kw: Any,
) -> Evidence:
    return Evidence(
        id=ev_id,
        source="dataset",
        source_type=source_type,
        modality=Modality.TEXT,
        content=content,
        reliability=0.7,
        provenance=Provenance(producer=ProducerKind.DATASET, agent="test"),
        **kw,
    )


def case(claim: str = CLAIM, **context: Any) -> Case:
    return Case(id="case:1", claim=claim, context=Context(**context))


async def claims(c: Case) -> Claims:
    return await AGENTS.decompose(DecomposeInput(case=c, evidence=()))


async def argue(
    dim: Dimension, evidence: tuple[Evidence, ...], c: Case | None = None
) -> ArgueOutput:
    c = c or case()
    sub = (await claims(c)).subclaims[dim.value]
    return await AGENTS.argue(
        ArgueInput(case=c, subclaim=sub, evidence=evidence, memory=MemoryView(subclaim=sub.id))
    )


def stances(out: ArgueOutput) -> list[Stance]:
    return [d.stance for d in out.drafts]


def test_protocol_and_identity() -> None:
    assert isinstance(AGENTS, Agents)
    assert AGENTS.name == "offline" and AGENTS.version == "1"


async def test_decompose_six_subclaims() -> None:
    result = await claims(case(language="en"))
    assert list(result.subclaims) == [d.value for d in Dimension]
    where, when, who = (result.subclaims[d] for d in ("where", "when", "who"))
    assert where.statement == "The events took place in Paris, France" and where.asserted
    assert when.statement == "The events took place on 2023-03-14" and when.asserted
    assert "Anne Hidalgo" in who.facts.people and who.asserted
    assert result.subclaims["what"].statement.startswith("The media shows: ")
    assert result.subclaims["authenticity"].asserted
    assert all(s.id == f"claim:{k}" for k, s in result.subclaims.items())
    assert any("Paris" in q for q in where.queries)


async def test_context_date_and_location_are_asserted() -> None:
    result = await claims(
        case(
            "Flooded streets after heavy rain.", date="12 mars 2024", location="Lyon", language="fr"
        )
    )
    assert result.subclaims["when"].facts.dates == ("2024-03-12",)
    assert result.subclaims["where"].facts.places == ("Lyon",)
    unasserted = await claims(case("Flooded streets after heavy rain."))
    assert not unasserted.subclaims["where"].asserted and not unasserted.subclaims["when"].asserted


async def test_when_exif_before_and_matching() -> None:
    out = await argue(
        Dimension.WHEN, (exif(capture_time="2019-06-01T10:00:00+02:00", timezone_known=True),)
    )
    assert stances(out) == [Stance.ATTACK]
    draft = out.drafts[0]
    assert "2019-06-01" in draft.text and "1,382 days before" in draft.text
    assert draft.key_facts == ("2019-06-01",) and draft.evidence == ("ev:exif:asset:1",)
    same = await argue(
        Dimension.WHEN, (exif(capture_time="2023-03-15T09:00:00", timezone_known=False),)
    )
    assert stances(same) == [Stance.SUPPORT]
    assert any(u.code is UncertaintyCode.TIMEZONE_UNKNOWN for u in same.uncertainty)
    after = await argue(Dimension.WHEN, (exif(capture_time="2023-05-01T09:00:00+00:00"),))
    assert stances(after) == [Stance.ATTACK] and "after" in after.drafts[0].text


async def test_when_text_evidence() -> None:
    old = await argue(Dimension.WHEN, (text_ev("The photo was taken during floods in 2016."),))
    assert stances(old) == [Stance.ATTACK] and old.drafts[0].key_facts == ("2016",)
    same = await argue(Dimension.WHEN, (text_ev("Paris streets flooded on 14 March 2023."),))
    assert stances(same) == [Stance.SUPPORT]
    none = await argue(Dimension.WHEN, (text_ev("Streets flooded in Paris."),))
    assert none.drafts == ()


async def test_where_gps_near_far_missing() -> None:
    near = await argue(Dimension.WHERE, (exif(latitude=48.86, longitude=2.35),))
    assert stances(near) == [Stance.SUPPORT]
    far = await argue(Dimension.WHERE, (exif(latitude=45.7640, longitude=4.8357),))
    assert stances(far) == [Stance.ATTACK]
    assert "391 km" in far.drafts[0].text and "Lyon" in far.drafts[0].text
    assert far.drafts[0].key_facts == ("45.7640", "4.8357")
    missing = await argue(Dimension.WHERE, (exif(capture_time="2023-03-14T10:00:00"),))
    assert missing.drafts == ()
    assert [u.code for u in missing.uncertainty] == [UncertaintyCode.NO_EVIDENCE]
    country_only = case("Floods hit France in March 2023.")
    in_fr = await argue(Dimension.WHERE, (exif(latitude=45.7640, longitude=4.8357),), country_only)
    assert stances(in_fr) == [Stance.SUPPORT]


async def test_where_text_places() -> None:
    other = await argue(Dimension.WHERE, (text_ev("Flooded streets in Bangkok, Thailand."),))
    assert stances(other) == [Stance.ATTACK] and other.drafts[0].key_facts == ("Bangkok",)
    same = await argue(Dimension.WHERE, (text_ev("Water in the streets of Paris."),))
    assert stances(same) == [Stance.SUPPORT]


async def test_unasserted_dimension_without_evidence() -> None:
    c = case("Floodwater covers the streets.")
    out = await argue(Dimension.WHEN, (exif(capture_time="2019-06-01T10:00:00"),), c)
    assert out.drafts == ()
    assert [u.code for u in out.uncertainty] == [UncertaintyCode.NOT_ASSERTED]


async def test_who_rules() -> None:
    c = case("Senator Rand Paul receives a vaccination.")
    sup = await argue(Dimension.WHO, (text_ev("Sen. Paul gets a booster vaccination in 2015."),), c)
    assert stances(sup) == [Stance.SUPPORT]
    att = await argue(
        Dimension.WHO,
        (text_ev("Lena Hartmann, a granddaughter of the Okafor family."),),
        case("Marco Bellini's hair turned white overnight."),
    )
    assert stances(att) == [Stance.ATTACK] and "Lena Hartmann" in att.drafts[0].key_facts


async def test_what_similarity() -> None:
    c = case("A girl dives into the lake from a wooden pier to cool off in the heat.")
    sup = await argue(
        Dimension.WHAT, (text_ev("A girl dives into a lake from a long wooden pier."),), c
    )
    assert stances(sup) == [Stance.SUPPORT]
    # A news text, not a caption of the media (this used to be a prior caption).
    caption = text_ev("A plate of noodles with chopsticks on a kitchen counter.")
    unrelated = (caption.model_copy(update={"source_type": SourceType.NEWS}),)
    # with the default attack threshold (0.0) only a total mismatch attacks; the rule itself
    # attacks whatever falls at or below the configured threshold
    strict = OfflineAgents(Settings(offline={"overlap_attack": 0.08}))  # type: ignore[arg-type]
    sub = (await claims(c)).subclaims["what"]
    att = await strict.argue(
        ArgueInput(case=c, subclaim=sub, evidence=unrelated, memory=MemoryView(subclaim=sub.id))
    )
    assert stances(att) == [Stance.ATTACK]
    # The same words as a caption of the same media: two captions of the same pixels differ
    # in the event they attach them to (the caption context, `why`), not in what they show.
    kept = await strict.argue(
        ArgueInput(case=c, subclaim=sub, evidence=(caption,), memory=MemoryView(subclaim=sub.id))
    )
    assert stances(kept) == []


async def test_why_markers() -> None:
    c = case("Protesters fill the main square of Caracas on 5 May 2019.")
    ev = text_ev("This photo was first posted in 2014, during protests in another country.")
    out = await argue(Dimension.WHY, (ev,), c)
    assert stances(out) == [Stance.ATTACK] and out.drafts[0].key_facts == ("first posted",)
    same = await argue(
        Dimension.WHY,
        (text_ev("Angela Merkel greets Emmanuel Macron at the summit in Brussels."),),
        case("Angela Merkel and Emmanuel Macron meet at the summit in Brussels on Thursday."),
    )
    assert stances(same) == [Stance.SUPPORT]


def ocr_ev(content: str) -> Evidence:
    """Text read in the case's photo (one line per text region)."""
    return Evidence(
        id="ev:ocr:asset:1",
        source="OCR",
        source_type=SourceType.OTHER,
        modality=Modality.IMAGE,
        content=content,
        observation=OcrText(lines=(), languages=("en",)),
        reliability=0.6,
        provenance=Provenance(producer=ProducerKind.TOOL, agent="test"),
    )


def entities_of(text: str) -> list[str]:
    facts = extract(text, None)
    return [m.text for m in facts.places] + list(facts.people) + list(facts.organizations)


SIGNPOST = (
    "Cyclists ride past the Oberwiesenbach signpost beside a vineyard in Bavaria, Germany, "
    "on 3 June 2015."
)
"""A caption whose parse misses the name on the sign (checked below, so the tests exercise the
miss): its entities are Bavaria and Germany only."""


def test_find_phrase_is_a_folded_whole_word_match() -> None:
    text = "Cyclists pass the alt-Hammoor signpost near Köln's ring road."
    assert find_phrase("ALT HAMMOOR", text) == "alt-Hammoor"
    assert find_phrase("Koln", text) == "Köln's"
    assert find_phrase("Hammoor signpost", text) == "Hammoor signpost"
    assert find_phrase("Ham", text) is None  # whole words only
    assert find_phrase("Hammoor road", text) is None  # contiguous only
    assert find_phrase("the", text) is None and find_phrase("12", "road 12") is None  # no content


async def test_why_sign_name_stated_in_the_caption_is_no_contradiction() -> None:
    c = case(SIGNPOST)
    assert entities_of(SIGNPOST) == ["Bavaria", "Germany"]  # the parse misses "Oberwiesenbach"
    # The sign reads the caption's name: it agrees (the OCR parse joins the two lines into one
    # name, "OBERWIESENBACH Notruf 112"; each line read is a name as well).
    sign = ocr_ev("OBERWIESENBACH\nNotruf 112")
    agrees = await argue(Dimension.WHY, (sign,), c)
    assert stances(agrees) == [Stance.SUPPORT]
    assert agrees.drafts[0].key_facts == ("OBERWIESENBACH",)
    assert "names OBERWIESENBACH, as the claim does" in agrees.drafts[0].text
    sub = (await claims(c)).subclaims["why"]
    checked = await AGENTS.verify(VerifyInput(subclaim=sub, drafts=agrees.drafts, evidence=(sign,)))
    assert [r.verified for r in checked.results] == [True]
    # Neither parse names it (the OCR parse finds only "Notruf"): no support, no attack.
    missed = await argue(Dimension.WHY, (ocr_ev("Oberwiesenbach\nNotruf 112"),), c)
    assert stances(missed) == []
    # Negative control: a sign naming another place than the caption still refutes.
    other = await argue(Dimension.WHY, (ocr_ev("UNTERHOLZBACH\nNotruf 112"),), c)
    assert stances(other) == [Stance.ATTACK] and "names none of the claim's" in other.drafts[0].text
    assert "UNTERHOLZBACH" in other.drafts[0].key_facts


async def test_why_name_in_a_report_stated_by_the_claim_is_no_contradiction() -> None:
    """Beyond text read in the media: a report whose name the caption states (its parse
    missed it) is not "tied to other places" — but a loose word match adds no support."""
    c = case(SIGNPOST)
    news = text_ev(
        "The village of Oberwiesenbach opens its wine trail to cyclists.",
        source_type=SourceType.NEWS,
    )
    assert entities_of(news.content) == ["Oberwiesenbach"]
    assert stances(await argue(Dimension.WHY, (news,), c)) == []
    elsewhere = text_ev(
        "The village of Unterholzbach opens its wine trail to cyclists.",
        source_type=SourceType.NEWS,
    )
    assert stances(await argue(Dimension.WHY, (elsewhere,), c)) == [Stance.ATTACK]


async def test_who_person_the_claim_names_is_not_identified_instead() -> None:
    c = case(
        "Anne Hidalgo visits the flooded quay in Paris, guided by river warden bertolt wennigsen."
    )
    assert extract(c.claim, None).people == ("Anne Hidalgo",)  # the parse misses the warden
    named = text_ev(
        "River warden Bertolt Wennigsen inspects the quay.", source_type=SourceType.NEWS
    )
    assert stances(await argue(Dimension.WHO, (named,), c)) == []
    other = text_ev(
        "River warden Konrad Albrechtsen inspects the quay.", source_type=SourceType.NEWS
    )
    out = await argue(Dimension.WHO, (other,), c)
    assert stances(out) == [Stance.ATTACK] and "Konrad Albrechtsen instead" in out.drafts[0].text


async def test_authenticity() -> None:
    edited = await argue(Dimension.AUTHENTICITY, (exif(software="Adobe Photoshop 23.0 (Windows)"),))
    assert stances(edited) == [Stance.ATTACK] and "Photoshop" in edited.drafts[0].text
    camera_ev = exif(
        make="Canon",
        model="EOS 5D",
        capture_time="2023-03-14T10:00:00",
        modify_time="2023-03-14T10:00:00",
    )
    camera = await argue(Dimension.AUTHENTICITY, (camera_ev,))
    # camera EXIF is not bound to the pixels (a pasted object re-saved with the old EXIF block
    # keeps every tag): no editing trace is not evidence of an unedited capture
    assert camera.drafts == ()
    assert UncertaintyCode.NO_EVIDENCE in [u.code for u in camera.uncertainty]
    sub = (await claims(case())).subclaims["authenticity"]
    backend_support = ArgumentDraft(
        stance=Stance.SUPPORT,
        text="EXIF names the capturing camera (Canon EOS 5D): an unedited capture.",
        evidence=(camera_ev.id,),
        key_facts=("Canon",),
    )
    checked = await AGENTS.verify(
        VerifyInput(subclaim=sub, drafts=(backend_support,), evidence=(camera_ev,))
    )
    (rejected,) = checked.results
    assert not rejected.verified and rejected.reason.startswith("re-deriving the comparison")
    none = await argue(Dimension.AUTHENTICITY, (text_ev("Streets flooded in Paris."),))
    assert none.drafts == ()
    assert UncertaintyCode.NO_METADATA in [u.code for u in none.uncertainty]


async def test_verify_accepts_own_and_rejects_bad_drafts() -> None:
    ev = exif(capture_time="2019-06-01T10:00:00+02:00")
    out = await argue(Dimension.WHEN, (ev,))
    sub = (await claims(case())).subclaims["when"]
    good = out.drafts[0]
    unknown = good.model_copy(update={"evidence": ("ev:web:nope",)})
    absent = good.model_copy(update={"key_facts": ("2021-12-25",)})
    flipped = good.model_copy(update={"stance": Stance.SUPPORT})
    empty = ArgumentDraft(stance=Stance.ATTACK, text="No evidence at all.", evidence=())
    result = await AGENTS.verify(
        VerifyInput(subclaim=sub, drafts=(good, unknown, absent, flipped, empty), evidence=(ev,))
    )
    verified = [r.verified for r in result.results]
    assert verified == [True, False, False, False, False]
    codes = [r.uncertainty for r in result.results]
    assert codes[1] == (UncertaintyCode.UNRESOLVED_EVIDENCE,)
    assert codes[2] == (UncertaintyCode.UNVERIFIED_ARGUMENT,)
    assert codes[3] == (UncertaintyCode.UNVERIFIED_ARGUMENT,)
    assert codes[4] == (UncertaintyCode.UNRESOLVED_EVIDENCE,)


async def test_verify_text_key_facts() -> None:
    ev = text_ev("The photo was taken during floods in 2016.")
    out = await argue(Dimension.WHEN, (ev,))
    sub = (await claims(case())).subclaims["when"]
    result = await AGENTS.verify(VerifyInput(subclaim=sub, drafts=out.drafts, evidence=(ev,)))
    assert [r.verified for r in result.results] == [True]


async def test_plan_and_memory() -> None:
    sub = (await claims(case())).subclaims["where"]
    plan = await AGENTS.plan(
        PlanInput(case=case(), subclaim=sub, memory=MemoryView(subclaim=sub.id))
    )
    assert plan.memory_used == ()
    assert any("within 50 km of Paris" in q for q in plan.questions)
    with_memory = await AGENTS.plan(
        PlanInput(
            case=case(),
            subclaim=sub,
            memory=MemoryView(
                subclaim=sub.id,
                records=("mem:rule:0007",),
                guidance=(
                    MemoryGuidance(
                        id="mem:rule:0007",
                        type="semantic",
                        dimension="where",
                        lesson="Street signs in the image name the district.",
                        action="add-check",
                        queries=("Paris street sign district",),
                        source_types=("official",),
                        checks=("read street signs",),
                    ),
                ),
            ),
        )
    )
    assert with_memory.memory_used == ("mem:rule:0007",)
    assert any("mem:rule:0007" in c for c in with_memory.checks)
    assert "Paris street sign district" in with_memory.queries
    assert with_memory.source_types[0] == "official"
    # a retrieved id without guidance for this subclaim shapes nothing
    other = await AGENTS.plan(
        PlanInput(case=case(), subclaim=sub, memory=MemoryView(subclaim=sub.id, records=("mem:x",)))
    )
    assert other.memory_used == () and other.checks == plan.checks


async def test_judge_clash_prefers_metadata() -> None:
    sub = (await claims(case())).subclaims["when"]
    meta, txt = exif(capture_time="2019-06-01T10:00:00"), text_ev("Paris flooded on 14 March 2023.")
    support = ArgumentDraft(
        stance=Stance.SUPPORT, text="t", evidence=(txt.id,), key_facts=("14 March 2023",)
    )
    attack = ArgumentDraft(
        stance=Stance.ATTACK, text="m", evidence=(meta.id,), key_facts=("2019-06-01",)
    )
    judged = await AGENTS.judge_clash(
        ClashInput(subclaim=sub, support=support, attack=attack, evidence=(meta, txt))
    )
    assert 0.0 <= judged.support_win_rate < 0.5


async def test_determinism() -> None:
    evidence = (
        exif(
            capture_time="2019-06-01T10:00:00",
            latitude=45.764,
            longitude=4.8357,
            software="GIMP 2.10",
        ),
        text_ev("The photo was actually taken in Bangkok, Thailand in 2016 by Somchai Wong."),
    )
    first: list[str] = []
    second: list[str] = []
    for sink in (first, second):
        c = case()
        result = await claims(c)
        sink.append(result.model_dump_json())
        for sub in result.subclaims.values():
            out = await AGENTS.argue(
                ArgueInput(
                    case=c, subclaim=sub, evidence=evidence, memory=MemoryView(subclaim=sub.id)
                )
            )
            sink.append(out.model_dump_json())
    assert first == second
    fresh = OfflineAgents(Settings())
    assert (
        await fresh.decompose(DecomposeInput(case=case(), evidence=()))
    ).model_dump_json() == first[0]


@pytest.mark.parametrize("dim", list(Dimension))
async def test_every_draft_cites_known_evidence(dim: Dimension) -> None:
    evidence = (
        exif(
            capture_time="2019-06-01T10:00:00",
            latitude=45.764,
            longitude=4.8357,
            software="GIMP 2.10",
            make="Canon",
        ),
        text_ev("The photo was actually taken in Bangkok, Thailand in 2016 by Somchai Wong."),
    )
    out = await argue(dim, evidence)
    ids = {e.id for e in evidence}
    assert all(d.evidence and set(d.evidence) <= ids for d in out.drafts)


async def test_who_compares_the_groups_the_people_are_said_to_belong_to() -> None:
    c = case("This photo of a Chilean firefighter is so moving")
    assert (await claims(c)).subclaims["who"].asserted
    att = await argue(
        Dimension.WHO,
        (text_ev("Canadian firefighters stationed in Alberta rest beside a truck."),),
        c,
    )
    assert stances(att) == [Stance.ATTACK] and att.drafts[0].key_facts == ("Canadian",)
    sup = await argue(Dimension.WHO, (text_ev("Chilean firefighters arrive in Valparaiso."),), c)
    assert stances(sup) == [Stance.SUPPORT]


async def test_a_caption_of_the_same_media_describing_another_event_attacks_why() -> None:
    c = case("Supporters celebrate the election victory in the capital.")
    other_event = "A delivery truck is stuck on a snowy mountain road after an avalanche."
    same_media = await argue(Dimension.WHY, (text_ev(other_event),), c)
    assert stances(same_media) == [Stance.ATTACK]
    assert "caption of the same media" in same_media.drafts[0].text
    # the same text as a news report about something else is not about this media: no attack
    news = text_ev(other_event).model_copy(update={"source_type": SourceType.NEWS})
    assert stances(await argue(Dimension.WHY, (news,), c)) == []
    restated = "Supporters celebrate the victory in the election in the capital city."
    assert Stance.ATTACK not in stances(await argue(Dimension.WHY, (text_ev(restated),), c))


async def test_a_quoted_claim_inside_a_fact_check_is_reported_speech() -> None:
    c = case("Flooding in Paris on 14 March 2024.", date="2024-03-14", location="Paris, France")
    check = text_ev(
        'The photo shared as "Paris under water, 14 March 2024" was taken in Lyon on 1 June 2019.'
    ).model_copy(update={"source_type": SourceType.FACT_CHECK})
    where = await argue(Dimension.WHERE, (check,), c)
    when = await argue(Dimension.WHEN, (check,), c)
    assert stances(where) == [Stance.ATTACK] and "Lyon" in where.drafts[0].key_facts
    assert Stance.SUPPORT not in stances(when) and Stance.ATTACK in stances(when)


async def test_shared_names_keep_a_short_caption_from_attacking_the_context() -> None:
    c = case(
        "Fans of the Spanish national team celebrate in Madrid after Spain won the "
        "European Championship final."
    )
    short = text_ev("The title was celebrated at the Cibeles fountain in Madrid.")
    assert Stance.ATTACK not in stances(await argue(Dimension.WHY, (short,), c))
