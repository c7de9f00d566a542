"""Rendering the report view as Markdown, HTML (Jinja2 templates) and JSON.

All case content is untrusted: the HTML environment autoescapes everything, only http(s) URLs
become links, and Markdown text is backslash-escaped. Output is deterministic (no timestamps,
no run ids), so a report can be content-addressed.
"""

from __future__ import annotations

import contextlib
import json
import re
from functools import cache
from typing import TYPE_CHECKING, Final
from urllib.parse import quote

from markupsafe import Markup

from semv.config import ExportConfig
from semv.dimensions import report_order
from semv.glossary import note_heading
from semv.model import RenderedReport
from semv.report._build import build_view
from semv.report._context import ReportContext
from semv.report._neutral import neutralise
from semv.report._view import ReportView

if TYPE_CHECKING:
    from jinja2 import BytecodeCache, Environment

__all__ = ["REPORT_FORMAT", "SECTION_ORDER", "render_report", "report_json", "summary_html"]

REPORT_FORMAT: Final = "semv-report/1"
"""Identifies the layout of the JSON report."""

SECTION_ORDER: Final = (
    "summary",
    "final_status",
    *(spec.section.key for spec in report_order()),
    "case_summary",
    "source",
    "glossary",
)
"""The section order of every format (keys of ``ReportView`` and of the JSON report), verdict
first: the summary (label, confidence, reason, strongest arguments, review items), the
final status, the MV2026 dimension sections in the order their ``ReportSection`` gives, then
the case's media, hashes and provenance, the supplied sources and the glossary. The templates
render the sections in this order, one macro per key (a dimension section by the shared
``section`` macro): a new section is a view field, a key here and a macro."""

_MD_SPECIAL: Final = re.compile(r"([\\`*_\[\]<>|&#~])")


def render_report(ctx: ReportContext, export: ExportConfig | None = None) -> RenderedReport:
    """The report of ``ctx`` in Markdown, HTML and JSON; the same context gives the same bytes.

    With ``export`` the HTML carries the verdict's schema.org ClaimReview as JSON-LD (without
    its publication url and date, which ``semv.export.complete`` adds when a run writes it)."""
    from semv.export import claim_review, facts_from_arguments, script_json

    view = build_view(ctx)
    markup = None
    if export is not None:
        facts = facts_from_arguments(
            ctx.case.claim,
            ctx.verdict.label,
            ctx.case.context.source_url,
            ctx.arguments.get("when", ()),
            ctx.evidence,
        )
        markup = script_json(claim_review(facts, export))
    return RenderedReport(
        markdown=_environment(html=False)
        .get_template("report.md.j2")
        .render(r=view, order=SECTION_ORDER),
        html=_environment(html=True)
        .get_template("report.html.j2")
        .render(r=view, order=SECTION_ORDER, claimreview=markup),
        json_report=report_json(view),
    )


def summary_html(view: ReportView, *, headline: bool = True) -> Markup:
    """The verdict summary of ``view`` as an HTML fragment (the same markup as the report's
    first section), for the web case page; empty for a report without a summary."""
    if view.summary is None:
        return Markup("")
    template = _environment(html=True).from_string(
        '{% from "_summary.html.j2" import summary_body %}{{ summary_body(v, headline) }}'
    )
    return Markup(template.render(v=view.summary, headline=headline))


def report_json(view: ReportView) -> str:
    """The JSON report: every section, sorted keys, two-space indent, trailing newline."""
    document = {"format": REPORT_FORMAT, "section_order": list(SECTION_ORDER)}
    document.update(view.model_dump(mode="json"))
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def _compiled_templates(html: bool) -> BytecodeCache | None:
    """Compiled templates kept on disk, as Python keeps ``.pyc`` files: a process renders its
    first report without compiling the templates again (~0.2 s of CPU at the end of every
    verify). Jinja keys each entry by the template's name and checks its source's checksum
    and Jinja's and Python's versions, so an edited template is compiled anew. One directory
    per environment (``cache_dir()/templates-html-finalize``, ``templates-text-finalize``):
    the two compile the same source differently (autoescaping), and code compiled without the
    ``finalize`` hook (``semv.report._neutral``) must never be loaded into an environment
    with it, which Jinja's checks would not notice. A cache that cannot be written only costs
    the compile."""
    from jinja2 import FileSystemBytecodeCache
    from jinja2.bccache import Bucket

    from semv.nlp.places import cache_dir

    class Tolerant(FileSystemBytecodeCache):
        def dump_bytecode(self, bucket: Bucket) -> None:
            with contextlib.suppress(OSError):
                super().dump_bytecode(bucket)

    path = cache_dir() / ("templates-html-finalize" if html else "templates-text-finalize")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return Tolerant(str(path))


@cache
def _environment(*, html: bool) -> Environment:
    from jinja2 import Environment, PackageLoader, StrictUndefined  # a warm run renders nothing

    env = Environment(
        loader=PackageLoader("semv.report", "templates"),
        autoescape=html,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_compiled_templates(html),
        finalize=neutralise,
    )
    env.filters["num"] = _num
    env.filters["md"] = _md
    env.filters["mdurl"] = _md_url
    env.globals["note_heading"] = note_heading
    return env


def _num(value: float | None, digits: int = 3) -> str:
    """A score with ``digits`` decimals; ``n/a`` when absent."""
    return "n/a" if value is None else f"{value:.{digits}f}"


def _md(value: object) -> str:
    """Untrusted text for Markdown: one line, Markdown/HTML punctuation backslash-escaped."""
    text = " ".join(str(value).split())
    return _MD_SPECIAL.sub(r"\\\1", text)


def _md_url(value: str) -> str:
    """A URL for a Markdown link destination ``<...>``: no spaces, angle brackets or parens."""
    return quote(value, safe=":/?#[]@!$&'*+,;=%-._~")
