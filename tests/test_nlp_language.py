"""The one language identifier (``semv.nlp.language``): every text's language, the case's
declared language as a hint only."""

from __future__ import annotations

import pytest

from semv.nlp.language import UNDETERMINED, identify, language_of, normalize_code

SENTENCES = {
    "en": "The bridge was closed on Monday, the council said.",
    "fr": "Le pont de la ville est fermé depuis lundi selon la mairie.",
    "es": "Las inundaciones cortaron las carreteras de la provincia el martes.",
    "de": "Die Brücke ist seit Montag gesperrt, teilte die Stadtverwaltung mit.",
    "pt": "A ponte da cidade está fechada desde segunda-feira, segundo a prefeitura.",
    "it": "Il ponte della città è chiuso da lunedì, secondo il comune.",
    "nl": "De brug is sinds maandag gesloten, meldt de gemeente.",
    "vi": "Theo cơ quan chức năng, cây cầu đã bị đóng cửa.",
    "ja": "東京で地震があった。",
    "zh": "河水淹没了老城区",
    "ru": "Мост закрыт с понедельника, сообщили в мэрии.",
    "ar": "أغلق الجسر منذ يوم الاثنين حسب البلدية.",
}


@pytest.mark.parametrize("language", sorted(SENTENCES))
def test_identifies_the_language_of_a_sentence(language: str) -> None:
    assert language_of(SENTENCES[language]) == language


def test_the_hint_decides_only_what_the_text_cannot() -> None:
    # a confident French text stays French under an English hint
    assert identify(SENTENCES["fr"], "en").code == "fr"
    assert not identify(SENTENCES["fr"], "en").from_hint
    # too little text: the hint, else undetermined (and the caller's default)
    assert identify("12", "FR-ca") == identify("12", "fr")
    assert identify("12", "FR-ca").code == "fr" and identify("12", "fr").from_hint
    assert identify("12").code == UNDETERMINED
    assert language_of("12") == "en" and language_of("12", default="und") == "und"


def test_an_unsure_guess_yields_to_a_hint_the_model_also_considers() -> None:
    guess = identify("Roma, Italia")
    assert guess.probability < 0.99
    hinted = identify("Roma, Italia", "es")
    # either the model was confident (its own answer) or the hint won with the model's score
    assert hinted.code == guess.code or (hinted.code == "es" and hinted.from_hint)


def test_links_and_handles_are_not_read() -> None:
    assert (
        language_of("https://example.org/le-pont-est-ferme @mairie #pont " + SENTENCES["de"])
        == "de"
    )


def test_codes_are_normalized() -> None:
    assert normalize_code("pt_BR") == "pt"
    assert normalize_code("FR-ca") == "fr"
    assert normalize_code("") is None and normalize_code(None) is None
