"""``qbaf:k`` (Q): build the claim-centred QBAF (Eq. 15) with the sparse argument-to-argument
relations ``argue:k`` found (A-QBAF MV2026 §2.5), resolve clashes, propagate (Eq. 16-17 on the
star; the general quadratic-energy semantics when relations are present) and decide (Eq. 18).

On a subclaim about the media's context, an event-only argument that contrary evidence about
the media outranks enters with weight 0, and a score that rests on event-only arguments alone
stays within the weak bands (``semv.reasoning._directness``; docs/architecture.md,
"Directness").

Clash resolution (§4.4): when the strongest support and attack both reach the clash threshold
and differ by at most the margin, a major factual conflict is flagged and the competing
strengths are reduced. The clashing pair then goes to the agents' clash judge (A-QBAF MV2026
§2.6.1), whose win rate w moves the pair by Δτ = β(2w − 1): the winner regains some of the
reduction, the loser loses more. Weights stay within [0, w_a], so the QBAF never gives an
argument more weight than Eq. 14 did.
"""

from __future__ import annotations

from semv.agents import ArgumentDraft, ClashInput
from semv.graph import StageContext, StageDef
from semv.model import (
    Argument,
    Arguments,
    Band,
    ClashRecord,
    Qbaf,
    RankedEvidence,
    SolvedQbaf,
    Stage,
    Stance,
    Subclaim,
    SubclaimDecision,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.nlp.text import lexical_overlap
from semv.reasoning import (
    band,
    event_only_cap,
    judge_adjustment,
    outranked,
    propagate,
    resolve_clash,
    review_codes,
)

SEMANTICS = "quadratic-energy"


def _draft(arg: Argument) -> ArgumentDraft:
    return ArgumentDraft(
        stance=arg.stance,
        text=arg.text,
        evidence=arg.evidence,
        key_facts=arg.key_facts,
        memory=arg.memory,
    )


async def solve(
    ctx: StageContext, *, subclaim: Subclaim, arguments: Arguments, ranked: RankedEvidence
) -> SolvedQbaf:
    decision_cfg = ctx.settings.decision
    clash_cfg = ctx.settings.clash
    by_id = {a.id: a for a in arguments.arguments}
    strengths = {a.id: a.strength for a in arguments.arguments}
    beaten = outranked(subclaim.dimension, arguments.arguments, strengths)
    for arg_id in beaten:  # an event report does not cancel contrary evidence about the media
        strengths[arg_id] = 0.0
    supports = {a.id: strengths[a.id] for a in arguments.arguments if a.stance is Stance.SUPPORT}
    attacks = {a.id: strengths[a.id] for a in arguments.arguments if a.stance is Stance.ATTACK}
    clash = resolve_clash(supports, attacks, config=clash_cfg)
    weights = {**clash.supports, **clash.attacks}
    record: ClashRecord | None = clash.record()
    notes: list[UncertaintyItem] = []
    if record is not None:
        if clash_cfg.judge_beta > 0:
            verdict = await ctx.agents.judge_clash(
                ClashInput(
                    subclaim=subclaim,
                    support=_draft(by_id[record.support]),
                    attack=_draft(by_id[record.attack]),
                    evidence=ranked.evidence,
                )
            )
            shift = judge_adjustment(verdict.support_win_rate, clash_cfg.judge_beta)
            for arg_id, sign in ((record.support, 1.0), (record.attack, -1.0)):
                ceiling = by_id[arg_id].strength
                weights[arg_id] = min(ceiling, max(0.0, weights[arg_id] + sign * shift))
            record = record.model_copy(
                update={
                    "judge_win_rate": verdict.support_win_rate,
                    "judge_reason": verdict.reason,
                    "reduced": {k: v for k, v in weights.items() if v != by_id[k].strength},
                }
            )
        notes.append(
            UncertaintyItem(
                code=UncertaintyCode.MAJOR_CONFLICT,
                subject=subclaim.id,
                detail=(
                    f"{record.support} ({record.support_strength:.2f}) and {record.attack} "
                    f"({record.attack_strength:.2f}) clash; competing strengths reduced"
                    + (
                        f", judge win rate of the support {record.judge_win_rate:.2f}"
                        if record.judge_win_rate is not None
                        else ""
                    )
                ),
                stages=(Stage.QBAF,),
            )
        )

    stances = {k: by_id[k].stance for k in weights}
    solved = propagate(
        subclaim.id,
        decision_cfg.base_score,
        weights,
        stances,
        arguments.relations,
        semantics=SEMANTICS,
    )
    psi = event_only_cap(
        subclaim.dimension, solved.score, arguments.arguments, weights, config=decision_cfg
    )
    s_total, a_total = solved.support_total, solved.attack_total
    decided = band(psi, config=decision_cfg)
    if decided is Band.UNCERTAIN:
        notes.append(
            UncertaintyItem(
                code=UncertaintyCode.NEUTRAL_BAND,
                subject=subclaim.id,
                detail=f"score {psi:.3f} lies in the neutral band",
                stages=(Stage.QBAF,),
            )
        )
    notes.extend(
        review_codes(
            subclaim,
            arguments.arguments,
            ranked.evidence,
            support_total=s_total,
            attack_total=a_total,
            config=ctx.settings.review,
            overlap=lexical_overlap,
        )
    )
    qbaf = Qbaf(
        subclaim=subclaim.id,
        base=decision_cfg.base_score,
        arguments=weights,
        edges=solved.edges,
        strengths=solved.strengths,
        support_total=s_total,
        attack_total=a_total,
        delta=s_total - a_total,
        score=psi,
        clash=record,
        semantics=SEMANTICS,
        outranked=beaten,
    )
    decision = SubclaimDecision(
        subclaim=subclaim.id,
        dimension=subclaim.dimension,
        score=psi,
        band=decided,
        support_total=s_total,
        attack_total=a_total,
        clash=record is not None,
        uncertainty=tuple(dict.fromkeys(n.code for n in notes)),
    )
    return SolvedQbaf(qbaf=qbaf, decision=decision, uncertainty=tuple(notes))


STAGE = StageDef(
    name="qbaf",
    version="4",
    fn=solve,
    output=SolvedQbaf,
    reads=("decision", "clash", "review"),
    uses_agents=True,
    symbol=Stage.QBAF,
    code=("semv.reasoning", "semv.nlp.text"),
)
