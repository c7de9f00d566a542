"""Subclaims, arguments, claim-level QBAFs and decisions (Eq. 4, 12, 15-18)."""

from __future__ import annotations

from pydantic import Field

from semv.model._base import Frozen
from semv.model._enums import (
    Band,
    Dimension,
    Directness,
    RelationKind,
    Scope,
    Stance,
    UncertaintyCode,
)
from semv.model._facts import Facts


class ClaimFacts(Frozen):
    """Checkable facts a text asserts, extracted by the entity/date/place extractors."""

    places: tuple[str, ...] = ()
    dates: tuple[str, ...] = Field(
        (), description="ISO 8601 dates: YYYY, YYYY-MM, YYYY-MM-DD, or --MM-DD without a year."
    )
    people: tuple[str, ...] = ()
    organizations: tuple[str, ...] = ()
    groups: tuple[str, ...] = Field(
        (), description="Nationalities, religious or political groups (e.g. 'Ukrainian')."
    )
    events: tuple[str, ...] = ()
    keywords: tuple[str, ...] = Field((), description="Content lemmas describing what is shown.")


class Subclaim(Frozen):
    """c_k of Eq. 12: one scoped, independently verifiable statement."""

    id: str = Field(pattern=r"^claim:[a-z_]+$")
    dimension: Dimension
    statement: str
    claim_type: str = Field(description="What kind of fact it states (event, place, time...).")
    scope: Scope = Scope.CASE
    asserted: bool = Field(
        description="True when the claim text itself states something for this dimension."
    )
    facts: ClaimFacts = ClaimFacts()
    queries: tuple[str, ...] = Field((), description="Initial query seeds.")


class Origin(Frozen):
    """Who wrote an argument: an agent role of a backend, or a human reviewer."""

    kind: str = Field(pattern=r"^(agent|human)$")
    name: str = Field(description="Backend role (e.g. 'offline/opponent') or reviewer id.")


class StrengthFeatures(Frozen):
    """The inputs of Eq. 14, kept so the strength can be audited and re-derived."""

    reliability: float = Field(ge=0.0, le=1.0)
    relevance: float = Field(ge=0.0, le=1.0)
    n_sources: int = Field(ge=0)
    n_modalities: int = Field(ge=0)
    provenance_fraction: float = Field(ge=0.0, le=1.0)
    text_length: int = Field(ge=0)
    directness_factor: float = Field(
        1.0,
        ge=0.0,
        le=1.0,
        description="η_d: the discount of an argument whose evidence speaks only of the event "
        "on a subclaim about the media's context (1 otherwise).",
    )


class Argument(Frozen):
    """a = ⟨id, k, σ, t, E(a), M(a), v, w, ω⟩ (Eq. 4)."""

    id: str = Field(pattern=r"^arg:[a-z_]+:(sup|att|mix|neu):\d+$")
    subclaim: str
    stance: Stance
    text: str
    evidence: tuple[str, ...] = Field(description="E(a): cited current-case evidence ids.")
    memory: tuple[str, ...] = Field(
        (), description="M(a): memory ids that shaped it (never evidence)."
    )
    key_facts: tuple[str, ...] = Field(
        (), description="The facts the argument rests on; the verifier finds them in E(a)."
    )
    verified: bool = Field(False, description="v_a: the grounding verifier accepted it.")
    admissible: bool = Field(False, description="Adm_t(a) of Eq. 6.")
    features: StrengthFeatures | None = None
    directness: Directness = Field(
        Directness.EVENT,
        description="What its evidence bears on: the media itself, an item that refers to "
        "this media, or only the event (the most direct of its cited items).",
    )
    strength: float = Field(0.0, ge=0.0, le=1.0, description="w_a of Eq. 14.")
    uncertainty: tuple[UncertaintyCode, ...] = ()
    origin: Origin
    replaces: str | None = Field(None, description="Id of the argument an edit replaced.")
    facts: Facts = Field(
        Facts(), description="Its key facts, typed by its dimension (dates, places, quantities)."
    )


class Relation(Frozen):
    """An argument-to-argument edge of the sparse A-QBAF (A-QBAF MV2026 §2.5), built
    deterministically from the typed observations the two arguments cite.

    ``src`` → ``dst`` is the edge's direction; a mutual relation (cue conflict, corroboration)
    also holds ``dst`` → ``src`` and enters the QBAF as two edges under one id, so a reviewer
    rejects it as one thing."""

    id: str = Field(pattern=r"^rel:[a-z_]+:(cue|meta|conf):\d+$")
    subclaim: str
    kind: RelationKind
    src: str = Field(description="Argument id.")
    dst: str = Field(description="Argument id.")
    evidence: tuple[str, ...] = Field(
        description="The evidence ids whose observations establish the relation."
    )
    fact: str = Field(
        description="What relates them: the shared cue, the contradicted or the "
        "confirmed fact, in words."
    )

    @property
    def stance(self) -> Stance:
        return self.kind.stance

    @property
    def mutual(self) -> bool:
        return self.kind.mutual


class QbafEdge(Frozen):
    src: str
    dst: str
    kind: Stance = Field(description="SUPPORT or ATTACK.")
    weight: float = 1.0
    relation: str | None = Field(
        None,
        description="The argument-to-argument relation id; None for an argument-to-claim edge.",
    )


class ClashRecord(Frozen):
    """A major factual conflict found by clash resolution (§4.4)."""

    support: str
    attack: str
    support_strength: float
    attack_strength: float
    reduced: dict[str, float] = Field(description="Argument id → strength after reduction.")
    judge_win_rate: float | None = Field(
        None, description="The judge's win rate w of the support over the attack, if asked."
    )
    judge_reason: str = ""


class Qbaf(Frozen):
    """Q_k = ⟨V_k, R⁺_k, R⁻_k, β_k⟩ (Eq. 15), as solved."""

    subclaim: str
    base: float
    arguments: dict[str, float] = Field(description="Argument id → intrinsic strength w_a.")
    edges: tuple[QbafEdge, ...]
    strengths: dict[str, float] = Field(
        default_factory=dict,
        description="Argument id → final strength σ(a) after propagating the argument-to-"
        "argument relations (equal to w_a in a star; empty in runs made before relations).",
    )
    support_total: float = Field(
        description="S_k (Eq. 16): the supporters' final strengths σ(a), after clash resolution."
    )
    attack_total: float = Field(
        description="A_k (Eq. 16): the attackers' final strengths σ(a), after clash resolution."
    )
    delta: float = Field(description="Δ_k = S_k − A_k.")
    score: float = Field(ge=0.0, le=1.0, description="ψ_k (Eq. 17).")
    clash: ClashRecord | None = None
    semantics: str = "quadratic-energy"
    accepted: tuple[str, ...] = Field(
        (), description="Arguments a reviewer accepted (§4.5): exempt from clash reduction."
    )
    outranked: tuple[str, ...] = Field(
        (),
        description="Event-only arguments that contrary evidence about the media outranks: "
        "they enter with weight 0 (docs/architecture.md, 'Directness').",
    )


class SubclaimDecision(Frozen):
    """d_k (Eq. 18) with the numbers that produced it."""

    subclaim: str
    dimension: Dimension
    score: float
    band: Band
    support_total: float
    attack_total: float
    clash: bool = False
    uncertainty: tuple[UncertaintyCode, ...] = ()
