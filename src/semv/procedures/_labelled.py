"""What the 5-way procedures (ReMMD, MMD-Agent, T2-Agent) share: their findings, the verdict
built from an L1 / L2 / L3 decision, the result contract and the ``render`` stage.

A 5-way procedure decides the ReMMD L1 label natively (ReMMD §3). Under the ``remmd`` label
contract that label is the verdict; under another contract it goes through the internal label
(``internal_for_veracity``) into that contract, so every procedure can serve every adapter."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from pydantic import Field

from semv.config import ConfidenceConfig
from semv.graph import NodeOutcome, StageContext, StageDef
from semv.model import (
    REMMD_L1,
    REMMD_L2,
    Bundle,
    Distortion,
    Evidence,
    Frozen,
    InternalLabel,
    MediaEvidence,
    RenderedReport,
    Result,
    ResultSubclaim,
    Stage,
    UncertaintyItem,
    VeracityLabel,
    Verdict,
    result_evidence,
    result_uncertainty,
)
from semv.procedures._registry import GraphBuilder, Procedure, ResultBuilder
from semv.procedures._values import node_value
from semv.reasoning import contract as label_contract
from semv.reasoning import spread
from semv.report import render_labelled_report

__all__ = [
    "RENDER_STAGE",
    "Finding",
    "Findings",
    "internal_for_veracity",
    "labelled_procedure",
    "labelled_result",
    "labelled_verdict",
]

_VISUAL_L2: Final = frozenset(label for label in Distortion if label.visual)
_INTERNAL_FOR_L1: Final[dict[str, InternalLabel]] = {
    VeracityLabel.TRUE: InternalLabel.VERIFIED,
    VeracityLabel.MOSTLY_TRUE: InternalLabel.MOSTLY_VERIFIED,
    VeracityLabel.MIXTURE: InternalLabel.PARTIALLY_VERIFIED,
    VeracityLabel.MOSTLY_FALSE: InternalLabel.FALSE_CONTEXT,
    VeracityLabel.FALSE: InternalLabel.FALSE_CONTEXT,
}


class Finding(Frozen):
    """One unit of a procedure's reasoning: an atomic point (ReMMD), a stage score
    (MMD-Agent), a subtask (T2-Agent)."""

    id: str
    kind: str = Field(description="Point type, stage or subtask name.")
    text: str
    state: str = Field(description="supported / contradicted / unverified, a score band, ...")
    score: float | None = None
    evidence: tuple[str, ...] = Field((), description="Ids of the evidence it cites.")
    detail: str = ""


class Findings(Frozen):
    """A procedure's findings and the evidence they cite (retrieved, supplied, media)."""

    items: tuple[Finding, ...]
    evidence: tuple[Evidence, ...] = ()


def internal_for_veracity(veracity: str, distortions: Iterable[str] = ()) -> InternalLabel:
    """The internal label of an L1 decision: True → verified, Mostly True → mostly-verified,
    Mixture → partially-verified, Mostly False → false-context; False →
    manipulated-or-synthetic when L2 names synthetic or edited visuals (V1/V2), else
    false-context (a false text about authentic media)."""
    if veracity not in _INTERNAL_FOR_L1:
        raise ValueError(f"{veracity!r} is not an L1 label {REMMD_L1}")
    if veracity == VeracityLabel.FALSE and _VISUAL_L2.intersection(distortions):
        return InternalLabel.MANIPULATED_OR_SYNTHETIC
    return _INTERNAL_FOR_L1[veracity]


def labelled_verdict(
    *,
    veracity: str,
    distortions: Sequence[str],
    rationale: str | None,
    confidence: float,
    score: float,
    contract: str,
    rule: str,
    uncertainty: tuple[UncertaintyItem, ...] = (),
) -> Verdict:
    """The verdict of a 5-way decision under label contract ``contract``.

    ``confidence`` is the procedure's γ in [0, 1]; ``score`` its truthfulness in [0, 1] (the
    ψ̄ slot of Eq. 2). Under ``remmd`` ŷ is the L1 itself; otherwise the L1's internal label
    mapped into the contract. p puts γ on ŷ and spreads 1 − γ over the other labels."""
    unknown = [d for d in distortions if d not in REMMD_L2]
    if unknown:
        raise ValueError(f"unknown L2 labels {unknown}; valid: {REMMD_L2}")
    internal = internal_for_veracity(veracity, distortions)
    active = label_contract(contract, config=ConfidenceConfig())
    label = veracity if active.name == "remmd" else active.map(internal)
    return Verdict(
        label=label,
        internal_label=internal,
        rule=rule,
        probabilities=spread(label, confidence, active.labels),
        confidence=confidence,
        mean_score=score,
        decisions=(),
        uncertainty=uncertainty,
        veracity=veracity,
        distortions=tuple(sorted(set(distortions), key=REMMD_L2.index)),
        rationale=rationale,
    )


