"""The contestation log of a revised report (A-QBAF MV2026 §2.6.2, report item 5): which
actions were applied, where they were routed, and which arguments left the A-QBAF or joined
it. Untrusted text (reasons, argument text) is escaped for each format."""

from __future__ import annotations

import html
import json

from semv.contest._review import ReviewState
from semv.model import RenderedReport

__all__ = ["contestation_view", "with_contestation"]


def contestation_view(state: ReviewState) -> dict[str, object]:
    """The log as plain data (the JSON report's ``contestation`` key)."""
    return {
        "actions": [e.model_dump(mode="json") for e in state.log],
        "withdrawn": [
            {"subclaim": k, "id": r.id, "stance": r.stance.value, "text": r.text}
            for k, review in state.subclaims.items()
            for r in review.rejected
        ],
        "reviewer_arguments": [
            {
                "subclaim": k,
                "number": h.number,
                "stance": h.stance.value,
                "text": h.text,
                "cites": list(h.cites),
                "replaces": h.replaces.id if h.replaces else None,
                "reviewer": h.reviewer,
            }
            for k, review in state.subclaims.items()
            for h in review.humans
        ],
    }


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("`", "'")


def _markdown(view: dict[str, object]) -> str:
    lines = ["", "## Contestation", "", "| # | Action | Target | Route | Reviewer | Reason |"]
    lines.append("|---|---|---|---|---|---|")
    actions = view["actions"]
    if not isinstance(actions, list):
        raise TypeError(f"contestation actions: a list, not {type(actions).__name__}")
    for n, a in enumerate(actions, start=1):
        lines.append(
            f"| {n} | {a['op']} | `{_md(a['target'])}` | {a['route']} | {_md(a['reviewer'])} "
            f"| {_md(a['reason'])} |"
        )
    withdrawn = view["withdrawn"]
    if not isinstance(withdrawn, list):
        raise TypeError(f"withdrawn arguments: a list, not {type(withdrawn).__name__}")
    if withdrawn:
        lines += ["", "**Withdrawn from the A-QBAF** (kept in the trace):", ""]
        lines += [f"- `{_md(w['id'])}` ({w['stance']}): {_md(w['text'])}" for w in withdrawn]
    return "\n".join(lines) + "\n"


def _html(view: dict[str, object]) -> str:
    actions = view["actions"]
    withdrawn = view["withdrawn"]
    if not isinstance(actions, list) or not isinstance(withdrawn, list):
        raise TypeError("contestation view: actions and withdrawn must be lists")
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(a[k]))}</td>" for k in ("op", "target", "route", "reviewer")
        )
        + f"<td>{html.escape(a['reason'])}</td></tr>"
        for a in actions
    )
    gone = "".join(
        f"<li><code>{html.escape(w['id'])}</code> ({html.escape(w['stance'])}): "
        f"{html.escape(w['text'])}</li>"
        for w in withdrawn
    )
    return (
        '<section id="contestation"><h2>Contestation</h2><table><thead><tr><th>Action</th>'
        "<th>Target</th><th>Route</th><th>Reviewer</th><th>Reason</th></tr></thead><tbody>"
        f"{rows}</tbody></table>"
        + (f"<p>Withdrawn from the A-QBAF (kept in the trace):</p><ul>{gone}</ul>" if gone else "")
        + "</section>\n"
    )


def with_contestation(report: RenderedReport, state: ReviewState) -> RenderedReport:
    """``report`` with the contestation log appended to its Markdown, HTML and JSON."""
    view = contestation_view(state)
    document = json.loads(report.json_report)
    document["contestation"] = view
    page = report.html
    marker = page.rfind("</body>")
    section = _html(view)
    page = page[:marker] + section + page[marker:] if marker >= 0 else page + section
    return RenderedReport(
        markdown=report.markdown.rstrip("\n") + "\n" + _markdown(view),
        html=page,
        json_report=json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n",
    )
