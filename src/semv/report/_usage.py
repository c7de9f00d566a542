"""The model-usage section of a report: calls, tokens, latency and retries per role, and the
measured wall time beside the critical path.

Usage is measured, not derived from node values, so it is added to the written report files
after the (content-addressed) ``render`` node, never to the node itself.
"""

from __future__ import annotations

import html
import json

from semv.model import RenderedReport, Usage

__all__ = ["usage_markdown", "with_usage"]


def _rows(usage: Usage) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = [
        (
            role,
            str(r.calls),
            str(r.cached),
            str(r.prompt_tokens),
            str(r.completion_tokens),
            f"{r.latency_s:.2f}",
            str(r.retries),
            str(r.failures),
            str(r.fallbacks),
        )
        for role, r in usage.roles.items()
    ]
    rows.append(
        (
            "total",
            str(usage.calls),
            str(usage.cached),
            str(usage.prompt_tokens),
            str(usage.completion_tokens),
            f"{sum(r.latency_s for r in usage.roles.values()):.2f}",
            str(usage.retries),
            str(sum(r.failures for r in usage.roles.values())),
            str(sum(r.fallbacks for r in usage.roles.values())),
        )
    )
    return rows


_HEAD = (
    "role",
    "calls",
    "cached",
    "prompt tok.",
    "completion tok.",
    "latency s",
    "retries",
    "failures",
)


def _timing(usage: Usage) -> str:
    ratio = usage.wall_s / usage.critical_path_s if usage.critical_path_s > 0 else 0.0
    return (
        f"Backend `{usage.backend}`: wall {usage.wall_s:.2f} s, critical path "
        f"{usage.critical_path_s:.2f} s (model calls {usage.model_critical_path_s:.2f} s), "
        f"wall/critical = {ratio:.2f}."
    )


def usage_markdown(usage: Usage) -> str:
    lines = ["## Model usage", "", _timing(usage), "", "| " + " | ".join(_HEAD) + " |"]
    lines.append("|" + "---|" * len(_HEAD))
    lines += ["| " + " | ".join(row) + " |" for row in _rows(usage)]
    return "\n".join(lines) + "\n"


def _usage_html(usage: Usage) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in _HEAD)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
        for row in _rows(usage)
    )
    return (
        f'<section id="model-usage"><h2>Model usage</h2><p>{html.escape(_timing(usage))}</p>'
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></section>\n"
    )


def with_usage(report: RenderedReport, usage: Usage) -> RenderedReport:
    """The report with a model-usage section in each format."""
    document = json.loads(report.json_report)
    document["usage"] = usage.model_dump(mode="json")
    page = report.html
    marker = page.rfind("</body>")
    section = _usage_html(usage)
    page = page[:marker] + section + page[marker:] if marker >= 0 else page + section
    return RenderedReport(
        markdown=report.markdown.rstrip("\n") + "\n\n" + usage_markdown(usage),
        html=page,
        json_report=json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n",
    )
