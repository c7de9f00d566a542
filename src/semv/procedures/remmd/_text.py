"""Classical multilingual text analysis for atomic points (no model): sentences,
quantities, names, attributions, refutation markers.

Dates come from ``semv.nlp.dates.find_dates`` (regex + dateparser, multilingual).
Everything here is deterministic and cached per text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Final

from semv.nlp.dates import DateMention, find_dates
from semv.nlp.text import STOPWORDS, fold, normalize_token
from semv.procedures.remmd._models import Quantity

__all__ = [
    "IMAGE_WORDS",
    "actor_of",
    "attribution_marker",
    "english_date",
    "entities",
    "is_refutation",
    "quantities",
    "sentence_dates",
    "sentences",
]

_ABBREVIATIONS: Final = re.compile(
    r"\b(?:Mr|Mrs|Ms|Dr|Prof|St|Gen|Sen|Rep|Gov|Lt|Col|Inc|Ltd|Co|Jr|Sr|vs|etc|Nr|No|bzw|"
    r"ca|z\.B|u\.a|S|Mme|Mlle|M)\.$"
)
_BOUNDARY: Final = re.compile(r"(?<=[.!?…])[\"'”’»)\]]*\s+|(?<=[。！？])\s*|\n+")


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences: after . ! ? … followed by space, after 。！？ and at
    line breaks; not after a known abbreviation, an initial or a number's decimal point."""
    out: list[str] = []
    pending = ""
    pos = 0
    for m in _BOUNDARY.finditer(text):
        piece = pending + text[pos : m.end()]
        pos = m.end()
        head = piece.rstrip()
        if "\n" not in m.group(0) and (
            _ABBREVIATIONS.search(head)
            or re.search(r"(?:^|\s)[A-Z]\.$", head)
            or re.search(r"(?:^|\s)\d{1,2}\.$", head)  # "am 18. März", "le 1. ..."
        ):
            pending = piece
            continue
        pending = ""
        if head.strip():
            out.append(re.sub(r"\s+", " ", head.strip()))
    rest = (pending + text[pos:]).strip()
    if rest:
        out.append(re.sub(r"\s+", " ", rest))
    return out


_SCALES: Final[dict[str, float]] = {
    "thousand": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "mio": 1e6,
    "millionen": 1e6,
    "billion": 1e9,
    "billions": 1e9,
    "milliard": 1e9,
    "milliards": 1e9,
    "milliarde": 1e9,
    "milliarden": 1e9,
    "mrd": 1e9,
    "triệu": 1e6,
    "tỷ": 1e9,
    "nghìn": 1e3,
    "ngàn": 1e3,
    "万": 1e4,
    "億": 1e8,
    "亿": 1e8,
    "千": 1e3,
}
_NUMBER: Final = re.compile(
    r"(?<![\w.,])(\d{1,3}(?:[,.\u202f\u00a0 ]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?)"
    r"(?:\s*(%|‰|percent|per cent|pour cent|prozent|phần trăm|万|億|亿|千)"
    r"|\s*-?\s*([^\W\d_][\w\-]*))?",
    re.UNICODE | re.IGNORECASE,
)


def _value(raw: str) -> float | None:
    s = raw.replace("\u202f", "").replace("\u00a0", "").replace(" ", "")
    if "," in s and "." in s:
        decimal = "," if s.rfind(",") > s.rfind(".") else "."
        s = s.replace("." if decimal == "," else ",", "").replace(decimal, ".")
    elif s.count(",") + s.count(".") == 1:
        sep = "," if "," in s else "."
        head, tail = s.split(sep)
        s = head + tail if len(tail) == 3 and head != "0" else head + "." + tail
    else:
        s = s.replace(",", "").replace(".", "")
    try:
        return float(s)
    except ValueError:
        return None


