"""Extraction on hand-written sentences (none is taken from an evaluation row):
dates, places (containment), people, the Marseille fix."""

from __future__ import annotations

import pytest

from semv.agents.offline import extract_facts, haversine_km
from semv.nlp.dates import Agreement, compare, find_dates, from_iso
from semv.nlp.entities import extract, names_overlap, person_matches, same_name
from semv.nlp.places import PlaceKind, Relation, relation, resolve, specific
from semv.nlp.text import content_words, lexical_overlap


def test_content_words_and_overlap() -> None:
    words = content_words("Supporters of President Macron celebrate in Paris's streets")
    assert {"macron", "paris", "street"} <= words
    assert "of" not in words and "in" not in words
    assert lexical_overlap("Tanks roll into the city", "A tank rolls into a city") > 0.6
    assert lexical_overlap("", "anything") == 0.0
    assert lexical_overlap("snow on the road", "snow on the road") == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("text", "language", "iso"),
    [
        ("Flooding in Lyon on 12 March 2024.", None, "2024-03-12"),
        ("Inondations à Lyon le 12 mars 2024.", "fr", "2024-03-12"),
        ("リヨンの洪水、2024年3月12日撮影", "ja", "2024-03-12"),
        ("Protesters in Kyiv on January 25, 2014.", None, "2014-01-25"),
        ("The photo is from Mar. 2022.", None, "2022-03"),
        ("Delegates met on 17.05.2016 at the town hall.", None, "2016-05-17"),
        ("A call with Putin on Feb. 9.", None, "--02-09"),
    ],
)
def test_dates(text: str, language: str | None, iso: str) -> None:
    assert iso in extract_facts(text, language).dates


def test_relative_negated_and_background_dates_are_dropped() -> None:
    assert extract_facts("Protesters gathered on Saturday last week.").dates == ()
    assert extract_facts("wow this is from 2009 not 2020").dates == ("2009",)
    facts = extract("Residents rebuild houses in a town that was destroyed by floods in 2013.")
    assert facts.dates == () and [d.iso for d in facts.background_dates] == ["2013"]
    assert [d.iso for d in find_dates("about 2,000 people in the 1890s")] == []


def test_date_comparison_granularity() -> None:
    def c(a: str, b: str) -> Agreement:
        da, db = from_iso(a), from_iso(b)
        assert da is not None and db is not None
        return compare(da, db, 2)[0]

    assert c("2022", "2022-03-12") is Agreement.AGREE
    assert c("2021-01", "2020") is Agreement.DISAGREE
    assert c("2023-03-14", "2023-03-15") is Agreement.AGREE
    assert c("--02-09", "--03-08") is Agreement.DISAGREE


def test_places_resolve_with_containment() -> None:
    facts = extract("Supporters celebrate in Paris, France, under the Eiffel Tower.")
    places = [m.place for m in facts.places if m.place is not None]
    assert {p.name for p in places} >= {"Paris", "France"}
    assert [p.name for p in specific(places)] == ["Paris"]
    paris, france, lyon = resolve("Paris"), resolve("France"), resolve("Lyon")
    assert paris is not None and france is not None and lyon is not None
    assert paris.country == "FR" and france.kind is PlaceKind.COUNTRY
    assert relation(france, paris, 50) is Relation.CONTAINS
    assert relation(paris, france, 50) is Relation.WITHIN
    assert relation(paris, lyon, 50) is Relation.FAR_SAME_COUNTRY
    kyiv = resolve("Kiev")
    assert kyiv is not None and kyiv.name == "Kyiv"
    assert relation(paris, kyiv, 50) is Relation.OTHER_COUNTRY
    assert resolve("BJP") is None  # acronyms never match a city's alternate names


def test_marseille_tagged_as_person_or_org_becomes_a_place() -> None:
    for sentence in ("Migrants arrive in Marseille on Tuesday.", "Marseille celebrates."):
        facts = extract_facts(sentence)
        assert "Marseille" in facts.places
        assert "Marseille" not in facts.people + facts.organizations
    chennai = extract_facts("Children play near Chennai's Marina Beach")
    assert "Chennai" in chennai.places and "Chennai" not in chennai.people


def test_people_and_surname_matching() -> None:
    facts = extract_facts("French President Emmanuel Macron meets Vladimir Putin in Moscow.")
    assert "Emmanuel Macron" in facts.people and "Vladimir Putin" in facts.people
    assert "Moscow" in facts.places
    assert person_matches("Rand Paul", "Paul")
    assert person_matches("Ahed Tamimi", "Tamimi")
    assert not person_matches("Paul Gosar", "Bob Agnew")


def test_same_name_for_people_organisations_and_events() -> None:
    assert same_name("Rand Paul", "Paul")  # a person's surname
    assert same_name("UNICEF", "unicef")  # equal once folded
    assert same_name("European Union", "the European Union summit")  # two words, whole
    assert same_name("the Red Cross appeal", "Red Cross")  # either way round
    assert not same_name("World Bank", "World Health Organization")  # a shared word is not enough
    assert not same_name("Red Crossing", "Red Cross appeal")  # whole words only
    assert not same_name("", "Paris") and not same_name("NATO", "  ")
    assert names_overlap("World Cup", "the 2018 FIFA World Cup final")
    assert not names_overlap("Paul", "Rand Paul")  # one word: only same_name's surname rule


def test_photo_credits_are_not_people() -> None:
    facts = extract_facts("Buses queue in Accra. (Photo by MARTA KOWALSKI/AFP via Getty Images)")
    assert facts.people == () and "Accra" in facts.places


def test_haversine() -> None:
    assert haversine_km(48.8566, 2.3522, 45.7640, 4.8357) == pytest.approx(392, abs=5)
    assert haversine_km(0.0, 0.0, 0.0, 0.0) == 0.0


def test_a_definite_one_word_name_is_not_a_person() -> None:
    from semv.agents.offline import extract_facts

    assert "Seine" not in extract_facts("Flooding in Paris: the Seine has burst its banks.").people
    assert "Joe Biden" in extract_facts("Joe Biden speaks in Iowa.").people


def test_a_possessive_country_is_an_affiliation_not_a_location() -> None:
    from semv.agents.offline import extract_facts

    assert extract_facts("Tom Becker was Germany's flag bearer at the parade.").places == ()
    assert "Paris" in extract_facts("Supporters celebrate in Paris.").places


def test_a_negated_year_after_a_comma_keeps_the_asserted_one() -> None:
    assert extract_facts("This picture was taken in 2011, not 2019").dates == ("2011",)
    assert extract_facts("It was not 2019 but 2011 when this was filmed").dates == ("2011",)
    mentions = find_dates("Filmed in 2011, not 2019")
    assert [(d.iso, d.negated) for d in mentions] == [("2011", False), ("2019", True)]
    assert extract_facts("In 2016, farmers marched on the capital.").dates == ("2016",)
    # digits after the comma make a number, not a year followed by a clause
    assert find_dates("Organisers counted 2011,500 marchers") == []


def test_a_possessive_city_before_a_landmark_is_where_the_scene_is() -> None:
    assert "Mumbai" in extract_facts("Commuters walk across Mumbai's Bandra-Worli Sea Link").places
    assert "Lagos" in extract_facts("Traffic jams on Lagos's streets").places
    # what a possessive country or city owns that is no site is still an affiliation
    assert "France" not in extract_facts("France's ambassador speaks in Dakar").places
    assert "Kenya" not in extract_facts("Kenya's Eliud Kipchoge wins in Berlin").places
