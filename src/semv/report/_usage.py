"""The model-usage section of a report: calls, tokens, latency, retries, fallbacks and price per
role, the measured wall time beside the critical path, and what the prompts left out of the
evidence (items beyond the top k or dropped to fit the token budget, excerpts).

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
            _price(r.cost),
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
            _price(usage.cost),
        )
    )
    return rows


def _price(cost: float | None) -> str:
    return "–" if cost is None else f"{cost:.4f}"


_HEAD = (
    "role",
    "calls",
    "cached",
    "prompt tok.",
    "completion tok.",
    "latency s",
    "retries",
    "failures",
    "fallbacks",
    "price",
)


def _timing(usage: Usage) -> str:
    ratio = usage.wall_s / usage.critical_path_s if usage.critical_path_s > 0 else 0.0
    return (
        f"Backend `{usage.backend}`: wall {usage.wall_s:.2f} s, critical path "
        f"{usage.critical_path_s:.2f} s (model calls {usage.model_critical_path_s:.2f} s), "
        f"wall/critical = {ratio:.2f}."
    )


def _cost_line(usage: Usage) -> str:
    price = (
        "no price configured for the model (`llm.prices`)"
        if usage.cost is None
        else f"price {usage.cost:.4f} {usage.currency or ''}".rstrip()
    )
    return (
        f"This case: {usage.prompt_tokens} prompt + {usage.completion_tokens} completion "
        f"tokens, {price}."
    )


def _left_out(usage: Usage) -> list[str]:
    """One line per role prompt that left evidence out or showed a text in part."""
    lines = []
    for t in usage.left_out:
        parts = [f"{t.role} on {t.subject} ({t.reason})"]
        if t.dropped:
            parts.append("not shown: " + ", ".join(t.dropped))
        if t.excerpts:
            parts.append("excerpts: " + "; ".join(t.excerpts))
        lines.append(" — ".join(parts))
    return lines


def usage_markdown(usage: Usage) -> str:
    lines = ["## Model usage", "", _timing(usage), "", _cost_line(usage), ""]
    lines.append("| " + " | ".join(_HEAD) + " |")
    lines.append("|" + "---|" * len(_HEAD))
    lines += ["| " + " | ".join(row) + " |" for row in _rows(usage)]
    left = _left_out(usage)
    if left:
        lines += ["", "### Left out of the prompts", ""]
        lines += [f"- {line}" for line in left]
    return "\n".join(lines) + "\n"


def _usage_html(usage: Usage) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in _HEAD)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
        for row in _rows(usage)
    )
    left = "".join(f"<li>{html.escape(line)}</li>" for line in _left_out(usage))
    left_out = f"<h3>Left out of the prompts</h3><ul>{left}</ul>" if left else ""
    return (
        f'<section id="model-usage"><h2>Model usage</h2><p>{html.escape(_timing(usage))}</p>'
        f"<p>{html.escape(_cost_line(usage))}</p>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{left_out}"
        "</section>\n"
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
