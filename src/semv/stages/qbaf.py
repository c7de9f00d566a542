"""``qbaf:k`` (Q): build the claim-centred QBAF (Eq. 15), resolve clashes, propagate (Eq.
16-17) and decide (Eq. 18)."""

from __future__ import annotations

from semv.graph import StageContext, StageDef
from semv.model import (
    Arguments,
    Band,
    ClashRecord,
    Qbaf,
    QbafEdge,
    SolvedQbaf,
    Stage,
    Stance,
    Subclaim,
    SubclaimDecision,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.reasoning import Qbaf as Solver
from semv.reasoning import band, resolve_clash

SEMANTICS = "quadratic-energy"


async def solve(ctx: StageContext, *, subclaim: Subclaim, arguments: Arguments) -> SolvedQbaf:
    decision_cfg = ctx.settings.decision
    supports = {a.id: a.strength for a in arguments.arguments if a.stance is Stance.SUPPORT}
    attacks = {a.id: a.strength for a in arguments.arguments if a.stance is Stance.ATTACK}
    clash = resolve_clash(supports, attacks, config=ctx.settings.clash)
    weights = {**clash.supports, **clash.attacks}

    solver = Solver()
    solver.add_argument(subclaim.id, decision_cfg.base_score)
    edges: list[QbafEdge] = []
    for arg_id, weight in weights.items():
        solver.add_argument(arg_id, weight)
        kind = Stance.SUPPORT if arg_id in clash.supports else Stance.ATTACK
        if kind is Stance.SUPPORT:
            solver.support(arg_id, subclaim.id)
        else:
            solver.attack(arg_id, subclaim.id)
        edges.append(QbafEdge(src=arg_id, dst=subclaim.id, kind=kind))
    psi = solver.solve(semantics=SEMANTICS)[subclaim.id]
    s_total = sum(clash.supports.values())
    a_total = sum(clash.attacks.values())
    record = None
    notes: list[UncertaintyItem] = []
    if clash.clash and clash.support_id is not None and clash.attack_id is not None:
        record = ClashRecord(
            support=clash.support_id,
            attack=clash.attack_id,
            support_strength=supports[clash.support_id],
            attack_strength=attacks[clash.attack_id],
            reduced={k: v for k, v in weights.items() if v != {**supports, **attacks}[k]},
        )
        notes.append(
            UncertaintyItem(
                code=UncertaintyCode.MAJOR_CONFLICT,
                subject=subclaim.id,
                detail=(
                    f"{clash.support_id} ({supports[clash.support_id]:.2f}) and "
                    f"{clash.attack_id} ({attacks[clash.attack_id]:.2f}) clash; "
                    "competing strengths reduced"
                ),
                stages=(Stage.QBAF,),
            )
        )
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
    qbaf = Qbaf(
        subclaim=subclaim.id,
        base=decision_cfg.base_score,
        arguments=weights,
        edges=tuple(edges),
        support_total=s_total,
        attack_total=a_total,
        delta=s_total - a_total,
        score=psi,
        clash=record,
        semantics=SEMANTICS,
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
    version="1",
    fn=solve,
    output=SolvedQbaf,
    reads=("decision", "clash"),
    symbol=Stage.QBAF,
    code=("semv.reasoning",),
)
