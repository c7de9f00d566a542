"""``semv.reasoning`` with the paper's parameters bound: the default ``semv.config`` sections
(Table S4), as a caller passes ``settings.decision``, ``settings.strength`` ... in a run.

``semv.reasoning`` takes every constant as a parameter; the tests that check the paper's
numbers import these bindings, and pass another section where they test another value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from semv import reasoning
from semv.config import (
    AggregationConfig,
    ClashConfig,
    ConfidenceConfig,
    DecisionConfig,
    StrengthConfig,
)
from semv.model import Band, InternalLabel
from semv.nlp.capture import CaptureChecks
from semv.nlp.text import lexical_overlap

DECISION = DecisionConfig()
STRENGTH = StrengthConfig()
CLASH = ClashConfig()
AGGREGATION = AggregationConfig()
CONFIDENCE = ConfidenceConfig()

INTERNAL = reasoning.InternalContract(config=CONFIDENCE)
REMMD = reasoning.RemmdContract(config=CONFIDENCE)


def band(score: float, *, config: reasoning.DecisionParams = DECISION) -> Band:
    return reasoning.band(score, config=config)


def claim_score(
    supports: Iterable[float], attacks: Iterable[float], base: float = DECISION.base_score
) -> float:
    return reasoning.claim_score(supports, attacks, base)


def delta_for_score(psi: float, base: float = DECISION.base_score) -> float:
    return reasoning.delta_for_score(psi, base)


def resolve_clash(
    supports: Any, attacks: Any, *, config: reasoning.ClashParams = CLASH, **kw: Any
) -> reasoning.ClashOutcome:
    return reasoning.resolve_clash(supports, attacks, config=config, **kw)


def argument_strength(*args: Any, config: reasoning.StrengthParams = STRENGTH, **kw: Any) -> float:
    return reasoning.argument_strength(*args, config=config, **kw)


def strength_from_features(
    *args: Any, config: reasoning.StrengthParams = STRENGTH, **kw: Any
) -> float:
    return reasoning.strength_from_features(*args, config=config, **kw)


def directness_factor(*args: Any, config: reasoning.StrengthParams = STRENGTH) -> float:
    return reasoning.directness_factor(*args, config=config)


def aggregate(
    decisions: Sequence[Any],
    *,
    config: reasoning.AggregationParams = AGGREGATION,
    bands: reasoning.DecisionParams = DECISION,
    **kw: Any,
) -> reasoning.AggregateOutcome:
    return reasoning.aggregate(decisions, config=config, bands=bands, **kw)


def confidence(
    mean_score: float, label: InternalLabel, *, config: reasoning.ConfidenceParams = CONFIDENCE
) -> float:
    return reasoning.confidence(mean_score, label, config=config)


def contract(
    name: str, *, config: reasoning.ConfidenceParams = CONFIDENCE
) -> reasoning.LabelContract:
    return reasoning.contract(name, config=config)


def capture_checks(offline: Any) -> CaptureChecks:
    """The metadata comparisons of an ``offline`` section, as the argue stage builds them."""
    return CaptureChecks(
        time_tolerance_days=offline.time_tolerance_days,
        place_tolerance_km=offline.place_tolerance_km,
        gps_country_max_km=offline.gps_country_max_km,
    )


OVERLAP: Callable[[str, str], float] = lexical_overlap
