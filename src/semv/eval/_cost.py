"""Cost accounting per procedure: the ReMMD paper's Table 6-style comparison.

Per case (one ``cost`` object in each ``results.jsonl`` line, ``case_cost``):

- ``calls``, ``prompt_tokens``, ``completion_tokens``: model requests answered and their
  tokens, from the run's usage ledger (``semv.usage``; the offline backend makes no model
  calls, so these are 0 there, not unknown);
- ``wall_s``: the run's wall time (the ledger's when it has one, else the harness's clock);
- ``retrievals`` and ``retrievals_reused``: retrieval operations and retrieved items that
  served more than one claim. A procedure declares them on a node value with the integer
  fields ``retrievals`` and ``retrievals_reused``; the ReMMD sample evidence bank, which also
  holds R_j per point (``matches``) and ``records_reused``, counts its TopK look-ups (one per
  point) plus the queries it sent, and the records linked to two or more atomic points (one
  record serving two points counts once). For the ``semv`` graph they are read off its nodes:
  one look-up per ``retrieve:k`` node plus every external query it sent, and the evidence
  items ranked for two or more subclaims (``validate:k``).

- ``roles`` (runs with a ledger only): per role, ``[prompt tokens, completion tokens]``;
- ``price``: the price of the case's tokens from ``llm.prices`` (None when a model's
  price is not configured; absent for a run without a ledger).

``cost_summary`` aggregates the lines of one procedure; ``cost_table`` renders the
comparison (means per case, totals of retrievals) as Markdown, and ``role_table`` the tokens
in/out per role and case.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import BaseModel

from semv.graph import NodeOutcome
from semv.model import RankedEvidence, Result, Retrieved

__all__ = [
    "COST_FIELDS",
    "case_cost",
    "cost_summary",
    "cost_table",
    "retrieval_counts",
    "role_table",
]

COST_FIELDS: Final = (
    "calls",
    "prompt_tokens",
    "completion_tokens",
    "wall_s",
    "retrievals",
    "retrievals_reused",
)


def _declared(value: object) -> tuple[int, int] | None:
    """A node value's own counts. A value that also says which records serve which claims
    (the ReMMD bank: ``matches`` = R_j per point, ``records_reused``) is counted the way the
    ``semv`` graph is, so the rows compare: one look-up per point plus every query sent to a
    source, and the records that serve two or more points."""
    if isinstance(value, BaseModel) and "retrievals" not in type(value).model_fields:
        return None  # most node values: asking a model for a missing attribute is slow
    retrievals = getattr(value, "retrievals", None)
    reused = getattr(value, "retrievals_reused", None)
    if not (isinstance(retrievals, int) and isinstance(reused, int)):
        return None
    matches = getattr(value, "matches", None)
    records_reused = getattr(value, "records_reused", None)
    if isinstance(matches, Mapping) and isinstance(records_reused, int):
        return retrievals + len(matches), records_reused
    return retrievals, reused


def retrieval_counts(nodes: Mapping[str, NodeOutcome]) -> tuple[int, int]:
    """(retrievals, retrievals reused) of one run; see the module docstring."""
    declared = [c for n in nodes.values() if (c := _declared(n.value)) is not None]
    if declared:
        return sum(c[0] for c in declared), sum(c[1] for c in declared)
    retrievals = 0
    served: Counter[str] = Counter()
    for node in nodes.values():
        if isinstance(node.value, Retrieved):
            retrievals += 1 + len(node.value.queries)
        elif isinstance(node.value, RankedEvidence):
            served.update({e.id for e in node.value.evidence})
    return retrievals, sum(1 for count in served.values() if count > 1)


def case_cost(result: Result, nodes: Mapping[str, NodeOutcome], seconds: float) -> dict[str, Any]:
    """The ``cost`` object of one committed run (``seconds``: the harness's clock)."""
    usage = result.usage
    retrievals, reused = retrieval_counts(nodes)
    cost: dict[str, Any] = {
        "calls": usage.calls if usage else 0,
        "cached": usage.cached if usage else 0,
        "prompt_tokens": usage.prompt_tokens if usage else 0,
        "completion_tokens": usage.completion_tokens if usage else 0,
        "wall_s": round(usage.wall_s if usage else seconds, 3),
        "retrievals": retrievals,
        "retrievals_reused": reused,
    }
    if usage is not None:
        cost["roles"] = {
            role: [r.prompt_tokens, r.completion_tokens] for role, r in usage.roles.items()
        }
        cost["price"] = usage.cost
        cost["currency"] = usage.currency
    return cost


def cost_summary(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Means per case (calls, tokens, wall, retrievals, reused) and totals over the lines that
    carry a ``cost`` object; ``cases`` is how many did. A field some line does not record
    (the published runs' calls) is None, never a made-up 0."""
    costs = [r["cost"] for r in records if isinstance(r.get("cost"), Mapping)]
    n = len(costs)
    if n == 0:
        return {"cases": 0}

    def total(*keys: str) -> float | None:
        if any(c.get(k) is None for c in costs for k in keys):
            return None
        return float(sum(float(c[k]) for c in costs for k in keys))

    def mean(value: float | None) -> float | None:
        return None if value is None else value / n

    retrievals = total("retrievals")
    reused = total("retrievals_reused")
    wall = total("wall_s")
    priced = [c.get("price") for c in costs]
    roles: dict[str, list[float]] = {}
    for c in costs:
        for role, (tokens_in, tokens_out) in (c.get("roles") or {}).items():
            acc = roles.setdefault(role, [0.0, 0.0])
            acc[0] += tokens_in / n
            acc[1] += tokens_out / n
    currencies = {c.get("currency") for c in costs if c.get("currency")}
    return {
        "cases": n,
        "calls": mean(total("calls")),
        "tokens": mean(total("prompt_tokens", "completion_tokens")),
        "prompt_tokens": mean(total("prompt_tokens")),
        "completion_tokens": mean(total("completion_tokens")),
        "price": None if any(p is None for p in priced) else mean(sum(priced)),
        "currency": currencies.pop() if len(currencies) == 1 else None,
        "roles": dict(sorted(roles.items())),
        "wall_s": mean(wall),
        "wall_total_s": wall,
        "retrievals": mean(retrievals),
        "retrievals_reused": mean(reused),
        "retrievals_total": None if retrievals is None else int(retrievals),
        "retrievals_reused_total": None if reused is None else int(reused),
    }


def _num(value: Any, digits: int) -> str:
    return "–" if value is None else f"{float(value):,.{digits}f}"


def cost_table(rows: Mapping[str, Mapping[str, Any]], *, backend: str) -> str:
    """Table 6-style Markdown: one row per procedure (``cost_summary`` values; a missing
    field is shown as –, e.g. the published run's calls)."""
    lines = [
        f"## Cost per procedure ({backend} backend; ReMMD Table 6 layout)",
        "",
        "| Procedure | Cases | Calls/case↓ | Tokens/case↓ | Prompt tok./case | "
        "Completion tok./case | Price/case↓ | Wall s/case↓ | Retrievals/case | "
        "Reused/case | Retrievals (total) | Reused (total) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in rows.items():
        price = _num(s.get("price"), 4)
        if s.get("price") is not None and s.get("currency"):
            price += f" {s['currency']}"
        lines.append(
            f"| {name} | {s.get('cases', 0)} | {_num(s.get('calls'), 1)} | "
            f"{_num(s.get('tokens'), 0)} | {_num(s.get('prompt_tokens'), 0)} | "
            f"{_num(s.get('completion_tokens'), 0)} | {price} | {_num(s.get('wall_s'), 2)} | "
            f"{_num(s.get('retrievals'), 1)} | {_num(s.get('retrievals_reused'), 1)} | "
            f"{_num(s.get('retrievals_total'), 0)} | {_num(s.get('retrievals_reused_total'), 0)} |"
        )
    lines += [
        "",
        "Calls and tokens: model requests answered and their prompt + completion tokens (the "
        "offline backend makes none). Price: the tokens at `llm.prices` of each model (– when "
        "a model has no configured price). Wall: seconds per case on this machine. The published "
        "run files' row is the authors' own run (their timings on their GPUs; tokens of the "
        "atomic parse and judge only, a lower bound; retrievals = their atom queries). "
        "Retrievals: "
        "retrieval operations (semv: one look-up per subclaim plus each external query; "
        "remmd: the evidence bank's look-ups); reused: retrieved items that served two or more "
        "subclaims or atomic points.",
    ]
    return "\n".join(lines) + "\n"


def role_table(rows: Mapping[str, Mapping[str, Any]]) -> str:
    """Tokens in/out per role and case (means over the cases of each procedure); '' when no
    procedure made a model call."""
    lines = [
        "## Tokens per role (mean per case)",
        "",
        "| Procedure | Role | Prompt tok./case | Completion tok./case |",
        "|---|---|---|---|",
    ]
    body = [
        f"| {name} | {role} | {_num(tokens_in, 0)} | {_num(tokens_out, 0)} |"
        for name, s in rows.items()
        for role, (tokens_in, tokens_out) in (s.get("roles") or {}).items()
    ]
    return "\n".join([*lines, *body]) + "\n" if body else ""
