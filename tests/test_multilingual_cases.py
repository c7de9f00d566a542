"""Cases in other languages, as a verification desk meets them: the Spanish Valencia case,
French and English names that are not people, and a French fact-check that quotes the claim
and rates it false."""

from __future__ import annotations

from semv.agents import ArgueInput, DecomposeInput
from semv.config import OfflineAgentConfig
from semv.model import (
    Case,
    Claims,
    Context,
    Evidence,
    MemoryView,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    Stance,
)
from semv.nlp.entities import extract
from semv.nlp.stance import Stance as TextStance
from semv.nlp.stance import judge_stance
from tests.test_offline_agents import AGENTS, exif

VALENCIA_CLAIM = "Foto de la riada en Valencia el 15 de agosto de 2022."


async def _claims(case: Case) -> Claims:
    return await AGENTS.decompose(DecomposeInput(case=case, evidence=()))


def _news(content: str, ev_id: str = "ev:sup:news") -> Evidence:
    return Evidence(
        id=ev_id,
        source="news",
        source_type=SourceType.NEWS,
        modality=Modality.TEXT,
        content=content,
        reliability=0.7,
        provenance=Provenance(producer=ProducerKind.DATASET, agent="test"),
    )


async def test_the_country_in_the_context_settles_valencia() -> None:
    case = Case(
        id="c", claim=VALENCIA_CLAIM, context=Context(location="Valencia, España", language="es")
    )
    claims = await _claims(case)
    assert claims.subclaims["where"].statement == "The events took place in Valencia, Spain"
    # a place and a date are never the people shown
    assert claims.subclaims["who"].statement == "The people shown (not named in the claim)"


async def test_an_ambiguous_place_is_reported_and_settled_only_by_the_gps() -> None:
    case = Case(id="c", claim=VALENCIA_CLAIM, context=Context(language="es"))
    where = (await _claims(case)).subclaims["where"]
    assert "Valencia (ambiguous:" in where.statement
    assert "Valencia, Venezuela" in where.statement and "Valencia, Spain" in where.statement
    memory = MemoryView(subclaim=where.id)
    # GPS 1 km from Valencia, Spain: the last resort settles the name there, and agrees
    near = exif(latitude=39.4699, longitude=-0.3763)
    out = await AGENTS.argue(ArgueInput(case=case, subclaim=where, evidence=(near,), memory=memory))
    assert [d.stance for d in out.drafts] == [Stance.SUPPORT]
    assert "Valencia, Spain" in out.drafts[0].text
    # an article is never a place: a Spanish report places nothing in Las Vegas
    report = _news("Las inundaciones dejaron las calles de Valencia bajo el agua.")
    out = await AGENTS.argue(
        ArgueInput(case=case, subclaim=where, evidence=(report,), memory=memory)
    )
    assert all("Las Vegas" not in d.text for d in out.drafts)
    assert all(d.stance is not Stance.ATTACK for d in out.drafts)


def test_the_country_named_in_the_phrase_settles_the_city() -> None:
    facts = extract("Las inundaciones en Valencia, España, el 15 de agosto de 2022.")
    assert facts.language == "es"
    assert [(m.text, m.place.label if m.place else None) for m in facts.places] == [
        ("Valencia", "Valencia, Spain"),
        ("España", "Spain"),
    ]
    assert [d.iso for d in facts.dates] == ["2022-08-15"]
    assert facts.people == ()


def test_landmarks_and_streets_are_not_people() -> None:
    french = extract("Des touristes sur la promenade des Anglais à Nice, le 14 juillet 2016.")
    assert french.people == ()
    assert [m.text for m in french.places] == ["Nice", "promenade des Anglais"]
    english = extract("The people gathered outside the Colosseum in Rome on 3 May 2021.")
    assert english.people == ()
    assert "St Mark" not in extract("Water covers St Mark's Square in Venice.").people


async def test_a_person_named_in_french_is_the_person_shown() -> None:
    case = Case(id="c", claim="Emmanuel Macron visite Marseille le 2 septembre 2021.")
    who = (await _claims(case)).subclaims["who"]
    assert who.statement == "The people shown include Emmanuel Macron"


CLAIM_FR = "Inondations à Paris le 14 mars 2024 : la Seine est sortie de son lit."
QUOTING = (
    "La photo partagée avec la légende « Paris sous les eaux, la Seine sortie de son lit, "
    "14 mars 2024 » a été prise à Lyon en 2019."
)


def test_a_french_fact_check_quoting_the_claim_and_rating_it_false_refutes_it() -> None:
    cfg = OfflineAgentConfig()
    rated = judge_stance(CLAIM_FR, f"FAUX. {QUOTING}", cfg)
    assert rated.stance is TextStance.REFUTES
    assert rated.features.quoted_and_rated_false and rated.features.marker == "FAUX"
    # the rule needs both: the quotation alone is no verdict
    assert not judge_stance(CLAIM_FR, QUOTING, cfg).features.quoted_and_rated_false
    # and a rating inside the quotation is what someone said, not the fact-checker's rating
    quoted_rating = "Le message « c'est faux, la Seine n'a pas débordé » circule depuis mars."
    assert not judge_stance(CLAIM_FR, quoted_rating, cfg).features.quoted_and_rated_false


async def test_the_french_fact_check_attacks_the_claim() -> None:
    case = Case(id="c", claim=CLAIM_FR, context=Context(language="fr"))
    why = (await _claims(case)).subclaims["why"]
    fact_check = Evidence(
        id="ev:sup:fc",
        source="factcheck",
        source_type=SourceType.FACT_CHECK,
        modality=Modality.TEXT,
        title="FAUX : cette photo ne montre pas Paris en mars 2024",
        content=QUOTING,
        reliability=0.8,
        provenance=Provenance(producer=ProducerKind.DATASET, agent="test"),
    )
    out = await AGENTS.argue(
        ArgueInput(
            case=case, subclaim=why, evidence=(fact_check,), memory=MemoryView(subclaim=why.id)
        )
    )
    assert [d.stance for d in out.drafts] == [Stance.ATTACK]
    assert "FAUX" in out.drafts[0].text
