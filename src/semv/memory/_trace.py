"""The finalized trace of one committed run, as reflection and the gate read it."""

from __future__ import annotations

from pydantic import Field

from semv.errors import StoreError
from semv.model import (
    Arguments,
    Bundle,
    Case,
    Claims,
    Escalated,
    Evidence,
    Frozen,
    MediaEvidence,
    MemoryView,
    RankedEvidence,
    ResearchPlan,
    RunStatus,
    SolvedQbaf,
    Verdict,
)
from semv.store import Store

__all__ = ["CaseTrace", "load_trace"]


class CaseTrace(Frozen):
    """Committed node values of one run: claims, per-subclaim evidence, arguments, decisions."""

    run_id: str
    case: Case
    claims: Claims
    ranked: dict[str, RankedEvidence]
    arguments: dict[str, Arguments]
    solved: dict[str, SolvedQbaf]
    recalled: dict[str, MemoryView]
    plans: dict[str, ResearchPlan]
    verdict: Verdict
    supplied: tuple[Evidence, ...] = Field((), description="Supplied and media evidence.")

    def evidence_ids(self) -> set[str]:
        """IDs(𝓔_i): every evidence item of the finalized trace."""
        ids = {e.id for e in self.case_evidence()}
        for ranked in self.ranked.values():
            ids |= {e.id for e in ranked.evidence}
        return ids

    def argument_ids(self) -> set[str]:
        """IDs(𝒢_i): every argument of the finalized trace."""
        return {a.id for args in self.arguments.values() for a in args.arguments}

    def evidence(self) -> dict[str, Evidence]:
        pool: dict[str, Evidence] = {e.id: e for e in self.case_evidence()}
        for ranked in self.ranked.values():
            pool.update({e.id: e for e in ranked.evidence})
        return pool

    def case_evidence(self) -> tuple[Evidence, ...]:
        return self.supplied


def load_trace(store: Store, run_id: str) -> CaseTrace:
    """Read a committed run's node values from the store (refuses an uncommitted run)."""
    run = store.get_run(run_id)
    if run.status is not RunStatus.COMMITTED:
        raise StoreError(f"run {run_id} is {run.status.value}: reflection reads committed runs")

    def node(key: str) -> str:
        return store.node_value_json(run.run_id, key)

    bundle = Bundle.model_validate_json(node("bundle"))
    media = [
        e
        for n in store.run_nodes(run.run_id)
        if n.key.startswith("media:")
        for e in MediaEvidence.model_validate_json(node(n.key)).evidence
    ]
    claims = Claims.model_validate_json(node("claims"))
    keys = {n.key for n in store.run_nodes(run.run_id)}
    ranked: dict[str, RankedEvidence] = {}
    arguments: dict[str, Arguments] = {}
    solved: dict[str, SolvedQbaf] = {}
    recalled: dict[str, MemoryView] = {}
    plans: dict[str, ResearchPlan] = {}
    for dim in claims.subclaims:
        ranked[dim] = RankedEvidence.model_validate_json(node(f"validate:{dim}"))
        if f"escalate:{dim}" in keys:  # final arguments and QBAF (A-QBAF §2.6.3)
            final = Escalated.model_validate_json(node(f"escalate:{dim}"))
            arguments[dim], solved[dim] = final.arguments, final.solved
        else:
            arguments[dim] = Arguments.model_validate_json(node(f"argue:{dim}"))
            solved[dim] = SolvedQbaf.model_validate_json(node(f"qbaf:{dim}"))
        recalled[dim] = MemoryView.model_validate_json(node(f"recall:{dim}"))
        plans[dim] = ResearchPlan.model_validate_json(node(f"plan:{dim}"))
    trace = CaseTrace(
        run_id=run.run_id,
        case=bundle.case,
        claims=claims,
        ranked=ranked,
        arguments=arguments,
        solved=solved,
        recalled=recalled,
        plans=plans,
        verdict=Verdict.model_validate_json(node("aggregate")),
        supplied=(*bundle.supplied, *media),
    )
    return trace
