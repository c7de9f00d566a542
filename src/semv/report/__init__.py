"""Verification reports in the MV2026 layout (Markdown, HTML, JSON), verdict first.

Sections, in order (``SECTION_ORDER``): the verdict summary (label, confidence, the reason,
the strongest arguments on each side, what needs review), the final verification status,
where, when, who, why, forensic analysis, other evidence, then (collapsible) the case summary
with media, hashes and provenance, the source and the glossary.
``render_report(ReportContext) -> RenderedReport``.
"""

from semv.report._build import (
    TOP_ARGUMENTS,
    build_view,
    case_relative,
    data_relative,
    provenance_line,
    safe_link,
)
from semv.report._context import ReportContext
from semv.report._labelled import LABELLED_FORMAT, FindingView, LabelledView, render_labelled_report
from semv.report._neutral import neutralise
from semv.report._render import (
    REPORT_FORMAT,
    SECTION_ORDER,
    render_report,
    report_json,
    summary_html,
)
from semv.report._usage import with_usage
from semv.report._view import DimensionSection, EvidenceRef, NoteView, ReportView, VerdictSummary

__all__ = [
    "LABELLED_FORMAT",
    "REPORT_FORMAT",
    "SECTION_ORDER",
    "TOP_ARGUMENTS",
    "DimensionSection",
    "EvidenceRef",
    "FindingView",
    "LabelledView",
    "NoteView",
    "ReportContext",
    "ReportView",
    "VerdictSummary",
    "build_view",
    "case_relative",
    "data_relative",
    "neutralise",
    "provenance_line",
    "render_labelled_report",
    "render_report",
    "report_json",
    "safe_link",
    "summary_html",
    "with_usage",
]
