"""Small text helpers shared by the offline agents and the evidence-ranking stage.

Deliberately dependency-free and fast (no spaCy): Unicode normalization, a compact multilingual
stopword list, a light suffix normalization, and a set-based overlap measure.

``content_words`` keeps the words that carry content: lowercase, accents folded, stopwords and
pure numbers of fewer than four digits dropped, plural/verbal suffixes trimmed so that "tanks" and
"tank", "celebrates" and "celebrate" meet. ``lexical_overlap`` is the Ochiai (set cosine)
coefficient |A∩B| / sqrt(|A|·|B|) of the two content-word sets: symmetric, in [0, 1], and less
harsh on a short text compared with a long one than the Jaccard index.
"""

from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache

__all__ = [
    "STOPWORDS",
    "content_words",
    "find_phrase",
    "fold",
    "lexical_overlap",
    "normalize_token",
    "tokens",
]

STOPWORDS: frozenset[str] = frozenset(
    (  # noqa: SIM905
        "a about above after again against all almost also am among an and another any "
        "are around as at away back be became because become been before being below "
        "between both but by can cannot could did do does doing done down during each "
        "either else even ever every few for from further get gets getting got had has "
        "have having he her here hers herself him himself his how however i if in into is "
        "it its itself just last least less like made make many may me might more most "
        "much must my myself near neither never new no nor not now of off often on once "
        "one only onto or other others our ours ourselves out over own per perhaps put "
        "quite rather really said same say says see seen she should since so some still "
        "such than that the their theirs them themselves then there these they this those "
        "though through thus to too toward towards under until up upon us very via was we "
        "well were what when where whether which while who whom whose why will with "
        "within without would yet you your yours yourself yourselves s t re ve ll d m "
        "photo photos photograph photographs picture pictures image images video videos "
        "clip footage shows show showing shown depicts depict depicting pictured taken le "
        "la les un une des du de et en au aux est sont dans sur pour par avec ce cette "
        "qui que el los las del y por con para una es der die das den dem ein eine und "
        "ist sind im mit auf von zu "
    ).split()
)
"""Function words (English plus the commonest French, Spanish, German ones) and the words that
only say "this is a picture" (photo, shows, ...), which every caption shares."""

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_SUFFIXES: tuple[str, ...] = ("ies", "sses", "ing", "ed", "es", "s")


def fold(text: str) -> str:
    """Lowercase and strip diacritics (NFKD), keeping non-Latin scripts intact."""
    if text.isascii():  # nothing to decompose; casefold is lower for ASCII
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", kept).casefold()


def tokens(text: str) -> list[str]:
    """Folded word tokens, possessive ``'s`` removed."""
    out: list[str] = []
    for match in _TOKEN.finditer(fold(text)):
        token = match.group(0)
        if token.endswith(("'s", "’s")):
            token = token[:-2]
        out.append(token.replace("’", "'"))
    return out


def _folded_token(token: str) -> str:
    token = fold(token)
    if token.endswith(("'s", "’s")):
        token = token[:-2]
    return token.replace("’", "'")


def find_phrase(phrase: str, text: str) -> str | None:
    """The span of ``text`` whose word tokens, folded (case, diacritics, possessive ``'s``),
    equal ``phrase``'s, whole words only; None when absent or when ``phrase`` has no content
    word (only stopwords or short numbers, which every text shares).

    "Ober Wiesenbach" is found in "the ober-wiesenbach signpost" ("ober-wiesenbach"), "Köln"
    in "KOLN"; "Wies" is not found in "Wiesenbach". The span is taken from ``text`` (NFC) as
    written, so it can stand as a key fact of an argument that cites ``text``.
    """
    wanted = [
        _folded_token(m.group(0)) for m in _TOKEN.finditer(unicodedata.normalize("NFC", phrase))
    ]
    if not wanted or not _content_words(" ".join(wanted)):
        return None
    text = unicodedata.normalize("NFC", text)
    found = list(_TOKEN.finditer(text))
    words = [_folded_token(m.group(0)) for m in found]
    n = len(wanted)
    for i in range(len(words) - n + 1):
        if words[i : i + n] == wanted:
            return text[found[i].start() : found[i + n - 1].end()]
    return None


@lru_cache(maxsize=65536)
def normalize_token(token: str) -> str:
    """A light, deterministic suffix normalization (not a full stemmer).

    Plural and verbal endings are trimmed, then a final "e", so that "cities"/"city",
    "tanks"/"tank", "celebrates"/"celebrated"/"celebrate" map to one form.
    """
    if len(token) <= 3 or not token.isalpha():
        return token
    stem = token
    for suffix in _SUFFIXES:
        if not token.endswith(suffix) or len(token) - len(suffix) < 3:
            continue
        if suffix == "ies":
            stem = token[:-3] + "y"
        elif suffix == "sses":
            stem = token[:-2]
        elif suffix == "es" and not token[:-2].endswith(("s", "x", "z", "ch", "sh")):
            stem = token[:-1]
        elif suffix == "s" and token.endswith(("ss", "us", "is")):
            stem = token
        else:
            stem = token[: -len(suffix)]
        break
    if stem.endswith("e") and len(stem) > 3:
        stem = stem[:-1]
    return stem


@lru_cache(maxsize=8192)
def _content_words(text: str) -> frozenset[str]:
    words: set[str] = set()
    for token in tokens(text):
        if token in STOPWORDS:
            continue
        if token.isdigit() and len(token) < 4:
            continue
        if len(token) == 1 and token.isascii():
            continue
        words.add(normalize_token(token))
    return frozenset(words)


def content_words(text: str) -> set[str]:
    """The content words of ``text``: folded, stopwords removed, suffix-normalized."""
    return set(_content_words(text))


def lexical_overlap(a: str, b: str) -> float:
    """Ochiai overlap of the content words of two texts, in [0, 1] (0 when either is empty)."""
    wa = _content_words(a)
    wb = _content_words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / math.sqrt(len(wa) * len(wb))
