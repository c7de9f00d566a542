"""``argue:k`` (A): proponent and opponent arguments, grounding verification, strength.

Unknown evidence ids are removed when they do not resolve to a current-case item (an argument
left with none fails admissibility); the verifier sets v_a and fails closed (a missing or
malformed verdict is v_a = 0 with an uncertainty code); Adm_t(a) follows Eq. 6 and w_a Eq. 14
with the grounding-aware discount for unverified arguments (they stay, with reduced weight).
Each argument's key facts are typed by its dimension (``DimensionSpec.typed``: the dates,
places and quantities it rests on), so the result carries them as data. Last, the sparse
argument-to-argument relations (A-QBAF MV2026 §2.5) are built from the typed observations the
arguments cite (``semv.reasoning.build_relations``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import fmean

from semv.agents import ArgueInput, ArgumentDraft, Verification, VerifyInput
from semv.config import StrengthConfig
from semv.dimensions import DIMENSIONS, directness
from semv.graph import StageContext, StageDef, admissible
from semv.model import (
    Argument,
    Arguments,
    Case,
    Directness,
    Evidence,
    MemoryView,
    Origin,
    RankedEvidence,
    Relation,
    Stage,
    Stance,
    StrengthFeatures,
    Subclaim,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.nlp.capture import CaptureChecks
from semv.reasoning import (
    ADJUST_STRENGTH,
    build_relations,
    directness_factor,
    strength_from_features,
)

_AFFECTS = (Stage.RETRIEVE, Stage.VALIDATE, Stage.ARGUE)

EVENT_ONLY = (
    "(A report of the event, not of this media: it weighs less than the media's own evidence.)"
)
"""What an argument's text adds when its evidence reports only the event, on a subclaim about
the media's context (η_d < 1)."""


def argument_directness(
    draft: ArgumentDraft, evidence: dict[str, Evidence], claim_text: str
) -> Directness:
    """The most direct of the resolved items the draft cites (``event`` when none resolves)."""
    found = [directness(evidence[i], claim_text) for i in draft.evidence if i in evidence]
    return max(found, key=lambda d: d.rank, default=Directness.EVENT)


def features_for(
    draft: ArgumentDraft, evidence: dict[str, Evidence], eta_d: float = 1.0
) -> StrengthFeatures:
    """The Eq. 14 inputs over the resolved evidence 𝓔_t(a) (Eq. 5), with the directness
    factor η_d."""
    cited = [evidence[i] for i in draft.evidence if i in evidence]
    if not cited:
        return StrengthFeatures(
            reliability=0.0,
            relevance=0.0,
            n_sources=0,
            n_modalities=0,
            provenance_fraction=0.0,
            text_length=len(draft.text),
            directness_factor=eta_d,
        )
    return StrengthFeatures(
        reliability=fmean(e.reliability for e in cited),
        relevance=fmean(e.relevance for e in cited),
        n_sources=len({e.source for e in cited}),
        n_modalities=len({e.modality for e in cited}),
        provenance_fraction=sum(e.provenance is not None for e in cited) / len(cited),
        text_length=len(draft.text),
        directness_factor=eta_d,
    )


