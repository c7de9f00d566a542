"""Linguistic markers used by the offline rules (English).

``RECONTEXT_MARKERS``: phrases with which a fact-check, an earlier caption or a report refutes a
claim or gives the media another origin ("miscaptioned", "first posted", "AI-generated"), read
from ``data/recontext_markers.txt``, where every list carries a provenance line (a public
fact-check rating scale, recirculation vocabulary, the IPTC digital source type vocabulary) and
no phrase comes from evaluation rows. ``EDITOR_SOFTWARE``: image/video editors named in an EXIF
Software tag (product names).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = [
    "EDITOR_SOFTWARE",
    "RECONTEXT_MARKERS",
    "MarkerList",
    "editor_in",
    "marker_lists",
    "parse_marker_file",
    "recontext_marker",
]

MARKER_FILE = "recontext_markers.txt"
LABELS = frozenset({"refutation", "origin", "fiction"})


@dataclass(frozen=True)
class MarkerList:
    """One list of the marker file: its label, provenance and compiled patterns."""

    label: str
    provenance: str
    patterns: tuple[re.Pattern[str], ...]


def parse_marker_file(
    text: str, name: str = MARKER_FILE, labels: frozenset[str] = LABELS
) -> tuple[MarkerList, ...]:
    """The lists of a marker file (format in the file's header); ``labels`` are the list
    labels the file may use (the recontextualization labels by default).

    Raises:
        ValueError: naming the file and line: an unknown label, a list without provenance or
            patterns, a pattern before any list, or a pattern that does not compile.
    """
    lists: list[MarkerList] = []
    label: str | None = None
    provenance = ""
    patterns: list[re.Pattern[str]] = []
    start = 0

    def close() -> None:
        if label is None:
            return
        if not provenance:
            raise ValueError(f"{name}:{start}: list {label!r} has no @provenance line")
        if not patterns:
            raise ValueError(f"{name}:{start}: list {label!r} has no patterns")
        lists.append(MarkerList(label, provenance, tuple(patterns)))

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@list"):
            close()
            label, provenance, patterns, start = line[5:].strip(), "", [], number
            if label not in labels:
                raise ValueError(f"{name}:{number}: unknown marker label {label!r}")
        elif line.startswith("@provenance"):
            provenance = line[len("@provenance") :].strip()
        elif label is None:
            raise ValueError(f"{name}:{number}: pattern before any @list line")
        else:
            try:
                patterns.append(re.compile(line, re.I))
            except re.error as exc:
                raise ValueError(f"{name}:{number}: bad pattern {line!r}: {exc}") from None
    close()
    return tuple(lists)


@cache
def marker_lists() -> tuple[MarkerList, ...]:
    """The shipped marker lists (``semv/nlp/data/recontext_markers.txt``)."""
    text = resources.files("semv.nlp").joinpath("data", MARKER_FILE).read_text("utf-8")
    return parse_marker_file(text)


RECONTEXT_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (m.label, p) for m in marker_lists() for p in m.patterns
)

EDITOR_SOFTWARE: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.I))
    for name, pattern in (
        ("Photoshop", r"photoshop"),
        ("Lightroom", r"lightroom"),
        ("GIMP", r"\bgimp\b"),
        ("Snapseed", r"snapseed"),
        ("Affinity Photo", r"affinity photo"),
        ("Pixelmator", r"pixelmator"),
        ("Paint.NET", r"paint\.net"),
        ("Capture One", r"capture one"),
        ("Luminar", r"luminar"),
        ("PicsArt", r"picsart"),
        ("Facetune", r"facetune"),
        ("VSCO", r"\bvsco\b"),
        ("Canva", r"\bcanva\b"),
        ("Photopea", r"photopea"),
        ("Darktable", r"darktable"),
        ("RawTherapee", r"rawtherapee"),
        ("Adobe Premiere", r"premiere"),
        ("Final Cut", r"final cut"),
        ("After Effects", r"after effects"),
    )
)


def recontext_marker(text: str) -> tuple[str, str] | None:
    """The first (label, matched phrase) marker found in ``text``, in text order."""
    best: tuple[int, str, str] | None = None
    for label, pattern in RECONTEXT_MARKERS:
        match = pattern.search(text)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), label, match.group(0))
    return None if best is None else (best[1], best[2])


def editor_in(software: str) -> str | None:
    """The editor an EXIF Software value names, if any."""
    for name, pattern in EDITOR_SOFTWARE:
        if pattern.search(software):
            return name
    return None
