"""The plain-language glossary: every label, code and symbol a user sees, explained once.

One source for the report footer (``semv.report``), the web case page, the CLI's help texts
and ``docs/glossary.md`` (``python -m semv.glossary > docs/glossary.md``; a test checks the
file is current), so the explanations cannot drift apart. ``tests/test_glossary.py`` checks
that every verdict label, band, uncertainty code, dimension and stage symbol of
``semv.model`` has an entry.

Imports only ``semv.model`` (for the enums whose values it explains).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from semv.model import UncertaintyCode

__all__ = [
    "EXTRACTION_CODES",
    "GLOSSARY",
    "GROUPS",
    "Term",
    "explain",
    "markdown",
    "note_heading",
    "policy_meaning",
    "stage_name",
    "stage_word",
    "terms",
]


@dataclass(frozen=True)
class Term:
    """One entry: the term as a user sees it, its group and its plain-language meaning."""

    term: str
    group: str
    meaning: str


GROUPS: Final = (
    "Verdict labels",
    "Subclaim bands",
    "Dimensions",
    "Numbers in a report",
    "Review codes",
    "Pipeline stages",
    "Contesting a verdict",
    "Memory (learning from past cases)",
    "Evaluation",
)
"""Group order in the glossary."""

_LABELS = "Verdict labels"
_BANDS = "Subclaim bands"
_DIMS = "Dimensions"
_NUMBERS = "Numbers in a report"
_CODES = "Review codes"
_STAGES = "Pipeline stages"
_CONTEST = "Contesting a verdict"
_MEMORY = "Memory (learning from past cases)"
_EVAL = "Evaluation"

_C = UncertaintyCode

GLOSSARY: Final[tuple[Term, ...]] = (
    # ---- verdict labels (InternalLabel, CosmosLabel) -------------------------------------
    Term("verified", _LABELS, "Every checked part of the claim is supported by the evidence."),
    Term(
        "mostly-verified",
        _LABELS,
        "Every checked part of the claim is supported, but not strongly enough on average to "
        "call it verified.",
    ),
    Term(
        "partially-verified",
        _LABELS,
        "Some parts of the claim are weakly supported; none is clearly refuted.",
    ),
    Term(
        "false-context",
        _LABELS,
        "The media shows what the claim says happened, but the claim's place, date, people or "
        "purpose is wrong: real media used in a false context.",
    ),
    Term(
        "manipulated-or-synthetic",
        _LABELS,
        "The evidence says the media itself was edited or generated.",
    ),
    Term(
        "insufficient-evidence",
        _LABELS,
        "The evidence is too thin or too weak to decide either way.",
    ),
    Term(
        "uncertain",
        _LABELS,
        "The evidence points both ways, or too many parts of the claim are undecided: semv "
        "abstains and a person should decide. As a subclaim band: the score is near the "
        "middle (0.5).",
    ),
    Term("OOC", _LABELS, "Out of context (COSMOS label): the caption does not fit the image."),
    Term("NOOC", _LABELS, "Not out of context (COSMOS label): the caption fits the image."),
    # ---- bands (Band, Eq. 18) ------------------------------------------------------------
    Term(
        "supported",
        _BANDS,
        "This part of the claim is backed by the evidence (score above 0.70 with the default "
        "thresholds).",
    ),
    Term(
        "weakly-supported",
        _BANDS,
        "The evidence leans towards this part of the claim (score between 0.55 and 0.70).",
    ),
    Term(
        "weakly-refuted",
        _BANDS,
        "The evidence leans against this part of the claim (score between 0.30 and 0.45).",
    ),
    Term("refuted", _BANDS, "The evidence contradicts this part of the claim (score below 0.30)."),
    # ---- dimensions --------------------------------------------------------------------
    Term("what", _DIMS, "What the media shows: the event or scene the claim describes."),
    Term("where", _DIMS, "Where the media was captured."),
    Term("when", _DIMS, "When the media was captured."),
    Term("who", _DIMS, "The people or organisations shown."),
    Term("why", _DIMS, "Why the media is shared: the context the post gives it."),
    Term(
        "authenticity",
        _DIMS,
        "Whether the media is an unedited capture (not edited or generated).",
    ),
    Term(
        "subclaim",
        _DIMS,
        "One checkable part of the claim (one per dimension), with an id such as claim:where.",
    ),
    Term(
        "asserted",
        _DIMS,
        "Whether the claim itself states this part; a subclaim the claim does not state is "
        "still checked but carries less weight.",
    ),
    # ---- numbers and symbols -------------------------------------------------------------
    Term(
        "confidence",
        _NUMBERS,
        "How sure semv is of the verdict label, from 0 to 1 (Eq. 19): it grows with how far "
        "the subclaim scores are from the undecided middle.",
    ),
    Term(
        "ψ (score)",
        _NUMBERS,
        "A subclaim's score from 0 (refuted) to 1 (supported), 0.5 = undecided; it weighs the "
        "supporting against the attacking arguments (Eq. 16-17).",
    ),
    Term("ψ̄ (mean score)", _NUMBERS, "The average of all subclaim scores."),
    Term(
        "calibrated probability",
        _NUMBERS,
        "The probability of the positive class (COSMOS: OOC) from a calibration fitted on a "
        "declared training set, shown beside the paper's Eq. 20 value; it never changes the "
        "label. Its id names the calibration file it came from.",
    ),
    Term(
        "strength (w)",
        _NUMBERS,
        "How much an argument counts, from 0 to 1 (Eq. 14): the reliability of its sources, "
        "whether it was verified, and how directly it bears on the subclaim.",
    ),
    Term(
        "directness",
        _NUMBERS,
        "What an argument's evidence bears on: the media itself (its metadata, credentials, "
        "text in it), an item that refers to this media (a reverse-image match, a caption or "
        "fact-check of this image), or only the event. On where, when, who and why a report "
        "of the event weighs less and does not cancel evidence about the media.",
    ),
    Term(
        "τ (weight)",
        _NUMBERS,
        "An argument's strength after two near-tied strong arguments were both reduced "
        "(clash resolution); equal to its strength otherwise.",
    ),
    Term(
        "support / attack total (S, A)",
        _NUMBERS,
        "The summed weights of the arguments for and against a subclaim.",
    ),
    Term(
        "reliability (r)",
        _NUMBERS,
        "How trustworthy a source is, from 0 to 1 (a fact-check 0.8, a news report 0.7, "
        "camera metadata 0.9, an automatic image description 0.5).",
    ),
    Term(
        "verified / not verified",
        _NUMBERS,
        "Whether a checker confirmed that the evidence an argument cites exists and says what "
        "the argument claims; an unverified argument counts for less.",
    ),
    Term(
        "clash",
        _NUMBERS,
        "Two strong arguments on opposite sides are nearly equal: both are reduced, and a "
        "clash judge says which side its evidence favours (the support win rate: 1 = the "
        "support is right, 0 = the attack is right, 0.5 = a tie).",
    ),
    Term(
        "σ (final strength)",
        _NUMBERS,
        "An argument's strength after the arguments that attack or support it (relations "
        "between arguments) were taken into account.",
    ),
    Term(
        "cue-conflict",
        _NUMBERS,
        "Relation between arguments: two arguments read the same visual cue in opposite ways, "
        "so each weakens the other.",
    ),
    Term(
        "metadata-contradiction",
        _NUMBERS,
        "Relation between arguments: the file's metadata contradicts the date or place another "
        "argument reports, so it weakens that argument.",
    ),
    Term(
        "corroboration",
        _NUMBERS,
        "Relation between arguments: two independent trusted sources confirm the same fact, so "
        "each strengthens the other.",
    ),
    Term(
        "aggregation rule",
        _NUMBERS,
        "The first of seven rules, in priority order, that turns the subclaim bands into the "
        "verdict label (for example rule 2: content supported but place or date refuted → "
        "false-context).",
    ),
    Term(
        "provenance",
        _NUMBERS,
        "Who or what produced an evidence item and how (tool and version, method, inputs).",
    ),
    Term(
        "SHA-256",
        _NUMBERS,
        "A fingerprint of a file's bytes: the same file always gives the same value, any "
        "change gives another.",
    ),
    Term(
        "forensic map",
        _NUMBERS,
        "An image that marks where error-level, noise or JPEG-ghost analysis finds unusual "
        "regions; such maps also flag many authentic photos.",
    ),
    # ---- uncertainty codes (UncertaintyCode) ---------------------------------------------
    Term(_C.TOOL_MISSING, _CODES, "A tool needed for an extraction is not installed."),
    Term(_C.MEDIA_UNREADABLE, _CODES, "The media file could not be read or decoded."),
    Term(_C.EMPTY_OUTPUT, _CODES, "A tool ran but found nothing (no text, no speech)."),
    Term(_C.MEDIA_NOT_LOADED, _CODES, "The media file was not available to this run."),
    Term(_C.NO_METADATA, _CODES, "The file carries no camera metadata (EXIF) to check."),
    Term(_C.GPS_INVALID, _CODES, "The GPS position in the metadata is impossible and was ignored."),
    Term(
        _C.METADATA_INVALID,
        _CODES,
        "A metadata value cannot be true (a capture time in the future, for example) and was "
        "ignored.",
    ),
    Term(_C.INPUT_TRUNCATED, _CODES, "A text was longer than allowed and was cut."),
    Term(
        _C.METADATA_DOUBTFUL,
        _CODES,
        "The metadata may not describe the capture (written by an image editor, a file that "
        "names no camera such as a screenshot or re-save, or a capture time after the media "
        "was already published): it still argues, with less weight, and outranks no report.",
    ),
    Term(_C.TIMEZONE_UNKNOWN, _CODES, "The capture time has no time zone; UTC was assumed."),
    Term(_C.NO_EVIDENCE, _CODES, "No evidence bears on this subclaim."),
    Term(
        _C.UNVERIFIED_ARGUMENT,
        _CODES,
        "An argument's cited evidence could not be confirmed, so it counts for less.",
    ),
    Term(_C.UNRESOLVED_EVIDENCE, _CODES, "An argument cites an evidence id that does not exist."),
    Term(_C.NOT_ASSERTED, _CODES, "The claim does not state this part; it was checked anyway."),
    Term(
        _C.NEUTRAL_BAND,
        _CODES,
        "The subclaim's score is in the undecided middle: the evidence does not settle it.",
    ),
    Term(
        _C.MAJOR_CONFLICT,
        _CODES,
        "Two strong arguments contradict each other (a clash): check which source is right.",
    ),
    Term(
        _C.METADATA_CLAIM_CONFLICT,
        _CODES,
        "The file's own metadata (GPS, capture time) contradicts the claim.",
    ),
    Term(_C.RETRIEVAL_GAP, _CODES, "Searching for evidence found nothing usable."),
    Term(
        _C.RETRIEVED_NOT_RELEVANT,
        _CODES,
        "Search returned items that are not about this claim's event (their relevance score is "
        "below the fitted threshold): they are listed with their scores and never argue.",
    ),
    Term(
        _C.EARLIER_CONTEXT_MATCH,
        _CODES,
        "The same media was found published earlier in another context.",
    ),
    Term(
        _C.FORENSIC_ANOMALY,
        _CODES,
        "The image's calibrated manipulation probability reached the review threshold (at "
        "most 5 % of real unedited photos of the choosing split do), or a cloned region was "
        "verified. A screening result held back for a reviewer, not evidence of manipulation "
        "unless forensic attacks are switched on. Look at the map, the region and the "
        "probability.",
    ),
    Term(
        _C.MEMORY_NOT_EVIDENCE,
        _CODES,
        "A lesson from past cases was used as guidance only, never as evidence.",
    ),
    Term(
        _C.DATE_AMBIGUOUS,
        _CODES,
        "A numeric date could be read day-first or month-first; one reading was used.",
    ),
    Term(_C.LOW_RELIABILITY, _CODES, "The subclaim rests on sources of low reliability."),
    Term(
        _C.OCR_ASR_DISAGREEMENT,
        _CODES,
        "Text read in the image and speech heard in the media disagree.",
    ),
    Term(
        _C.FORENSIC_SOURCE_CONFLICT,
        _CODES,
        "Forensic analysis and the sources point in opposite directions.",
    ),
    Term(
        _C.NEAR_TIE,
        _CODES,
        "Support and attack are almost equal: a small change would flip the subclaim.",
    ),
    Term(_C.MEDIA_TYPE_MISMATCH, _CODES, "The file's content is not the kind its name says."),
    Term(_C.MEDIA_TOO_SMALL, _CODES, "The media is too small for reliable analysis."),
    Term(_C.MEDIA_REFUSED, _CODES, "The media file was refused (too large or not allowed)."),
    Term(
        _C.MODEL_FALLBACK,
        _CODES,
        "A language-model answer was unusable or the model server unreachable; the offline "
        "rules were used instead.",
    ),
    Term(
        _C.ESCALATED,
        _CODES,
        "The subclaim was close to undecided, so a stronger checker re-verified its arguments.",
    ),
    Term(
        _C.ESCALATION_FAILED,
        _CODES,
        "The stronger checker's answer was unusable; the first result was kept.",
    ),
    # ---- stages (Stage) ------------------------------------------------------------------
    Term("C", _STAGES, "Claims: splitting the claim into subclaims."),
    Term("R", _STAGES, "Retrieval: finding evidence for each subclaim."),
    Term("V", _STAGES, "Validation: checking each evidence item."),
    Term("A", _STAGES, "Argumentation: writing the arguments for and against each subclaim."),
    Term("Q", _STAGES, "QBAF: weighing the arguments into a subclaim score."),
    Term("F", _STAGES, "Aggregation: turning the subclaim decisions into the verdict."),
    Term("O", _STAGES, "Output: writing the report."),
    Term(
        "QBAF",
        _STAGES,
        "Quantitative bipolar argumentation framework: the graph of weighted arguments for and "
        "against a subclaim, solved into its score.",
    ),
    # ---- contest (Module E) --------------------------------------------------------------
    Term(
        "route",
        _CONTEST,
        "The stage a review action re-enters the pipeline at (for example route Q: only the "
        "weighing of arguments is redone).",
    ),
    Term(
        "u* (restart stage)",
        _CONTEST,
        "The earliest stage any action of a review batch routes to: the revision recomputes "
        "from there on.",
    ),
    Term(
        "U (global)",
        _CONTEST,
        "Revision policy: recompute everything from the claims on.",
    ),
    Term(
        "C (causal)",
        _CONTEST,
        "Revision policy: recompute every subclaim from the restart stage on.",
    ),
    Term(
        "C+S (scoped)",
        _CONTEST,
        "Revision policy (the default): recompute only the subclaims the review touches, from "
        "the restart stage on.",
    ),
    Term(
        "tgt_h (target)",
        _CONTEST,
        "The id of the argument, evidence item or subclaim a review action is about.",
    ),
    Term(
        "Loc (locality)",
        _CONTEST,
        "The share of pipeline steps a revision did not have to redo.",
    ),
    # ---- memory (Module F) ---------------------------------------------------------------
    Term(
        "M^epi (episodic)",
        _MEMORY,
        "Memory policy: every verified lesson is kept as its own record for its case.",
    ),
    Term(
        "MU (unrestricted update)",
        _MEMORY,
        "Memory policy step: every lesson updates memory at once, unchecked.",
    ),
    Term(
        "VC (verified consolidation)",
        _MEMORY,
        "Memory policy step: lessons pass a check and are merged; contradicting ones are dropped.",
    ),
    Term(
        "CR (conflict retention)",
        _MEMORY,
        "Memory policy step: contradicting lessons are kept side by side and age out over "
        "time (the full policy).",
    ),
    # ---- evaluation ----------------------------------------------------------------------
    Term(
        "ReMMD L1 / L2",
        _EVAL,
        "The ReMMD benchmark's labels: L1 is the veracity (True … False), L2 the kinds of "
        "distortion found.",
    ),
    Term(
        "internal-to-ReMMD mapping",
        _EVAL,
        "How semv's verdict labels are translated to ReMMD's L1 labels (verified → True, "
        "mostly-verified → Mostly True, false-context → Mostly False, …).",
    ),
)
"""Every entry, grouped in ``GROUPS`` order."""

EXTRACTION_CODES: Final = frozenset(
    {
        _C.TOOL_MISSING,
        _C.MEDIA_UNREADABLE,
        _C.EMPTY_OUTPUT,
        _C.MEDIA_NOT_LOADED,
        _C.NO_METADATA,
        _C.GPS_INVALID,
        _C.METADATA_INVALID,
        _C.MEDIA_TOO_SMALL,
        _C.MEDIA_REFUSED,
        _C.MEDIA_TYPE_MISMATCH,
    }
)
"""Codes that say something could not be extracted from a file; every other code on a file is
a finding to review (a held-back forensic anomaly is not an extraction failure)."""

_BY_TERM: Final = {str(t.term): t for t in GLOSSARY}
_BY_KEY: Final = {str(t.term).split(" (")[0]: t for t in GLOSSARY}


def explain(term: str) -> str | None:
    """The meaning of ``term`` ("false-context", "near-tie", "C+S", "u*"), or None."""
    entry = _BY_TERM.get(term) or _BY_KEY.get(term)
    return entry.meaning if entry is not None else None


def stage_name(symbol: str) -> str:
    """A stage symbol in words, as a sentence starts it: "C" → "Claims", "Q" → "QBAF"."""
    meaning = explain(symbol)
    return meaning.split(":")[0] if meaning else symbol


def stage_word(symbol: str) -> str:
    """A stage symbol in words inside a sentence: "A" → "argumentation", "Q" → "QBAF"."""
    name = stage_name(symbol)
    return name if name.isupper() else name.lower()


_POLICY_TERMS: Final = {"global": "U (global)", "causal": "C (causal)", "scoped": "C+S (scoped)"}


def policy_meaning(policy: str) -> str:
    """A revision policy ("global", "causal", "scoped") with its symbol and meaning."""
    term = _POLICY_TERMS.get(policy)
    meaning = explain(term) if term is not None else None
    return f"{term}: {meaning}" if term is not None and meaning else policy


def note_heading(code: str) -> str:
    """How a report introduces an uncertainty item on a media file."""
    return "Not extracted" if code in EXTRACTION_CODES else "To review"


def terms(keys: Iterable[str]) -> tuple[Term, ...]:
    """The entries for ``keys`` (unknown keys skipped), in glossary order, each once."""
    wanted = {key for key in keys}
    return tuple(
        t for t in GLOSSARY if str(t.term) in wanted or str(t.term).split(" (")[0] in wanted
    )


def markdown() -> str:
    """``docs/glossary.md``: every entry under its group."""
    lines = [
        "# Glossary",
        "",
        "Every label, code and symbol semv shows, in plain language. Generated from",
        "`src/semv/glossary.py` (`python -m semv.glossary > docs/glossary.md`); reports show",
        "the entries they use in their footer.",
    ]
    for group in GROUPS:
        entries = [t for t in GLOSSARY if t.group == group]
        lines += ["", f"## {group}", "", "| Term | Meaning |", "|---|---|"]
        lines += [f"| `{t.term}` | {t.meaning} |" for t in entries]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
