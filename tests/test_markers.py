"""The recontextualization markers: a data file with provenance, general phrases only.

Negative examples: true captions (hand-written, and VERITE's 338 true captions) must not fire;
positive examples are fact-check sentences written for these tests, not dataset rows."""

from __future__ import annotations

import csv

import pytest

from semv.nlp.markers import (
    RECONTEXT_MARKERS,
    marker_lists,
    parse_marker_file,
    recontext_marker,
)
from tests.conftest import shared_data

TRUE_CAPTIONS = (
    "Firefighters battle a blaze at a warehouse in Lyon on 3 March 2024.",
    "Supporters celebrate in the capital after the election results were announced.",
    "A man walks past a mural in the old town of Porto during the festival.",
    "The president speaks to reporters at the White House on Tuesday.",
    "Flood water covers a street after heavy rain in the northern province.",
    "Athletes compete in the final of the 100 metres at the national stadium.",
    "Children play football in a refugee camp near the border.",
    "A crowd gathers outside the courthouse ahead of the verdict.",
)

REFUTING = (
    ("The photo is miscaptioned: it shows a 2015 protest.", "refutation"),
    ("This image was digitally altered to add the crowd.", "refutation"),
    ("The video was first posted on YouTube in 2012.", "origin"),
    ("An old photo resurfaced online after the storm.", "origin"),
    ("The picture is AI-generated, according to its author.", "fiction"),
    ("The clip is video game footage, not a real battle.", "fiction"),
    ("The image does not show the flood in question.", "refutation"),
)


def test_every_list_has_provenance_and_patterns() -> None:
    lists = marker_lists()
    assert {m.label for m in lists} == {"refutation", "origin", "fiction"}
    for m in lists:
        assert len(m.provenance) > 40  # a sentence saying where the list comes from
        assert m.patterns
    assert len(RECONTEXT_MARKERS) == sum(len(m.patterns) for m in lists)


@pytest.mark.parametrize("caption", TRUE_CAPTIONS)
def test_true_captions_do_not_fire(caption: str) -> None:
    assert recontext_marker(caption) is None


@pytest.mark.parametrize(("text", "label"), REFUTING)
def test_fact_check_sentences_fire(text: str, label: str) -> None:
    found = recontext_marker(text)
    assert found is not None and found[0] == label


def test_phrases_fitted_to_rows_are_gone() -> None:
    """The issue-16 list of phrases that each matched one development row."""
    for text in (
        "A scene from an online game.",
        "It was a marketing ploy for a psychometric test.",
        "A replica of the statue.",
        "A still from a sci-fi feature film.",
        "The dance was popularized in 2010 and seen since at least 2012.",
        "The city is nowhere near the coast; the sign was not intended for tourists.",
        "A montage shot in front of a green screen.",
    ):
        assert recontext_marker(text) is None, text


def test_bad_marker_files_name_the_line() -> None:
    with pytest.raises(ValueError, match=r"x\.txt:1: unknown marker label"):
        parse_marker_file("@list rumour\n@provenance p\nabc\n", "x.txt")
    with pytest.raises(ValueError, match="no @provenance"):
        parse_marker_file("@list origin\nabc\n", "x.txt")
    with pytest.raises(ValueError, match=r"x\.txt:3: bad pattern"):
        parse_marker_file("@list origin\n@provenance p\n(unclosed\n", "x.txt")
    with pytest.raises(ValueError, match="before any @list"):
        parse_marker_file("abc\n", "x.txt")


@pytest.mark.shared_data
def test_verite_true_captions_rarely_fire() -> None:
    """VERITE's true captions describe real scenes correctly; a marker that fires on them is
    not a marker of recontextualization. The few allowed are captions that truthfully call the
    image digital art or a staged prop (a caption saying so is evidence against a claim that
    the image is a real photograph). An earlier list fired on 39 of the 338."""
    path = shared_data("verite", "VERITE.csv")
    with path.open(newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["label"] == "true"]
    assert len(rows) == 338
    fired = [r["caption"] for r in rows if recontext_marker(r["caption"]) is not None]
    assert len(fired) <= 0.03 * len(rows), fired
