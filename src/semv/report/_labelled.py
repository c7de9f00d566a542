"""The report of a 5-way procedure (ReMMD, MMD-Agent, T2-Agent): case summary, the L1 / L2 / L3
labels, the procedure's findings (atomic points, stage scores, subtasks) with the evidence each
cites, and the final status. Same escaping rules and formats as the MV2026 report."""

from __future__ import annotations

import json
from typing import Final

from semv._procedure_names import opening_sentence
from semv.model import Case, Evidence, RenderedReport, UncertaintyItem, Verdict
from semv.report._build import _Builder
from semv.report._context import ReportContext
from semv.report._render import _environment
from semv.report._view import CaseSummary, EvidenceRef, FinalStatus, _View

__all__ = [
    "LABELLED_FORMAT",
    "FindingView",
    "LabelledView",
    "render_labelled_report",
]

LABELLED_FORMAT: Final = "semv-labelled-report/1"


class FindingView(_View):
    """One finding of the procedure with the evidence it cites."""

    id: str
    kind: str
    text: str
    state: str
    score: float | None
    detail: str
    evidence: tuple[EvidenceRef, ...]


class LabelledView(_View):
    procedure: str
    label: str
    confidence: float
    opening: str
    """What the procedure decided and what it does not look at, in one sentence."""
    case_summary: CaseSummary
    veracity: str | None
    distortions: tuple[str, ...]
    rationale: str | None
    findings: tuple[FindingView, ...]
    evidence: tuple[EvidenceRef, ...]
    final_status: FinalStatus


def render_labelled_report(
    *,
    procedure: str,
    case: Case,
    verdict: Verdict,
    finding_rows: tuple[tuple[str, str, str, str, float | None, str, tuple[str, ...]], ...] = (),
    evidence: tuple[Evidence, ...],
    uncertainty: tuple[UncertaintyItem, ...] = (),
) -> RenderedReport:
    """Render the report; ``finding_rows`` are (id, kind, text, state, score, detail,
    evidence ids). Deterministic: the same inputs give the same bytes."""
    builder = _Builder(
        ReportContext(
            case=case,
            verdict=verdict,
            subclaims={},
            arguments={},
            qbafs={},
            evidence=evidence,
            uncertainty=uncertainty,
        )
    )
    views = tuple(
        FindingView(
            id=fid,
            kind=kind,
            text=text,
            state=state,
            score=score,
            detail=detail,
            evidence=tuple(builder.ref(e) for e in cited),
        )
        for fid, kind, text, state, score, detail, cited in finding_rows
    )
    view = LabelledView(
        procedure=procedure,
        label=verdict.label,
        confidence=verdict.confidence,
        opening=opening_sentence(procedure, verdict.label, verdict.confidence),
        case_summary=builder.case_summary(),
        veracity=verdict.veracity,
        distortions=verdict.distortions,
        rationale=verdict.rationale,
        findings=views,
        evidence=tuple(builder.ref(item.id) for item in evidence),
        final_status=builder.final_status(),
    )
    document = {"format": LABELLED_FORMAT}
    document.update(view.model_dump(mode="json"))
    return RenderedReport(
        markdown=_environment(html=False).get_template("labelled.md.j2").render(r=view),
        html=_environment(html=True).get_template("labelled.html.j2").render(r=view),
        json_report=json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n",
    )
