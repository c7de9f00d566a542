"""Linguistic markers used by the offline rules (English).

``RECONTEXT_MARKERS``: phrases with which a fact-check, an earlier caption or a report refutes a
claim or gives the media another origin ("actually", "was taken in", "circulating since",
"montage", "artwork"...). ``EDITOR_SOFTWARE``: image/video editors named in an EXIF Software tag.
"""

# ruff: noqa: E501  (regular-expression tables read best one pattern per line)
from __future__ import annotations

import re

__all__ = ["EDITOR_SOFTWARE", "RECONTEXT_MARKERS", "editor_in", "recontext_marker"]

_MEDIA = r"(?:photo|photograph|image|picture|pic|video|footage|clip|still|shot|scene)s?"

RECONTEXT_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, re.I))
    for label, pattern in (
        # explicit refutation
        ("refutation", r"\b(?:actually|in fact|in reality|in truth)\b"),
        ("refutation", r"\b(?:is|was|were|are) (?:really|indeed)\b"),
        (
            "refutation",
            r"\b(?:false(?:ly)?|fake|hoax(?:es)?|debunk\w*|fabricated|misleading(?:ly)?)\b",
        ),
        ("refutation", r"\b(?:mislabell?ed|miscaptioned|out of context|misattributed)\b"),
        (
            "refutation",
            r"\b(?:not real|does ?n[o']t show|did ?n[o']t show|not (?:taken|filmed|from|related)|unrelated|nowhere near|no evidence|not intended)\b",
        ),
        (
            "refutation",
            r"\b(?:doctored|photoshopped|digitally (?:altered|manipulated|edited|created)|manipulated|satir\w*|parody)\b",
        ),
        # another origin of the same media
        (
            "origin",
            r"\b(?:was|were|is|has been|had been) (?:taken|filmed|shot|recorded|captured|made|created|produced) (?:in|at|on|during|by|from|near)\b",
        ),
        (
            "origin",
            r"\b(?:first|originally|previously) (?:posted|published|appeared|shared|popularized|uploaded|surfaced)\b",
        ),
        (
            "origin",
            r"\b(?:circulat\w+|since at least|dates? back|dating (?:back|from)|years? ago|archives?)\b",
        ),
        ("origin", r"\b(?:old|older|earlier|stock|archive) " + _MEDIA + r"\b"),
        ("origin", r"\b(?:this|the) " + _MEDIA + r" (?:is|was) from\b"),
        ("origin", r"\b(?:comes?|came) from (?:a|an|the)\b"),
        # staged, artificial or fictional media
        (
            "fiction",
            r"\b(?:montage|green screen|3d|cgi|computer[- ]generated|ai[- ]generated|deepfake|render(?:ing|ed)?|artwork|artist|illustration|digital art)\b",
        ),
        (
            "fiction",
            r"\b(?:video ?game|game footage|modded|(?:arma|computer|mobile|online) game|sci-fi|feature film|movie|film set|tv (?:show|series)|television (?:show|series)|episode|screenshot)\b",
        ),
        (
            "fiction",
            r"\b(?:replica|mannequin|costume|cosplay|marketing (?:ploy|stunt|campaign)|advertis\w+|psychometric|simulation)\b",
        ),
    )
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
