"""``escalate:k`` (Q): uncertainty-aware escalation (A-QBAF MV2026 §2.6.3).

After ``qbaf:k`` is solved, a subclaim whose score σ(c_k) lies in the escalation band
``[escalation.low, escalation.high]`` (the paper's [0.45, 0.55]) is uncertain. When the agent
backend has a stronger verifier, that verifier gives one final grounding judgment of the
subclaim's agent arguments; v_a, Adm_t(a) (Eq. 6) and w_a (Eq. 14) follow the new verdicts and
the QBAF is re-solved exactly as ``qbaf:k`` solves it (clash resolution, Eq. 16-18).

Otherwise the node passes ``argue:k`` and ``qbaf:k`` through unchanged: no stronger verifier
(the offline backend), a decided score, or a subclaim a human reviewer has already acted on
(human arguments or accepted arguments: the paper's other escalation option, human review,
has happened). An unusable answer from the stronger verifier keeps the original QBAF and adds
an ``escalation-failed`` uncertainty item.
"""

from __future__ import annotations

from semv.agents import ArgumentDraft, Verification, VerifyInput, stronger_verifier
from semv.config import EscalationConfig, StrengthConfig
from semv.graph import StageContext, StageDef, admissible
from semv.model import (
    Argument,
    Arguments,
    Escalated,
    EscalationRecord,
    Evidence,
    RankedEvidence,
    SolvedQbaf,
    Stage,
    Subclaim,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.reasoning import remembered_strength, strength_from_features
from semv.stages import qbaf as qbaf_stage

_VERDICT_CODES = (UncertaintyCode.UNVERIFIED_ARGUMENT, UncertaintyCode.MODEL_FALLBACK)


def in_band(score: float, config: EscalationConfig) -> bool:
    """The §2.6.3 trigger: σ(c_k) ∈ [low, high]."""
    return config.low <= score <= config.high


def reverified(
    arg: Argument, check: Verification, evidence: dict[str, Evidence], config: StrengthConfig
) -> Argument:
    """``arg`` under a new verifier outcome: v_a, Adm_t(a) (Eq. 6), ω_a and w_a (Eq. 14),
    with the factor recalled strength lessons applied to the old w_a kept on the new one."""
    kept = [c for c in arg.uncertainty if c not in _VERDICT_CODES]
    uncertainty = tuple(dict.fromkeys([*kept, *check.uncertainty]))
    strength = arg.strength
    if arg.features is not None:
        before = strength_from_features(
            arg.features,
            verified=arg.verified,
            has_uncertainty=bool(arg.uncertainty),
            config=config,
        )
        factor = arg.strength / before if arg.memory and before > 0 else 1.0
        strength = remembered_strength(
            strength_from_features(
                arg.features,
                verified=check.verified,
                has_uncertainty=bool(uncertainty),
                config=config,
            ),
            factor,
        )
    return arg.model_copy(
        update={
            "verified": check.verified,
            "admissible": admissible(arg.evidence, check.verified, evidence),
            "uncertainty": uncertainty,
            "strength": strength,
        }
    )


def _with_note(solved: SolvedQbaf, note: UncertaintyItem) -> SolvedQbaf:
    notes = (*solved.uncertainty, note)
    decision = solved.decision.model_copy(
        update={"uncertainty": tuple(dict.fromkeys(n.code for n in notes))}
    )
    return solved.model_copy(update={"decision": decision, "uncertainty": notes})


async def escalate(
    ctx: StageContext,
    *,
    subclaim: Subclaim,
    arguments: Arguments,
    ranked: RankedEvidence,
    solved: SolvedQbaf,
) -> Escalated:
    unchanged = Escalated(arguments=arguments, solved=solved)
    verifier = stronger_verifier(ctx.agents)
    score = solved.decision.score
    if verifier is None or not in_band(score, ctx.settings.escalation):
        return unchanged
    if solved.qbaf.accepted or any(a.origin.kind != "agent" for a in arguments.arguments):
        return unchanged
    targets = [a for a in arguments.arguments if a.origin.kind == "agent"]
    if not targets:
        return unchanged
    name = str(verifier.stronger_verifier)
    drafts = tuple(
        ArgumentDraft(
            stance=a.stance,
            text=a.text,
            evidence=a.evidence,
            key_facts=a.key_facts,
            memory=a.memory,
        )
        for a in targets
    )
    answer = await verifier.escalate_verify(
        VerifyInput(subclaim=subclaim, drafts=drafts, evidence=ranked.evidence)
    )
    checks = answer.results
    ids = tuple(a.id for a in targets)
    if len(checks) != len(targets) or any(
        UncertaintyCode.MODEL_FALLBACK in c.uncertainty for c in checks
    ):
        record = EscalationRecord(
            verifier=name,
            status="failed",
            score_before=score,
            band_before=solved.decision.band,
            score_after=score,
            band_after=solved.decision.band,
            reverified=ids,
        )
        note = UncertaintyItem(
            code=UncertaintyCode.ESCALATION_FAILED,
            subject=subclaim.id,
            detail=f"score {score:.3f} lies in the escalation band, but the stronger verifier "
            f"{name} gave no usable answer: the original QBAF is kept",
            stages=(Stage.QBAF,),
        )
        return Escalated(arguments=arguments, solved=_with_note(solved, note), escalation=record)
    evidence = {e.id: e for e in ranked.evidence}
    by_id = dict(zip(ids, checks, strict=True))
    updated = tuple(
        reverified(a, by_id[a.id], evidence, ctx.settings.strength) if a.id in by_id else a
        for a in arguments.arguments
    )
    changed = tuple(
        a.id for a, b in zip(arguments.arguments, updated, strict=True) if a.verified != b.verified
    )
    new_arguments = arguments.model_copy(update={"arguments": updated})
    resolved = await qbaf_stage.solve(
        ctx, subclaim=subclaim, arguments=new_arguments, ranked=ranked
    )
    after = resolved.decision.score
    record = EscalationRecord(
        verifier=name,
        status="escalated",
        score_before=score,
        band_before=solved.decision.band,
        score_after=after,
        band_after=resolved.decision.band,
        reverified=ids,
        changed=changed,
    )
    note = UncertaintyItem(
        code=UncertaintyCode.ESCALATED,
        subject=subclaim.id,
        detail=f"score {score:.3f} lay in the escalation band; the stronger verifier {name} "
        f"re-verified {len(ids)} argument(s), changed {len(changed)}: score {after:.3f} "
        f"({resolved.decision.band.value})",
        stages=(Stage.ARGUE, Stage.QBAF),
    )
    return Escalated(arguments=new_arguments, solved=_with_note(resolved, note), escalation=record)


STAGE = StageDef(
    name="escalate",
    version="1",
    fn=escalate,
    output=Escalated,
    reads=("escalation", "strength", "decision", "clash", "review"),
    uses_agents=True,
    symbol=Stage.QBAF,
    code=("semv.reasoning", "semv.stages.qbaf"),
)
