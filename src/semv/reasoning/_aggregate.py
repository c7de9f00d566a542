"""Final decision aggregation, confidence and label contracts (SEMV §4.4, Eq. 19-20)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from pydantic import BaseModel, ConfigDict, Field

from semv.model import (
    CONTEXT_DIMENSIONS,
    CORE_DIMENSIONS,
    REMMD_L1,
    AggregationRule,
    Band,
    CosmosLabel,
    Dimension,
    InternalLabel,
    SubclaimDecision,
    VeracityLabel,
)
from semv.reasoning._params import (
    AggregationParams,
    ConfidenceParams,
    DecisionParams,
)
from semv.reasoning._semantics import band as band_of
from semv.reasoning._words import is_are, join_words

__all__ = [
    "COSMOS",
    "REMMD_FROM_INTERNAL",
    "AggregateOutcome",
    "CosmosContract",
    "InternalContract",
    "LabelContract",
    "RemmdContract",
    "aggregate",
    "confidence",
    "contract",
    "deciding_dimensions",
    "ooc_probability",
    "spread",
]


_NEUTRAL: Final[float] = 0.5
"""The midpoint ½ of the score range in Eq. 19 (fixed by the equation, not a tunable)."""

_SUPPORTED_CONTENT: Final[frozenset[Band]] = frozenset({Band.SUPPORTED, Band.WEAKLY_SUPPORTED})
_REFUTED: Final[frozenset[Band]] = frozenset({Band.REFUTED, Band.WEAKLY_REFUTED})


class AggregateOutcome(BaseModel):
    """The internal decision ỹ and the aggregation rule that produced it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: InternalLabel
    fired: AggregationRule = Field(description="The rule that fired: its number and sentence.")
    mean_score: float = Field(description="ψ̄, the mean score of all subclaims.")
    deciding: tuple[Dimension, ...] = Field(
        (), description="The subclaims that decided the rule (``deciding_dimensions``)."
    )

    @property
    def rule(self) -> str:
        """``"Rule N: <sentence>"``."""
        return self.fired.text

    @property
    def rule_number(self) -> int:
        return self.fired.number


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _checked(
    decisions: Sequence[SubclaimDecision], bands: DecisionParams
) -> dict[Dimension, SubclaimDecision]:
    if not decisions:
        raise ValueError("aggregate needs at least one subclaim decision")
    by_dimension: dict[Dimension, SubclaimDecision] = {}
    for decision in decisions:
        if not math.isfinite(decision.score) or not 0.0 <= decision.score <= 1.0:
            raise ValueError(
                f"subclaim {decision.subclaim!r}: score must lie in [0, 1], got {decision.score!r}"
            )
        expected = band_of(decision.score, config=bands)
        if decision.band is not expected:
            raise ValueError(
                f"subclaim {decision.subclaim!r}: band {decision.band.value!r} does not match "
                f"its score {decision.score!r} (Eq. 18 gives {expected.value!r})"
            )
        if decision.dimension in by_dimension:
            raise ValueError(
                f"two decisions for dimension {decision.dimension.value!r}: "
                f"{by_dimension[decision.dimension].subclaim!r} and {decision.subclaim!r}"
            )
        by_dimension[decision.dimension] = decision
    return by_dimension