def quantities(text: str, dates: list[DateMention] | None = None) -> tuple[Quantity, ...]:
    """Numbers with what they count (``600 storm reports`` → 600, "storm"), scale words
    applied (``500 Milliarden`` → 5e11); years and day numbers inside dates are left out."""
    spans = [(d.start, d.end) for d in (dates if dates is not None else find_dates(text))]
    out: list[Quantity] = []
    for m in _NUMBER.finditer(text):
        if any(s <= m.start() < e for s, e in spans):
            continue
        value = _value(m.group(1))
        if value is None:
            continue
        unit = ""
        if m.group(2):
            symbol = m.group(2).lower()
            if symbol in _SCALES:
                value *= _SCALES[symbol]
            else:
                unit = "%"
        elif m.group(3):
            word = fold(m.group(3))
            if word in _SCALES:
                value *= _SCALES[word]
                after = re.match(r"\s*-?\s*([^\W\d_][\w\-]*)", text[m.end() :])
                word = fold(after.group(1)) if after else ""
            unit = "" if word in STOPWORDS else normalize_token(word)
        if not unit and len(m.group(1)) == 4 and 1800 <= value <= 2100:
            continue  # a bare year that the date finder did not take
        out.append(Quantity(text=m.group(0).strip(), value=value, unit=unit))
    return tuple(out)


_WORD: Final = re.compile(r"[A-Za-z0-9À-ÖØ-öø-ɏḀ-ỿ'’\-]+")
_CONNECTORS: Final = frozenset("de du des la le van von der di da del al bin".split())  # noqa: SIM905


def _capitalized(word: str) -> bool:
    return word[:1].isupper()


_QUOTED_NAME: Final = re.compile(r"[「《『“\"]([^」》』”\"]{2,40})[」》』”\"]")
_KATAKANA: Final = re.compile(r"[\u30a0-\u30ff]{3,}")


def entities(text: str, *, first_word_too: bool = False) -> tuple[str, ...]:
    """Proper names: runs of capitalized Latin-script words (joined by de/von/van ...; not the
    text's first word alone unless ``first_word_too``), quoted names and katakana runs;
    stopwords dropped."""
    out: list[str] = []
    run: list[tuple[int, str]] = []

    def close() -> None:
        while run and run[-1][1].lower() in _CONNECTORS:
            run.pop()
        words = [w for _, w in run]
        while words and fold(words[0]) in STOPWORDS:
            words = words[1:]
        if words:
            name = " ".join(words).strip(" -'’")
            alone = len(words) == 1 and run[0][0] == 0 and not name.isupper()
            if len(name) >= 2 and fold(name) not in STOPWORDS and (first_word_too or not alone):
                out.append(name)
        run.clear()

    last_end = -1
    for m in _WORD.finditer(text):
        word = m.group(0)
        gap = text[last_end : m.start()] if last_end >= 0 else ""
        joined = last_end >= 0 and gap.strip() == ""
        if _capitalized(word) and not word.isdigit():
            if run and not joined:
                close()
            run.append((m.start(), word))
        elif run and joined and word.lower() in _CONNECTORS:
            run.append((m.start(), word))
        elif run:
            close()
        last_end = m.end()
    if run:
        close()
    out += [m.group(1).strip() for m in _QUOTED_NAME.finditer(text) if len(m.group(1)) <= 40]
    out += _KATAKANA.findall(text)
    seen: set[str] = set()
    unique = []
    for name in out:
        key = fold(name)
        if key not in seen:
            seen.add(key)
            unique.append(name)
    return tuple(unique)


_ATTRIBUTION: Final = re.compile(
    r"\b(?:said|says|told|stated|announced|claimed|confirmed|denied|admitted|warned|"
    r"according to|reported by|blamed|caused by|was behind|responsible for|carried out by|"
    r"a déclaré|a dit|selon|d'après|affirme|a affirmé|a annoncé|a indiqué|a confirmé|"
    r"revendiqué|attribué|causé par|sagte|sagt|laut|erklärte|teilte mit|betonte|kündigte|"
    r"nach angaben|verursacht|dijo|según|afirmó|anunció|cho biết|nói|tuyên bố|khẳng định|"
    r"theo|do .{1,30} gây ra)\b|表示|称|据|宣布|说|によると|と述べ|と発表|発表した|が原因",
    re.IGNORECASE,
)
_AFTER_MARKERS: Final = re.compile(
    r"\b(?:according to|reported by|caused by|carried out by|blamed on|selon|d'après|"
    r"causé par|laut|nach angaben (?:von|des|der)?|según|theo)\s+",
    re.IGNORECASE,
)


