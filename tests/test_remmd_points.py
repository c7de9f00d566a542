"""ReMMD atomic points (ReMMD §3): sentence facts, near-duplicate merging, the 12-point cap
with central points first, queries in the post's language plus an English bridge query."""

from __future__ import annotations

import json

from semv.config import RemmdConfig, Settings
from semv.nlp.text import normalize_token
from semv.procedures.remmd._models import PointRole, PointType
from semv.procedures.remmd._text import quantities, sentences
from semv.procedures.remmd.points import extract_points
from tests.conftest import shared_data

CFG = Settings().remmd


def test_sentences_keep_abbreviations_decimals_and_german_ordinals() -> None:
    text = (
        "Dr. Smith said 3.5 million people were affected. Der Bundestag hatte am 18. März "
        "2025 beschlossen. 据新华社报道，3万人受灾。それは東京です。"
    )
    assert sentences(text) == [
        "Dr. Smith said 3.5 million people were affected.",
        "Der Bundestag hatte am 18. März 2025 beschlossen.",
        "据新华社报道，3万人受灾。",
        "それは東京です。",
    ]


def test_quantities_read_scale_words_units_and_locales() -> None:
    found = {
        q.text: (q.value, q.unit) for q in quantities("500 Milliarden Euro, 2,4% und 1.200 Tote")
    }
    assert found["500 Milliarden"] == (5e11, "euro")
    assert found["2,4%"] == (2.4, "%")
    assert found["1.200 Tote"] == (1200.0, normalize_token("tote"))  # units are normalized
    assert quantities("In 2019 the river rose.") == ()  # a year is not a quantity


def test_near_duplicate_points_are_merged_into_the_earlier_one() -> None:
    post = (
        "Floods hit Porto Alegre on 3 May 2024 after record rainfall. "
        "The mayor Sebastião Melo said 12 shelters opened in the city. "
        "Officials said on Friday that the mayor Sebastião Melo said 12 shelters opened in the "
        "city. "
        "The Guaíba river peaked at 5.3 metres."
    )
    points = extract_points(post, [], CFG, language="en", use_embeddings=False)
    shelters = [p for p in points.points if "shelters" in p.text]
    assert len(shelters) == 1
    assert points.merged >= 2  # the lead sentence into the narrative point, and the restatement
    assert any("Officials said on Friday" in t for t in shelters[0].merged_from) or (
        "Officials said on Friday" in shelters[0].text
    )
    texts = [p.text for p in points.points]
    assert len(texts) == len(set(texts))
    river = next(p for p in points.points if "Guaíba" in p.text)
    assert river.role is PointRole.NUMBER and not river.central  # a peripheral number


def test_distinct_claims_about_the_same_entities_are_not_merged() -> None:
    post = (
        "Floods hit Porto Alegre on 3 May 2024. "
        "The mayor of Porto Alegre said 12 shelters opened. "
        "The governor of Rio Grande do Sul said 80,000 people left Porto Alegre."
    )
    points = extract_points(post, [], CFG, language="en", use_embeddings=False)
    assert sum("shelters" in p.text for p in points.points) == 1
    assert sum("80,000" in p.text for p in points.points) == 1


_FACTS = (
    "Storms hit Lyon on 2 March 2024, the prefecture said.",
    "Enedis reported that 41,000 households lost power overnight.",
    "The Rhône rose 2.1 metres at the Pont Wilson gauge.",
    "Schools in Villeurbanne stayed closed on Monday.",
    "Firefighters from Grenoble carried out 380 rescues.",
    "Météo-France kept an orange alert for Isère until Tuesday.",
    "A tram line between Part-Dieu and Perrache was suspended.",
    "The mayor Grégory Doucet opened three emergency shelters.",
    "Insurers estimated claims at 95 million euros.",
    "Rail traffic to Marseille resumed after 14 hours.",
    "The Saône flooded quays near Saint-Jean cathedral.",
    "Volunteers distributed 6,000 meals at Gerland stadium.",
    "Two bridges over the Ain were inspected by engineers.",
    "Lyon airport cancelled 52 flights because of gusts.",
    "A landslide blocked the A7 motorway near Vienne.",
    "The regional council approved 20 million euros in aid.",
    "Farmers in Beaujolais reported hail damage to vines.",
    "Water was declared safe to drink again in Oullins.",
    "The Red Cross set up a blood drive in Bron.",
    "President Emmanuel Macron visited Lyon on 5 March 2024.",
)


def _long_post(n: int) -> str:
    return " ".join(_FACTS[:n])


def test_at_most_twelve_points_central_first() -> None:
    points = extract_points(_long_post(20), [], CFG, language="en", use_embeddings=False)
    assert len(points.points) == 12 == CFG.max_points
    assert points.candidates - points.merged - points.dropped == 12
    assert points.dropped > 0
    central = [p.central for p in points.points]
    assert central == sorted(central, reverse=True)  # every central point before any other
    assert points.points[0].type is PointType.NARRATIVE
    assert [p.id for p in points.points] == [f"a{n}" for n in range(1, 13)]


def test_the_cap_comes_from_the_settings() -> None:
    small = RemmdConfig(max_points=4)
    points = extract_points(_long_post(20), [], small, language="en", use_embeddings=False)
    assert len(points.points) == 4
    big = RemmdConfig(max_points=40)
    assert len(extract_points(_long_post(20), [], big, use_embeddings=False).points) == 20


def test_queries_in_the_posts_language_and_an_english_bridge() -> None:
    post = (
        "Le 15 avril 2019, un incendie a ravagé la cathédrale Notre-Dame de Paris. "
        "Selon les pompiers, 400 sapeurs-pompiers ont combattu le feu."
    )
    points = extract_points(post, [], CFG, language="fr", use_embeddings=False)
    lead = points.points[0]
    assert "avril" in lead.query and "Notre-Dame" in lead.query
    assert lead.bridge_query is not None
    assert "15 April 2019" in lead.bridge_query and "Notre-Dame" in lead.bridge_query
    assert "avril" not in lead.bridge_query
    english = extract_points("Fire hit Notre-Dame in Paris on 15 April 2019.", [], CFG)
    assert all(p.bridge_query is None for p in english.points)


def test_points_of_the_published_showcase_articles() -> None:
    """Real multilingual articles (ReMMD project page): every article yields at most twelve
    points, the lead claim first, a query each and a bridge query for non-English ones."""
    rows = json.loads(shared_data("remmd-showcase", "samples.json").read_text(encoding="utf-8"))
    for row in rows:
        points = extract_points(row["text"], [], CFG, language=row["language"])
        assert 1 <= len(points.points) <= 12, row["id"]
        assert points.points[0].type is PointType.NARRATIVE
        assert all(p.query for p in points.points)
        if row["language"] in ("fr", "de") and any(p.facts.dates for p in points.points):
            assert any(p.bridge_query for p in points.points), row["id"]