def build_argument(
    subclaim: Subclaim,
    draft: ArgumentDraft,
    check: Verification,
    number: int,
    evidence: dict[str, Evidence],
    dropped_ids: bool,
    origin: Origin,
    config: StrengthConfig | None = None,
    language: str | None = None,
    claim_text: str = "",
) -> Argument:
    """The argument ``draft`` becomes: its uncertainty, admissibility (Eq. 6), directness (of
    its cited items; ``claim_text`` decides whether an item quotes the claim), strength (Eq. 14
    with η_d) and its key facts typed by the subclaim's dimension (read in ``language``)."""
    codes: list[UncertaintyCode] = []
    if dropped_ids or not draft.evidence:
        codes.append(UncertaintyCode.UNRESOLVED_EVIDENCE)
    if draft.memory and not draft.evidence:  # M(a) cannot replace E(a) (Def. 3.1)
        codes.append(UncertaintyCode.MEMORY_NOT_EVIDENCE)
    codes.extend(draft.doubts)
    codes.extend(check.uncertainty)
    for ev_id in draft.evidence:
        codes.extend(evidence[ev_id].uncertainty)
    uncertainty = tuple(dict.fromkeys(codes))
    config = config or StrengthConfig()
    bears_on = argument_directness(draft, evidence, claim_text)
    eta_d = directness_factor(bears_on, subclaim.dimension, config=config)
    if eta_d < 1.0 and draft.stance in (Stance.SUPPORT, Stance.ATTACK):
        draft = draft.model_copy(update={"text": f"{draft.text.rstrip()} {EVENT_ONLY}"})
    features = features_for(draft, evidence, eta_d)
    return Argument(
        id=f"arg:{subclaim.dimension.value}:{draft.stance.value}:{number}",
        subclaim=subclaim.id,
        stance=draft.stance,
        text=draft.text,
        evidence=draft.evidence,
        memory=draft.memory,
        key_facts=draft.key_facts,
        verified=check.verified,
        admissible=admissible(draft.evidence, check.verified, evidence),
        features=features,
        directness=bears_on,
        strength=strength_from_features(
            features,
            verified=check.verified,
            has_uncertainty=bool(uncertainty),
            config=config,
        ),
        uncertainty=uncertainty,
        origin=origin,
        facts=DIMENSIONS[subclaim.dimension].typed(draft.key_facts, language),
    )


NOT_RELEVANT_LISTED = 10
"""Refused items named in the note (the node output keeps all of them)."""


def not_relevant_note(subclaim: Subclaim, ranked: RankedEvidence) -> UncertaintyItem:
    """The "retrieved, not relevant" list of a subclaim: each refused item with its calibrated
    relevance, claim similarity and why it was refused (never an argument)."""
    items = ranked.not_relevant
    listed = "; ".join(
        f"{n.id} ({n.source}{': ' + repr(n.title[:80]) if n.title else ''}; {n.reason})"
        for n in items[:NOT_RELEVANT_LISTED]
    )
    more = (
        f"; and {len(items) - NOT_RELEVANT_LISTED} more" if len(items) > NOT_RELEVANT_LISTED else ""
    )
    return UncertaintyItem(
        code=UncertaintyCode.RETRIEVED_NOT_RELEVANT,
        subject=subclaim.id,
        detail=f"retrieved, not relevant ({len(items)}; not used as evidence): {listed}{more}",
        stages=(Stage.RETRIEVE,),
    )