def labelled_result(procedure: str, verdict_node: str, findings_node: str) -> ResultBuilder:
    """The result contract of a 5-way procedure: findings as subclaims (no arguments), the
    evidence they cite plus the supplied and media evidence, and the L1 / L2 / L3 labels."""

    def build(
        run_id: str,
        nodes: dict[str, NodeOutcome],
        report_paths: dict[str, str],
        trace_head: str,
    ) -> Result:
        bundle = node_value(nodes, "bundle", Bundle)
        verdict = node_value(nodes, verdict_node, Verdict)
        findings = node_value(nodes, findings_node, Findings)
        evidence: dict[str, Evidence] = {e.id: e for e in bundle.supplied}
        for node in nodes.values():
            if isinstance(node.value, MediaEvidence):
                evidence.update({e.id: e for e in node.value.evidence})
        for item in findings.evidence:
            evidence.setdefault(item.id, item)
        return Result(
            run_id=run_id,
            case_id=bundle.case.id,
            label=verdict.label,
            probabilities=verdict.probabilities,
            confidence=verdict.confidence,
            subclaims=tuple(
                ResultSubclaim(
                    id=f.id,
                    dimension=f.kind,
                    statement=f.text,
                    score=f.score if f.score is not None else verdict.mean_score,
                    decision=f.state,
                    arguments=(),
                )
                for f in findings.items
            ),
            evidence=tuple(result_evidence(e) for e in evidence.values()),
            uncertainty=tuple(result_uncertainty(u) for u in verdict.uncertainty),
            report_paths=report_paths,
            trace_head=trace_head,
            veracity=verdict.veracity,
            distortions=verdict.distortions,
            rationale=verdict.rationale,
            procedure=procedure,
        )

    return build


def labelled_procedure(
    name: str,
    summary: str,
    graph: GraphBuilder,
    *,
    verdict_node: str = "verdict",
    findings_node: str = "findings",
) -> Procedure:
    """A 5-way procedure whose graph ends in ``findings_node`` (a ``Findings``),
    ``verdict_node`` (a ``Verdict`` from ``labelled_verdict``) and ``render``
    (``RENDER_STAGE``)."""
    return Procedure(
        name=name,
        summary=summary,
        graph=graph,
        result=labelled_result(name, verdict_node, findings_node),
        verdict_node=verdict_node,
    )


async def _render(
    ctx: StageContext,
    *,
    bundle: Bundle,
    verdict: Verdict,
    findings: Findings,
    media: list[MediaEvidence],
) -> RenderedReport:
    evidence: dict[str, Evidence] = {e.id: e for e in bundle.supplied}
    for extracted in media:
        evidence.update({e.id: e for e in extracted.evidence})
    for item in findings.evidence:
        evidence.setdefault(item.id, item)
    notes = tuple(u for m in media for u in m.uncertainty)
    return render_labelled_report(
        procedure=str(ctx.params.get("procedure", "")),
        case=bundle.case,
        verdict=verdict,
        finding_rows=tuple(
            (f.id, f.kind, f.text, f.state, f.score, f.detail, f.evidence) for f in findings.items
        ),
        evidence=tuple(evidence.values()),
        uncertainty=notes,
    )


RENDER_STAGE = StageDef(
    name="render-labelled",
    version="1",
    fn=_render,
    output=RenderedReport,
    symbol=Stage.RENDER,
    code=("semv.report", "semv._procedure_names"),
)
"""``render`` of a 5-way procedure. Inputs: ``bundle`` (the bundle node), ``verdict`` (the
verdict node), ``findings`` (the findings node), ``media`` (the ``describe:<asset>`` nodes);
params: ``{"procedure": name}``."""
