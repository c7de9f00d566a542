"""``render`` (O): the report in the MV2026 layout, as Markdown, HTML and JSON text."""

from __future__ import annotations

from semv.graph import StageContext, StageDef
from semv.model import (
    Arguments,
    Bundle,
    MediaEvidence,
    RankedEvidence,
    RenderedReport,
    SolvedQbaf,
    Stage,
    Subclaim,
    Verdict,
)
from semv.report import ReportContext, render_report
from semv.stages.aggregate import case_uncertainty


async def render(
    ctx: StageContext,
    *,
    bundle: Bundle,
    media: list[MediaEvidence],
    subclaims: dict[str, Subclaim],
    arguments: list[Arguments],
    qbafs: list[SolvedQbaf],
    verdict: Verdict,
    ranked: list[RankedEvidence],
) -> RenderedReport:
    by_claim = {s.id: k for k, s in subclaims.items()}
    evidence = bundle.supplied + tuple(e for m in media for e in m.evidence)
    known = {e.id for e in evidence}
    for r in ranked:  # retrieved items (corpus, web) that reached argumentation
        for item in r.evidence:
            if item.id not in known:
                known.add(item.id)
                evidence += (item,)
    report = ReportContext(
        case=bundle.case,
        verdict=verdict,
        subclaims=subclaims,
        arguments={by_claim[a.subclaim]: a.arguments for a in arguments},
        qbafs={by_claim[q.qbaf.subclaim]: q.qbaf for q in qbafs},
        relations={by_claim[a.subclaim]: a.relations for a in arguments if a.relations},
        evidence=evidence,
        uncertainty=case_uncertainty(media, arguments, qbafs),
    )
    return render_report(report, ctx.settings.export)


STAGE = StageDef(
    name="render",
    version="2",
    fn=render,
    output=RenderedReport,
    reads=("export",),
    symbol=Stage.RENDER,
    code=("semv.report", "semv.export", "semv._procedure_names"),
)