async def argue(
    ctx: StageContext,
    *,
    case: Case,
    subclaim: Subclaim,
    ranked: RankedEvidence,
    memory: MemoryView,
) -> Arguments:
    evidence = {e.id: e for e in ranked.evidence}
    proposed = await ctx.agents.argue(
        ArgueInput(case=case, subclaim=subclaim, evidence=ranked.evidence, memory=memory)
    )
    drafts: list[ArgumentDraft] = []
    dropped: list[bool] = []
    for draft in proposed.drafts:
        resolved = tuple(i for i in dict.fromkeys(draft.evidence) if i in evidence)
        dropped.append(len(resolved) != len(draft.evidence))
        drafts.append(draft.model_copy(update={"evidence": resolved}))
    checks: tuple[Verification, ...] = ()
    if drafts:
        verdicts = await ctx.agents.verify(
            VerifyInput(subclaim=subclaim, drafts=tuple(drafts), evidence=ranked.evidence)
        )
        checks = verdicts.results
        if len(checks) != len(drafts):  # fail closed on a malformed verifier answer
            checks = tuple(
                Verification(
                    verified=False,
                    reason="verifier returned no verdict for this argument",
                    uncertainty=(UncertaintyCode.UNVERIFIED_ARGUMENT,),
                )
                for _ in drafts
            )
    counters: Counter[str] = Counter()
    origin = Origin(kind="agent", name=f"{ctx.agents.name}/argue")
    arguments: list[Argument] = []
    for draft, check, lost in zip(drafts, checks, dropped, strict=True):
        counters[draft.stance.value] += 1
        arguments.append(
            build_argument(
                subclaim,
                draft,
                check,
                counters[draft.stance.value],
                evidence,
                lost,
                origin,
                config=ctx.settings.strength,
                language=case.context.language,
                claim_text=case.claim,
            )
        )
    arguments = remembered(ctx, arguments, memory, evidence, case=case, subclaim=subclaim)
    notes = list(proposed.uncertainty)
    notes += [
        UncertaintyItem(
            code=UncertaintyCode.MEMORY_NOT_EVIDENCE,
            subject=a.id,
            detail=f"cites memory {', '.join(a.memory)} but no current-case evidence: "
            "inadmissible (Def. 3.1)",
            stages=(Stage.ARGUE,),
        )
        for a in arguments
        if a.memory and not a.evidence
    ]
    notes += DIMENSIONS[subclaim.dimension].notes(case, subclaim)
    if ranked.not_relevant:
        notes.append(not_relevant_note(subclaim, ranked))
    if not arguments:
        code = UncertaintyCode.NO_EVIDENCE if subclaim.asserted else UncertaintyCode.NOT_ASSERTED
        detail = (
            "no evidence bears on this subclaim"
            if subclaim.asserted
            else "the claim states nothing checkable for this dimension"
        )
        if not any(n.code == code and n.subject == subclaim.id for n in notes):
            notes.append(
                UncertaintyItem(code=code, subject=subclaim.id, detail=detail, stages=_AFFECTS)
            )
    return Arguments(
        subclaim=subclaim.id,
        arguments=tuple(arguments),
        uncertainty=tuple(notes),
        relations=relations_for(ctx, subclaim, arguments, ranked),
    )


def remembered(
    ctx: StageContext,
    arguments: list[Argument],
    memory: MemoryView,
    evidence: dict[str, Evidence],
    *,
    case: Case,
    subclaim: Subclaim,
) -> list[Argument]:
    """Recall acting through strengths: recalled strength lessons (``adjust-strength``) scale
    w_a of the arguments their condition holds on, which then cite them in M(a). Memory-off
    runs (an empty view) and views without such lessons leave the arguments as they are."""
    if not any(g.action == ADJUST_STRENGTH for g in memory.guidance):
        return arguments
    from semv.memory import apply_strength_lessons  # only memory-on runs load memory

    return apply_strength_lessons(
        arguments,
        memory.guidance,
        evidence,
        claim=case.claim,
        subclaim=subclaim,
        language=case.context.language,
        settings=ctx.settings,
    )


def relations_for(
    ctx: StageContext,
    subclaim: Subclaim,
    arguments: Sequence[Argument],
    ranked: RankedEvidence,
) -> tuple[Relation, ...]:
    """The sparse argument-to-argument relations of 𝒢_k (A-QBAF MV2026 §2.5), from the typed
    observations of the ranked evidence the arguments cite."""
    offline = ctx.settings.offline
    return build_relations(
        subclaim.id,
        arguments,
        ranked.evidence,
        config=ctx.settings.relations,
        capture=CaptureChecks(
            time_tolerance_days=offline.time_tolerance_days,
            place_tolerance_km=offline.place_tolerance_km,
            gps_country_max_km=offline.gps_country_max_km,
        ),
    )


STAGE = StageDef(
    name="argue",
    version="4",
    fn=argue,
    output=Arguments,
    reads=("strength", "relations", "offline", "memory"),
    uses_agents=True,
    symbol=Stage.ARGUE,
    code=(
        "semv.reasoning",
        "semv.dimensions",
        "semv.nlp",
        "semv.memory._apply",
        "semv.memory._cues",
    ),
)
