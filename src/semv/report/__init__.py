"""Verification reports in the MV2026 layout (Markdown, HTML, JSON).

Sections, in order: case summary, source, where, when, who, why, forensic analysis, other
evidence, final verification status. ``render_report(ReportContext) -> RenderedReport``.
"""

from semv.report._build import TOP_ARGUMENTS, build_view
from semv.report._context import ReportContext
from semv.report._labelled import LABELLED_FORMAT, FindingView, LabelledView, render_labelled_report
from semv.report._render import REPORT_FORMAT, SECTION_ORDER, render_report, report_json
from semv.report._view import ReportView

__all__ = [
    "LABELLED_FORMAT",
    "REPORT_FORMAT",
    "SECTION_ORDER",
    "TOP_ARGUMENTS",
    "FindingView",
    "LabelledView",
    "ReportContext",
    "ReportView",
    "build_view",
    "render_labelled_report",
    "render_report",
    "report_json",
]