def aggregate(
    decisions: Sequence[SubclaimDecision],
    *,
    asserted: Mapping[Dimension, bool] | None = None,
    argued: bool | None = None,
    unargued: Collection[Dimension] = (),
    grounds: Mapping[Dimension, str] | None = None,
    config: AggregationParams,
    bands: DecisionParams,
) -> AggregateOutcome:
    """The internal decision ỹ from the subclaim decisions, by the priority-ordered rules of
    SEMV §4.4 ("Final Decision Aggregation"). The first rule that applies wins:

    1. ``authenticity`` is ``refuted`` → ``manipulated-or-synthetic``.
    2. ``what`` (the event content) is not refuted and one of ``where``, ``when``, ``who``,
       ``why`` (``CONTEXT_DIMENSIONS``; ``why`` is the caption-context claim) is refuted
       → ``false-context``. *Interpretation*: the paper's "supported event content" is read
       as a ``what`` band of at least ``uncertain`` — the content is not contradicted (rule 1
       has already excluded manipulated media) — and "refuted" as a band of at most
       ``weakly-refuted``. The precondition separates a false *context* from a false
       *content*: a refuted ``what`` never yields false context, but a ``what`` that no
       evidence speaks about (a text-only caption pair: two captions of the same media
       cannot disagree about its pixels, only about the event they attach them to) does not
       make a refuted context any less refuted (docs/architecture.md, "Aggregation").
    3. Every *present* core dimension (``CORE_DIMENSIONS``) is ``supported`` → ``verified``
       when their mean score is ≥ ``config.verified_mean`` (0.70), else ``mostly-verified``.
       A core dimension is present when it has a decision, if ``asserted`` is given
       ``asserted[dimension]`` is true (all dimensions with a decision when ``asserted`` is
       ``None``), and it is not in ``unargued``. The rule needs at least one present core
       dimension. *Deviation*: an asserted subclaim that no argument speaks to (``unargued``:
       neutral only for lack of evidence, e.g. ``authenticity`` of a photo without forensic
       evidence) is not present; the sentence names it as unchecked. Without this, such a
       case fell through every rule to rule 7 (docs/architecture.md, "Aggregation").
    4. Some subclaim is at least weakly supported (``weakly-supported`` or ``supported``)
       → ``partially-verified``. *Deviation*: the paper lists ``weakly-supported`` only,
       which left a case with a supported and an uncertain subclaim to rule 7.
    5. No subclaim has an argument (``argued`` is False: no usable evidence)
       → ``insufficient-evidence``; else at least ``max(1, ⌊K/2⌋)`` of the K subclaims are
       ``uncertain`` → ``uncertain``. (A case without any argument abstains as
       insufficient evidence; one with evidence that no rule decides stays ``uncertain``.)
    6. The mean score of all subclaims is below ``config.insufficient_mean`` (0.45)
       → ``insufficient-evidence``.
    7. Otherwise → ``uncertain``.

    Note that with the paper's constants the ``mostly-verified`` branch of rule 3 cannot
    fire: a ``supported`` score exceeds 0.70 (Eq. 18), so a mean of supported scores does
    too; it becomes reachable when ``verified_mean`` exceeds the ``supported`` band.

    Bands are those of each decision, which must agree with Eq. 18 applied to its score
    under ``bands``. ``grounds`` (:func:`semv.reasoning.media_grounds`) gives, per dimension,
    what the media's own evidence says; rules 2-4 name it for their deciding subclaims in
    their sentence, so a report's first sentence says which evidence about the media decided.

    Raises:
        ValueError: no decisions; a score outside [0, 1]; a band that does not match its
            score; two decisions for the same dimension.
    """
    by_dim = _checked(decisions, bands)
    mean_all = _mean([d.score for d in decisions])

    def outcome(label: InternalLabel, number: int, sentence: str) -> AggregateOutcome:
        return AggregateOutcome(
            label=label,
            fired=AggregationRule(number=number, sentence=sentence),
            mean_score=mean_all,
            deciding=deciding_dimensions(number, decisions, asserted, unargued),
        )

    def names(number: int) -> list[str]:
        return [d.value for d in deciding_dimensions(number, decisions, asserted, unargued)]

    def evidence_of(dims: Sequence[str]) -> str:
        """ " (where: EXIF GPS ...; when: ...)" for the dimensions ``grounds`` speaks to."""
        known = grounds or {}
        said = [f"{d}: {known[Dimension(d)]}" for d in dims if Dimension(d) in known]
        return f" ({'; '.join(said)})" if said else ""

    auth = by_dim.get(Dimension.AUTHENTICITY)
    if auth is not None and auth.band is Band.REFUTED:
        return outcome(
            InternalLabel.MANIPULATED_OR_SYNTHETIC,
            1,
            "the authenticity subclaim is refuted, so the media is manipulated or synthetic.",
        )

    what = by_dim.get(Dimension.WHAT)
    refuted_context = [d for d in names(2) if d != Dimension.WHAT.value]
    if what is not None and what.band not in _REFUTED and refuted_context:
        content = what.band.value if what.band in _SUPPORTED_CONTENT else "not refuted"
        return outcome(
            InternalLabel.FALSE_CONTEXT,
            2,
            f"{join_words(refuted_context)} {is_are(refuted_context)} refuted"
            f"{evidence_of(refuted_context)} while the event content (what) is {content}, so "
            "the media is used in a false context.",
        )

    present = names(3)
    if present and all(by_dim[Dimension(d)].band is Band.SUPPORTED for d in present):
        core_mean = _mean([by_dim[Dimension(d)].score for d in present])
        listed = join_words(present)
        unchecked = [
            d.value
            for d in CORE_DIMENSIONS
            if d in by_dim and d in unargued and (asserted is None or asserted.get(d, False))
        ]
        aside = (
            f"; {join_words(unchecked)} had no evidence either way and {is_are(unchecked)} "
            "not counted"
            if unchecked
            else ""
        )
        if core_mean >= config.verified_mean:
            return outcome(
                InternalLabel.VERIFIED,
                3,
                f"every present core dimension ({listed}) is supported"
                f"{evidence_of(present)} with mean score {core_mean:.2f} ≥ "
                f"{config.verified_mean:.2f}{aside}, so the case is verified.",
            )
        return outcome(
            InternalLabel.MOSTLY_VERIFIED,
            3,
            f"every present core dimension ({listed}) is supported"
            f"{evidence_of(present)} but their mean score {core_mean:.2f} is below "
            f"{config.verified_mean:.2f}{aside}, so the case is mostly verified.",
        )

    weakly = names(4)
    if weakly:
        strong = [d for d in weakly if by_dim[Dimension(d)].band is Band.SUPPORTED]
        weak = [d for d in weakly if d not in strong]
        said = [
            f"{join_words(group)} {is_are(group)} {how}"
            for group, how in ((strong, "supported"), (weak, "weakly supported"))
            if group
        ]
        short = [
            d.value
            for d in CORE_DIMENSIONS
            if d in by_dim and d.value in present and by_dim[d].band is not Band.SUPPORTED
        ]
        missing = (
            f"; {join_words(short)} {is_are(short)} not supported{evidence_of(short)}"
            if short
            else evidence_of(weakly)
        )
        return outcome(
            InternalLabel.PARTIALLY_VERIFIED,
            4,
            f"{' and '.join(said)}, so the case is partially verified{missing}.",
        )

    if argued is False:
        return outcome(
            InternalLabel.INSUFFICIENT_EVIDENCE,
            5,
            "no evidence item yielded an argument for any subclaim, so the evidence "
            "is insufficient.",
        )
    counts = Counter(d.band for d in decisions)
    needed = max(1, len(decisions) // 2)
    if counts[Band.UNCERTAIN] >= needed:
        return outcome(
            InternalLabel.UNCERTAIN,
            5,
            f"{counts[Band.UNCERTAIN]} of {len(decisions)} subclaims are uncertain "
            f"(at least {needed}), so the case is uncertain.",
        )

    if mean_all < config.insufficient_mean:
        return outcome(
            InternalLabel.INSUFFICIENT_EVIDENCE,
            6,
            f"the mean subclaim score {mean_all:.2f} is below "
            f"{config.insufficient_mean:.2f}, so the evidence is insufficient.",
        )

    return outcome(
        InternalLabel.UNCERTAIN,
        7,
        "no decisive rule applies, so the case remains uncertain.",
    )


def deciding_dimensions(
    rule_number: int,
    decisions: Sequence[SubclaimDecision],
    asserted: Mapping[Dimension, bool] | None = None,
    unargued: Collection[Dimension] = (),
) -> tuple[Dimension, ...]:
    """The subclaims whose bands decide rule ``rule_number`` of :func:`aggregate` (the ones
    a report names when it explains the verdict): rule 1 authenticity; rule 2 ``what`` and the
    refuted context dimensions; rule 3 the present core dimensions (asserted, not in
    ``unargued``); rule 4 the at least weakly supported ones; rule 5 the uncertain ones;
    rule 6 every subclaim (their mean); rule 7 none. Dimensions come in the order of
    ``decisions`` (rule 2: ``what`` first)."""
    by_dim = {d.dimension: d for d in decisions}
    if rule_number == 1:
        return tuple(d for d in (Dimension.AUTHENTICITY,) if d in by_dim)
    if rule_number == 2:
        context = [
            dim for dim in CONTEXT_DIMENSIONS if dim in by_dim and by_dim[dim].band in _REFUTED
        ]
        return tuple(d for d in (Dimension.WHAT,) if d in by_dim) + tuple(context)
    if rule_number == 3:
        return tuple(
            dim
            for dim in CORE_DIMENSIONS
            if dim in by_dim
            and (asserted is None or asserted.get(dim, False))
            and dim not in unargued
        )
    if rule_number == 4:
        return tuple(d.dimension for d in decisions if d.band in _SUPPORTED_CONTENT)
    if rule_number == 5:
        return tuple(d.dimension for d in decisions if d.band is Band.UNCERTAIN)
    if rule_number == 6:
        return tuple(d.dimension for d in decisions)
    return ()


def _check_mean(mean_score: float) -> float:
    if not math.isfinite(mean_score) or not 0.0 <= mean_score <= 1.0:
        raise ValueError(f"mean score must lie in [0, 1], got {mean_score!r}")
    return mean_score


def _floor(label: InternalLabel, config: ConfidenceParams) -> float:
    floors: dict[InternalLabel, float] = {
        InternalLabel.VERIFIED: config.verified,
        InternalLabel.MOSTLY_VERIFIED: config.mostly_verified,
        InternalLabel.PARTIALLY_VERIFIED: config.partially_verified,
        InternalLabel.FALSE_CONTEXT: config.false_context,
        InternalLabel.MANIPULATED_OR_SYNTHETIC: config.manipulated_or_synthetic,
        InternalLabel.INSUFFICIENT_EVIDENCE: config.insufficient_evidence,
        InternalLabel.UNCERTAIN: config.uncertain,
    }
    return floors[InternalLabel(label)]


def confidence(mean_score: float, label: InternalLabel, *, config: ConfidenceParams) -> float:
    """The escalation confidence of Eq. 19: ``γ = max(2·|ψ̄ − 0.5|, γ̲_ỹ)``.

    ``γ̲_ỹ`` is the label's floor from the ``confidence`` section (Table S4: verified 0.65;
    manipulated, false context and mostly verified 0.55; partially verified 0.45;
    insufficient evidence 0.35; uncertain, the abstention, 0).

    Raises:
        ValueError: ``mean_score`` is outside [0, 1].
    """
    distance = 2.0 * abs(_check_mean(mean_score) - _NEUTRAL)
    return max(distance, _floor(label, config))


def ooc_probability(mean_score: float, label: InternalLabel) -> float:
    """p(OOC) of Eq. 20: ψ̄ when the internal decision is ``false-context``, else 1 − ψ̄.

    Raises:
        ValueError: ``mean_score`` is outside [0, 1].
    """
    psi = _check_mean(mean_score)
    return psi if InternalLabel(label) is InternalLabel.FALSE_CONTEXT else 1.0 - psi


class LabelContract(Protocol):
    """An adapter's output contract 𝒴_δ: its labels, the map from the internal decision, and
    the class probabilities p of Eq. 2-3."""

    @property
    def name(self) -> str: ...

    @property
    def labels(self) -> tuple[str, ...]: ...

    def map(self, internal: InternalLabel) -> str:
        """The contract label ŷ for the internal decision ỹ."""
        ...

    def probabilities(self, mean_score: float, internal: InternalLabel) -> dict[str, float]:
        """p over ``labels`` (sums to 1) for mean subclaim score ψ̄ and decision ỹ."""
        ...


@dataclass(frozen=True)
class InternalContract:
    """The internal (MV2026) label space: the seven ``InternalLabel`` values.

    ``map`` is the identity. ``probabilities`` puts the Eq. 19 confidence γ on the chosen
    label and spreads 1 − γ uniformly over the other six. When γ < 1/7 (only possible for
    ``uncertain``, whose floor is 0, with ψ̄ near 0.5) that would rank the chosen label below
    the others; the chosen mass is then raised to 1/7, i.e. the distribution becomes
    uniform — the honest distribution for an abstention. So the chosen label always has the
    largest probability (strictly, whenever γ > 1/7).
    """

    config: ConfidenceParams

    @property
    def name(self) -> str:
        return "internal"

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(label.value for label in InternalLabel)

    def map(self, internal: InternalLabel) -> str:
        return InternalLabel(internal).value

    def probabilities(self, mean_score: float, internal: InternalLabel) -> dict[str, float]:
        gamma = confidence(mean_score, InternalLabel(internal), config=self.config)
        return spread(self.map(internal), gamma, self.labels)


@dataclass(frozen=True)
class CosmosContract:
    """The COSMOS binary contract 𝒴_COSMOS = {OOC, NOOC} (Eq. 3).

    ``false-context`` maps to ``OOC``, every other internal decision to ``NOOC``; ``p(OOC)``
    is Eq. 20 and ``p(NOOC) = 1 − p(OOC)``.

    The label and the argmax of ``p`` can disagree; this contract keeps both as the paper
    defines them (the label is the mapped internal decision, ``p`` is Eq. 20) rather than
    re-deriving one from the other. They agree exactly when ψ̄ > 0.5: a ``false-context``
    decision with ψ̄ < 0.5 is labelled OOC with p(OOC) = ψ̄ < 0.5, and any other decision with
    ψ̄ < 0.5 (e.g. ``insufficient-evidence``) is labelled NOOC with p(OOC) = 1 − ψ̄ > 0.5.
    """

    @property
    def name(self) -> str:
        return "cosmos"

    @property
    def labels(self) -> tuple[str, ...]:
        return (CosmosLabel.OOC.value, CosmosLabel.NOOC.value)

    def map(self, internal: InternalLabel) -> str:
        if InternalLabel(internal) is InternalLabel.FALSE_CONTEXT:
            return CosmosLabel.OOC.value
        return CosmosLabel.NOOC.value

    def probabilities(self, mean_score: float, internal: InternalLabel) -> dict[str, float]:
        p_ooc = ooc_probability(mean_score, internal)
        return {CosmosLabel.OOC.value: p_ooc, CosmosLabel.NOOC.value: 1.0 - p_ooc}


REMMD_FROM_INTERNAL: Final[dict[InternalLabel, VeracityLabel]] = {
    InternalLabel.VERIFIED: VeracityLabel.TRUE,
    InternalLabel.MOSTLY_VERIFIED: VeracityLabel.MOSTLY_TRUE,
    InternalLabel.PARTIALLY_VERIFIED: VeracityLabel.MIXTURE,
    InternalLabel.FALSE_CONTEXT: VeracityLabel.MOSTLY_FALSE,
    InternalLabel.MANIPULATED_OR_SYNTHETIC: VeracityLabel.FALSE,
    InternalLabel.INSUFFICIENT_EVIDENCE: VeracityLabel.MIXTURE,
    InternalLabel.UNCERTAIN: VeracityLabel.MIXTURE,
}
"""Internal decision → ReMMD L1. Authentic media with a false framing is a dominantly false
conclusion with a true residue (Mostly False); manipulated media is False. ReMMD has no
abstention, so the two abstentions map to the middle label, Mixture."""


@dataclass(frozen=True)
class RemmdContract:
    """The ReMMD L1 contract {True, Mostly True, Mixture, Mostly False, False}.

    A 5-way procedure (``semv.procedures``) decides the L1 label natively and uses it as ŷ;
    ``map`` serves semv's own decision. ``probabilities`` puts the Eq. 19 confidence γ on the
    chosen label and spreads 1 − γ over the other four (uniform when γ ≤ 1/5), as the internal
    contract does."""

    config: ConfidenceParams

    @property
    def name(self) -> str:
        return "remmd"

    @property
    def labels(self) -> tuple[str, ...]:
        return REMMD_L1

    def map(self, internal: InternalLabel) -> str:
        return REMMD_FROM_INTERNAL[InternalLabel(internal)]

    def probabilities(self, mean_score: float, internal: InternalLabel) -> dict[str, float]:
        gamma = confidence(mean_score, InternalLabel(internal), config=self.config)
        return spread(self.map(internal), gamma, self.labels)


def spread(chosen: str, gamma: float, labels: tuple[str, ...]) -> dict[str, float]:
    """γ on ``chosen``, 1 − γ spread uniformly over the other labels; uniform when
    γ ≤ 1/|labels| (so the chosen label never ranks below another)."""
    uniform = 1.0 / len(labels)
    if gamma <= uniform:
        return dict.fromkeys(labels, uniform)
    rest = (1.0 - gamma) / (len(labels) - 1)
    return {label: gamma if label == chosen else rest for label in labels}


COSMOS: Final[CosmosContract] = CosmosContract()


class _UnknownContract(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def contract(name: str, *, config: ConfidenceParams) -> LabelContract:
    """The label contract called ``name`` (case-insensitive): ``internal``, ``cosmos`` or
    ``remmd``.

    ``config`` (the ``confidence`` section) sets the floors of the ``internal`` contract's
    probabilities.

    Raises:
        KeyError: an unknown name; the message lists the valid ones.
    """
    contracts: dict[str, LabelContract] = {
        "internal": InternalContract(config=config),
        COSMOS.name: COSMOS,
        "remmd": RemmdContract(config=config),
    }
    found = contracts.get(name.lower()) if isinstance(name, str) else None
    if found is None:
        raise _UnknownContract(
            f"unknown label contract {name!r}; valid: {', '.join(sorted(contracts))}"
        )
    return found
