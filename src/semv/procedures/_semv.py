"""SEMV's own procedure: six verification dimensions, QBAF per subclaim, priority-ordered
aggregation (SEMV §4; the stage graph of ``semv.stages.build_graph``)."""

from __future__ import annotations

from semv.dimensions import DIMENSIONS
from semv.graph import NodeOutcome
from semv.model import (
    Arguments,
    Claims,
    Escalated,
    Evidence,
    MediaEvidence,
    RankedEvidence,
    Result,
    ResultArgument,
    ResultSubclaim,
    SolvedQbaf,
    Verdict,
    result_evidence,
    result_uncertainty,
)
from semv.model import Bundle as BundleValue
from semv.procedures._registry import Procedure
from semv.procedures._values import node_value as _value
from semv.stages import build_graph

__all__ = ["SEMV", "build_result"]


def build_result(
    run_id: str, nodes: dict[str, NodeOutcome], report_paths: dict[str, str], trace_head: str
) -> Result:
    """The JSON result contract (DESIGN §4) from the committed node values, with the typed
    facts of each subclaim (claimed) and argument (what it rests on) where there are any."""
    bundle = _value(nodes, "bundle", BundleValue)
    claims = _value(nodes, "claims", Claims)
    verdict = _value(nodes, "aggregate", Verdict)
    subclaims: list[ResultSubclaim] = []
    for dim, sub in claims.subclaims.items():
        if f"escalate:{dim}" in nodes:  # the subclaim's final arguments and QBAF
            final = _value(nodes, f"escalate:{dim}", Escalated)
            args, solved = final.arguments, final.solved
        else:  # a graph without escalation nodes (runs committed before they existed)
            args = _value(nodes, f"argue:{dim}", Arguments)
            solved = _value(nodes, f"qbaf:{dim}", SolvedQbaf)
        claimed = DIMENSIONS[sub.dimension].claimed(sub)
        subclaims.append(
            ResultSubclaim(
                id=sub.id,
                dimension=dim,
                statement=sub.statement,
                score=solved.decision.score,
                decision=solved.decision.band.value,
                arguments=tuple(
                    ResultArgument(
                        id=a.id,
                        stance=a.stance,
                        text=a.text,
                        evidence=a.evidence,
                        strength=a.strength,
                        verified=a.verified,
                        directness=a.directness,
                        facts=None if a.facts.empty else a.facts,
                    )
                    for a in args.arguments
                ),
                facts=None if claimed.empty else claimed,
                relations=tuple(
                    r
                    for r in args.relations
                    if r.src in solved.qbaf.arguments and r.dst in solved.qbaf.arguments
                ),
            )
        )
    evidence: dict[str, Evidence] = {e.id: e for e in bundle.supplied}
    for key, node in nodes.items():
        if key.startswith("media:") and isinstance(node.value, MediaEvidence):
            evidence.update({e.id: e for e in node.value.evidence})
    for key, node in nodes.items():  # retrieved items that reached argumentation
        if key.startswith("validate:") and isinstance(node.value, RankedEvidence):
            for item in node.value.evidence:
                evidence.setdefault(item.id, item)
    return Result(
        run_id=run_id,
        case_id=bundle.case.id,
        label=verdict.label,
        probabilities=verdict.probabilities,
        confidence=verdict.confidence,
        subclaims=tuple(subclaims),
        evidence=tuple(result_evidence(e) for e in evidence.values()),
        uncertainty=tuple(result_uncertainty(u) for u in verdict.uncertainty),
        report_paths=report_paths,
        trace_head=trace_head,
        calibrated_probability=verdict.calibrated,
    )


SEMV = Procedure(
    name="semv",
    summary="SEMV: six dimensions, a QBAF per subclaim, priority-ordered aggregation (default)",
    graph=build_graph,
    result=build_result,
)
