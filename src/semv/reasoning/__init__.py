"""Argumentation and reasoning (SEMV §4.4, Module D): pure functions, no I/O.

* argument strength w_a (Eq. 14): :func:`argument_strength`, :func:`strength_from_features`,
  and as recalled strength lessons move it: :func:`memory_factor`, :func:`remembered_strength`;
* claim score and decision band (Eq. 16-18): :func:`influence`, :func:`claim_score`,
  :func:`band`, :func:`delta_for_score`;
* general weighted QBAFs under quadratic-energy, DF-QuAD and Euler-based semantics:
  :class:`Qbaf`, :class:`NonConvergence`;
* sparse argument-to-argument relations (A-QBAF MV2026 §2.5) and their propagation:
  :func:`build_relations`, :func:`propagate`;
* clash resolution (§4.4; A-QBAF MV2026 §2.6.1): :func:`resolve_clash`,
  :func:`judge_adjustment`;
* final aggregation, confidence (Eq. 19), p(OOC) (Eq. 20) and label contracts:
  :func:`aggregate`, :func:`confidence`, :func:`ooc_probability`, :func:`contract`,
  :data:`COSMOS`, :class:`InternalContract`, :class:`RemmdContract`.

No import of semv beyond the data model: every constant arrives as a parameter, the caller
passing the ``semv.config.Settings`` section (``settings.decision``, ``settings.strength``
...) that satisfies the parameter protocol (:class:`DecisionParams`, :class:`StrengthParams`
...); the sections hold the paper's values (Table S4).
"""

from semv.reasoning._aggregate import (
    COSMOS,
    REMMD_FROM_INTERNAL,
    AggregateOutcome,
    CosmosContract,
    InternalContract,
    LabelContract,
    RemmdContract,
    aggregate,
    confidence,
    contract,
    deciding_dimensions,
    ooc_probability,
    spread,
)
from semv.reasoning._clash import ClashOutcome, judge_adjustment, resolve_clash
from semv.reasoning._directness import about_media, event_only_cap, media_grounds, outranked
from semv.reasoning._params import (
    AggregationParams,
    ClashParams,
    ConfidenceParams,
    DecisionParams,
    RelationsParams,
    ReviewParams,
    StrengthParams,
)
from semv.reasoning._qbaf import NonConvergence, Qbaf, SolveMethod
from semv.reasoning._relations import VISUAL_CUE_KINDS, Propagated, build_relations, propagate
from semv.reasoning._semantics import (
    SEMANTICS,
    Semantics,
    band,
    claim_score,
    delta_for_score,
    influence,
)
from semv.reasoning._strength import (
    ADJUST_STRENGTH,
    argument_strength,
    directness_factor,
    memory_factor,
    remembered_strength,
    strength_from_features,
)
from semv.reasoning._uncertainty import evidence_kind, review_codes
from semv.reasoning._words import is_are, join_words

__all__ = [
    "ADJUST_STRENGTH",
    "COSMOS",
    "REMMD_FROM_INTERNAL",
    "SEMANTICS",
    "VISUAL_CUE_KINDS",
    "AggregateOutcome",
    "AggregationParams",
    "ClashOutcome",
    "ClashParams",
    "ConfidenceParams",
    "CosmosContract",
    "DecisionParams",
    "InternalContract",
    "LabelContract",
    "NonConvergence",
    "Propagated",
    "Qbaf",
    "RelationsParams",
    "RemmdContract",
    "ReviewParams",
    "Semantics",
    "SolveMethod",
    "StrengthParams",
    "about_media",
    "aggregate",
    "argument_strength",
    "band",
    "build_relations",
    "claim_score",
    "confidence",
    "contract",
    "deciding_dimensions",
    "delta_for_score",
    "directness_factor",
    "event_only_cap",
    "evidence_kind",
    "influence",
    "is_are",
    "join_words",
    "judge_adjustment",
    "media_grounds",
    "memory_factor",
    "ooc_probability",
    "outranked",
    "propagate",
    "remembered_strength",
    "resolve_clash",
    "review_codes",
    "spread",
    "strength_from_features",
]
