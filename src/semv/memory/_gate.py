"""Candidate verification gating, Eq. 26, with Safe(κ) and Dup_src(κ).

Verify(κ) = 1[x(κ) ∈ D_learn ∧ |E_κ| + |𝒢_κ| > 0 ∧ E_κ ⊆ IDs(𝓔_i) ∧ 𝒢_κ ⊆ IDs(𝒢_i)
              ∧ c_κ ≥ θ_v ∧ Safe(κ) ∧ ¬Dup_src(κ)]

Missing or unresolved grounding, a source case outside the learning set, low confidence, an
unsafe lesson or a source duplicate reject the candidate; an unavailable or malformed safety
check puts it under review (kept in short-term memory, never promoted).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Set
from dataclasses import dataclass

from semv.memory._cues import CUE_KEYS
from semv.memory._model import Action, Candidate
from semv.model import Dimension

__all__ = ["GateResult", "SafetyUnavailable", "safe", "verify_candidate"]

VERIFIED = "verified"
UNDER_REVIEW = "under-review"
REJECTED = "rejected"

_OVERGENERAL = re.compile(
    r"\b(always|never|every (case|claim|caption|image)|all (cases|claims|captions)|regardless|"
    r"in any case|no matter)\b",
    re.IGNORECASE,
)
_LABEL_WORDS = re.compile(
    r"\b(ooc|nooc|out[- ]of[- ]context|false[- ]context|verified|manipulated|fake|true|false|"
    r"pristine|falsified)\b",
    re.IGNORECASE,
)
_VERDICT_VERBS = re.compile(
    r"\b(answer|label|predict|output|classify|call it|mark it|return|decide)\b", re.IGNORECASE
)
_AS_EVIDENCE = re.compile(
    r"(as evidence|cite (this|the) memory|memory (proves|shows|establishes|confirms)|"
    r"instead of evidence|without evidence|no evidence (is )?needed|treat (this )?memory)",
    re.IGNORECASE,
)
_FORBIDDEN_PARAMS = frozenset({"evidence", "weight", "strength", "label", "score", "probability"})
FACTOR_BOUNDS = (0.25, 2.0)
"""The most a strength lesson may scale an argument's w_a: down to a quarter, up to double
(a safety bound of the gate, not from the paper)."""


class SafetyUnavailable(Exception):
    """The safety check could not be carried out (malformed candidate or checker failure)."""


@dataclass(frozen=True)
class GateResult:
    status: str
    reasons: tuple[str, ...]

    @property
    def verified(self) -> bool:
        return self.status == VERIFIED


def safe(candidate: Candidate) -> tuple[bool, str]:
    """Safe(κ): reject unsupported, over-general, verdict-dictating or evidence-substituting
    lessons. Raises :class:`SafetyUnavailable` when the candidate cannot be checked."""
    if candidate.action not in {a.value for a in Action}:
        raise SafetyUnavailable(f"unknown action {candidate.action!r}")
    for name, value in candidate.params.items():
        if not isinstance(value, float | int) or not math.isfinite(value):
            raise SafetyUnavailable(f"parameter {name} is not a finite number")
    text = " ".join((candidate.lesson, *candidate.checks, *candidate.queries))
    if not candidate.trigger:
        return False, "over-general: no trigger pattern scopes the lesson"
    if candidate.dimension not in {d.value for d in Dimension}:
        return False, f"over-general: claim scope {candidate.dimension!r} is not a subclaim"
    if _OVERGENERAL.search(candidate.lesson):
        return False, "over-general: the lesson is stated without conditions"
    if _LABEL_WORDS.search(text) and _VERDICT_VERBS.search(text):
        return False, "dictates a verdict: memory may shape checks, never decide the label"
    if _AS_EVIDENCE.search(text) or _FORBIDDEN_PARAMS & set(candidate.params):
        return False, "would turn memory into evidence (Def. 3.1)"
    if candidate.action == Action.ADJUST_STRENGTH.value:
        ok, why = _strength_safe(candidate)
        if not ok:
            return False, why
    if candidate.action == Action.CONTEXT_THRESHOLD.value and candidate.polarity > 0:
        threshold = candidate.params.get("threshold")
        if threshold is None:
            raise SafetyUnavailable("context-threshold lesson without a threshold")
        if not 0.0 < threshold <= 0.6:
            return False, f"over-general: threshold {threshold:.2f} would fire on related captions"
    return True, "safe"


def _strength_safe(candidate: Candidate) -> tuple[bool, str]:
    """A strength lesson states its full condition (every cue key), a direction, and a factor
    within ``FACTOR_BOUNDS`` that moves the argument that way."""
    factor = candidate.params.get("factor")
    if factor is None:
        raise SafetyUnavailable("strength lesson without a factor")
    low, high = FACTOR_BOUNDS
    if not low <= factor <= high or factor == 1.0:
        return False, f"strength factor {factor:.2f} is outside [{low}, {high}] or moves nothing"
    missing = [k for k in CUE_KEYS if k not in candidate.trigger]
    if missing:
        return False, f"over-general: the strength condition leaves {', '.join(missing)} open"
    direction = candidate.trigger.get("adjust")
    if direction not in ("down", "up") or (direction == "down") != (factor < 1.0):
        return False, f"strength direction {direction!r} disagrees with factor {factor:.2f}"
    return True, "safe"


def verify_candidate(
    candidate: Candidate,
    *,
    learn_cases: Set[str],
    evidence_ids: Set[str],
    argument_ids: Set[str],
    theta_v: float,
    seen: tuple[Set[str], Set[str]],
    safety: Callable[[Candidate], tuple[bool, str]] = safe,
) -> GateResult:
    """Eq. 26 for one candidate against its source case's finalized trace.

    ``learn_cases`` is D_learn; ``evidence_ids``/``argument_ids`` are IDs(𝓔_i) and IDs(𝒢_i)
    of the source case's committed run; ``seen`` holds the cases and source fingerprints that
    already support the candidate's canonical key (Dup_src)."""
    reasons: list[str] = []
    if candidate.source_case not in learn_cases:
        reasons.append("source case is not in the learning set D_learn")
    if len(candidate.evidence) + len(candidate.arguments) == 0:
        reasons.append("empty grounding: |E_κ| + |𝒢_κ| = 0")
    missing_e = [e for e in candidate.evidence if e not in evidence_ids]
    if missing_e:
        reasons.append(f"unresolved evidence ids {missing_e}")
    missing_a = [a for a in candidate.arguments if a not in argument_ids]
    if missing_a:
        reasons.append(f"unresolved argument ids {missing_a}")
    if candidate.confidence < theta_v:
        reasons.append(f"c_κ = {candidate.confidence:.2f} < θ_v = {theta_v:.2f}")
    cases, fingerprints = seen
    if candidate.source_case in cases or candidate.source_fingerprint in fingerprints:
        reasons.append("Dup_src: the same case or source fingerprint already supports this key")
    try:
        ok, why = safety(candidate)
    except SafetyUnavailable as exc:
        if reasons:
            return GateResult(REJECTED, (*reasons, f"safety check unavailable: {exc}"))
        return GateResult(UNDER_REVIEW, (f"safety check unavailable: {exc}",))
    except Exception as exc:  # a failing checker is an unavailable check, not a pass
        if reasons:
            return GateResult(REJECTED, (*reasons, f"safety check failed: {exc}"))
        return GateResult(UNDER_REVIEW, (f"safety check failed: {exc}",))
    if not ok:
        reasons.append(f"Safe(κ) = 0: {why}")
    if reasons:
        return GateResult(REJECTED, tuple(reasons))
    return GateResult(VERIFIED, ("Eq. 26 holds",))