def attribution_marker(text: str) -> str | None:
    m = _ATTRIBUTION.search(text)
    return m.group(0) if m else None


def actor_of(text: str, names: tuple[str, ...]) -> str | None:
    """The attributed speaker or agent: the name right after "according to / selon / laut",
    else the name nearest before the attribution verb ("X said"), else the first name."""
    if not names or attribution_marker(text) is None:
        return None
    m = _AFTER_MARKERS.search(text)
    if m:
        for name in names:
            if text.find(name, m.end()) in range(m.end(), m.end() + 12):
                return name
        return None  # "selon les pompiers": no named source
    verb = _ATTRIBUTION.search(text)
    if verb is None:
        return None
    before = [(text.rfind(n, 0, verb.start()), n) for n in names]
    before = [(pos, n) for pos, n in before if pos >= 0]
    if before:
        return max(before)[1]
    return names[0]


_REFUTATION: Final = re.compile(
    r"\b(?:false|fake|hoax|fabricated|misleading|debunked|no evidence|not true|does not show|"
    r"did not|never happened|out of context|miscaptioned|doctored|manipulated|"
    r"faux|fausse|infox|trompeu|détourné|aucune preuve|n'a jamais|ne montre pas|"
    r"falsch|irreführend|gefälscht|kein beleg|nie|"
    r"falso|engañoso|sai sự thật|tin giả|bịa đặt|không đúng)\b|谣言|不实|虚假|辟谣|誤り|デマ|偽",
    re.IGNORECASE,
)


def is_refutation(text: str) -> bool:
    """A fact-check's verdict words (false, hoax, faux, falsch, tin giả, 谣言 ...)."""
    return _REFUTATION.search(text) is not None


_VI_DATE: Final = re.compile(
    r"(?:ngày\s+)?(\d{1,2})\s+tháng\s+(\d{1,2})(?:\s*(?:năm|,)\s*(\d{4}))?", re.IGNORECASE
)


def sentence_dates(text: str, language: str) -> list[DateMention]:
    """The absolute dates of a sentence (negated ones left out); Vietnamese "12 tháng 3 năm
    2024" too, which the shared date finder does not read."""
    found = [d for d in find_dates(text, language) if not d.negated]
    for m in _VI_DATE.finditer(text):
        # a bare year inside the match is the same date read less precisely ("... năm 2024,"):
        # the full reading replaces it; any other overlap keeps the shared finder's reading
        found = [
            d for d in found if not (d.month is None and m.start() <= d.start and d.end <= m.end())
        ]
        if any(d.start < m.end() and m.start() < d.end for d in found):
            continue
        day, month = int(m.group(1)), int(m.group(2))
        year = int(m.group(3)) if m.group(3) else None
        if 1 <= month <= 12 and 1 <= day <= 31:
            found.append(DateMention(year, month, day, m.group(0), m.start(), m.end()))
    return sorted(found, key=lambda d: d.start)


_MONTHS_EN: Final = (  # noqa: SIM905
    "January February March April May June July August September October November December"
).split()


def english_date(d: DateMention) -> str:
    """A date spelled the way English sources print it (bridge queries)."""
    if d.year is None:
        return f"{d.day} {_MONTHS_EN[(d.month or 1) - 1]}"
    if d.month is None:
        return str(d.year)
    if d.day is None:
        return f"{_MONTHS_EN[d.month - 1]} {d.year}"
    return f"{d.day} {_MONTHS_EN[d.month - 1]} {d.year}"


@lru_cache(maxsize=4096)
def ascii_fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


IMAGE_WORDS: Final = re.compile(
    r"\b(?:photo|picture|image|video|footage|pictured|screenshot|"
    r"cliché|vidéo|bild|foto|aufnahme|ảnh|hình)\w*|照片|图片|画像|写真|映像",
    re.IGNORECASE,
)
"""Words that say a text is about a picture (a refutation naming one applies to bindings)."""
