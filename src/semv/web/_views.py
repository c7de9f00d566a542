"""Read-only views of stored runs for the API and the pages: result, report, trace, stage
nodes, per-subclaim argument graphs (A-QBAF MV2026 §2.6.2) and the revision history.

Everything is read back from the store (content-addressed node outputs and run records); a
finished run is immutable, so these views never change once a run is committed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from semv.errors import RunNotFound, StoreError
from semv.model import (
    Arguments,
    Claims,
    Escalated,
    RankedEvidence,
    RenderedReport,
    RunStatus,
    SolvedQbaf,
)
from semv.report import ReportView
from semv.store import RunRecord, Store

__all__ = [
    "ArgNode",
    "ArgumentGraph",
    "History",
    "NotCommitted",
    "RelationEdge",
    "argument_graphs",
    "evidence_pool",
    "history",
    "history_json",
    "node_graph",
    "report_text",
    "report_view",
    "result_text",
    "revision_outcome",
    "run_summary",
    "trace_payload",
]

REPORT_FORMATS = {"html": "html", "markdown": "markdown", "md": "markdown", "json": "json"}


class NotCommitted(StoreError):
    """The run exists but has no result (still running, or failed)."""


def run_summary(r: RunRecord, *, interrupted: bool = False) -> dict[str, Any]:
    """One row of the run list (``interrupted``: a running run whose process is gone)."""
    return {
        "run_id": r.run_id,
        "case_id": r.case_id,
        "adapter": r.adapter,
        "status": "interrupted" if interrupted else r.status.value,
        "label": r.label,
        "confidence": r.confidence,
        "parent_run_id": r.parent_run_id,
        "created_at": r.created_at,
        "finished_at": r.finished_at,
        "error": r.error,
    }


def _committed(store: Store, run: str) -> RunRecord:
    record = store.get_run(run)
    if record.status is not RunStatus.COMMITTED or not record.result_json:
        detail = f": {record.error}" if record.error else ""
        raise NotCommitted(f"run {record.run_id} is {record.status.value}{detail}")
    return record


def result_text(store: Store, run: str) -> str:
    """The stored JSON result of a committed run."""
    return _committed(store, run).result_json or "{}"


def _node(store: Store, run_id: str, key: str, kind: type[BaseModel]) -> Any:
    return kind.model_validate_json(store.node_value_json(run_id, key))


def report_text(store: Store, run: str, fmt: str) -> str:
    """The run's report in ``fmt`` (html, markdown, json): the written file when it is still
    there (it carries the model-usage section of LLM runs), else the ``render`` node."""
    record = _committed(store, run)
    kind = REPORT_FORMATS[fmt]
    paths = json.loads(record.result_json or "{}").get("report_paths", {})
    written = paths.get(kind)
    if written and Path(written).is_file():
        return Path(written).read_text(encoding="utf-8")
    report: RenderedReport = _node(store, record.run_id, "render", RenderedReport)
    return {"html": report.html, "markdown": report.markdown, "json": report.json_report}[kind]


def report_view(store: Store, run: str) -> tuple[ReportView, dict[str, Any] | None]:
    """The MV2026 report sections and, for a revision, its contestation log."""
    document = json.loads(report_text(store, run, "json"))
    contestation = document.pop("contestation", None)
    for extra in ("format", "section_order", "usage"):
        document.pop(extra, None)
    return ReportView.model_validate(document), contestation


def trace_payload(store: Store, run: str) -> dict[str, Any]:
    """The run's hash-chained trace and the result of re-verifying it."""
    record = store.get_run(run)
    check = store.verify_trace(record.run_id)
    return {
        "run_id": record.run_id,
        "verified": check.ok,
        "head": check.head,
        "problem": check.problem,
        "events": [e.model_dump(mode="json") for e in store.trace(record.run_id)],
    }


def node_graph(store: Store, run: str) -> dict[str, Any]:
    """The run's stage nodes (key, stage, fingerprint, output hash, reused, seconds)."""
    record = store.get_run(run)
    nodes = store.run_nodes(record.run_id)
    return {
        "run_id": record.run_id,
        "nodes": [
            {
                "key": n.key,
                "stage": n.stage,
                "fingerprint": n.fingerprint,
                "output_hash": n.output_hash,
                "reused": n.reused,
                "seconds": n.seconds,
            }
            for n in nodes
        ],
    }


@dataclass(frozen=True)
class ArgNode:
    """An argument as the graph shows it."""

    id: str
    stance: str
    text: str
    evidence: tuple[str, ...]
    strength: float
    """w_a, the intrinsic (Eq. 14) strength."""
    weight: float | None
    """The weight the QBAF used after clash resolution; None: not in the QBAF (inadmissible)."""
    verified: bool
    admissible: bool
    origin: str
    uncertainty: tuple[str, ...]
    accepted: bool
    replaces: str | None
    final: float | None = None
    """σ(a), its strength after the argument-to-argument relations; None: not in the QBAF."""


@dataclass(frozen=True)
class RelationEdge:
    """An argument-to-argument relation (A-QBAF MV2026 §2.5) as the graph shows it."""

    id: str
    kind: str
    stance: str
    """``sup`` or ``att``: the edge's polarity."""
    src: str
    dst: str
    mutual: bool
    fact: str


@dataclass(frozen=True)
class ArgumentGraph:
    """Q_k of one subclaim (Eq. 15) as solved: claim node, arguments, edges, scores, band."""

    dimension: str
    subclaim: str
    statement: str
    base: float
    score: float
    band: str
    support_total: float
    attack_total: float
    clash: dict[str, Any] | None
    uncertainty: tuple[str, ...]
    arguments: tuple[ArgNode, ...] = field(default_factory=tuple)
    relations: tuple[RelationEdge, ...] = field(default_factory=tuple)

    def as_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["arguments"] = [dict(a.__dict__) for a in self.arguments]
        data["relations"] = [dict(r.__dict__) for r in self.relations]
        return data


def argument_graphs(store: Store, run: str) -> list[ArgumentGraph]:
    """Every subclaim's final arguments and solved QBAF (``escalate:k``, else ``qbaf:k``)."""
    record = _committed(store, run)
    keys = {n.key for n in store.run_nodes(record.run_id)}
    if "claims" not in keys:  # a procedure without SEMV's subclaim chains
        return []
    claims: Claims = _node(store, record.run_id, "claims", Claims)
    graphs = []
    for k, sub in claims.subclaims.items():
        if f"escalate:{k}" in keys:
            final: Escalated = _node(store, record.run_id, f"escalate:{k}", Escalated)
            args, solved = final.arguments, final.solved
        elif f"qbaf:{k}" in keys:
            args = _node(store, record.run_id, f"argue:{k}", Arguments)
            solved = _node(store, record.run_id, f"qbaf:{k}", SolvedQbaf)
        else:
            continue
        q = solved.qbaf
        graphs.append(
            ArgumentGraph(
                dimension=k,
                subclaim=sub.id,
                statement=sub.statement,
                base=q.base,
                score=q.score,
                band=solved.decision.band.value,
                support_total=q.support_total,
                attack_total=q.attack_total,
                clash=q.clash.model_dump(mode="json") if q.clash else None,
                uncertainty=tuple(c.value for c in solved.decision.uncertainty),
                arguments=tuple(
                    ArgNode(
                        id=a.id,
                        stance=a.stance.value,
                        text=a.text,
                        evidence=a.evidence,
                        strength=a.strength,
                        weight=q.arguments.get(a.id),
                        verified=a.verified,
                        admissible=a.admissible,
                        origin=f"{a.origin.kind}: {a.origin.name}",
                        uncertainty=tuple(c.value for c in a.uncertainty),
                        accepted=a.id in q.accepted,
                        replaces=a.replaces,
                        final=q.strengths.get(a.id, q.arguments.get(a.id)),
                    )
                    for a in args.arguments
                ),
                relations=tuple(
                    RelationEdge(
                        id=r.id,
                        kind=r.kind.value,
                        stance=r.stance.value,
                        src=r.src,
                        dst=r.dst,
                        mutual=r.mutual,
                        fact=r.fact,
                    )
                    for r in args.relations
                    if r.src in q.arguments and r.dst in q.arguments
                ),
            )
        )
    return graphs


def evidence_pool(store: Store, run: str) -> dict[str, dict[str, Any]]:
    """Every ranked evidence item of the run by id (what the arguments could cite)."""
    record = _committed(store, run)
    pool: dict[str, dict[str, Any]] = {}
    for n in store.run_nodes(record.run_id):
        if n.key.startswith("validate:"):
            ranked: RankedEvidence = _node(store, record.run_id, n.key, RankedEvidence)
            for e in ranked.evidence:
                pool.setdefault(e.id, e.model_dump(mode="json"))
    return pool


def revision_outcome(store: Store, run_id: str) -> dict[str, Any] | None:
    """The stored outcome of a revision run (plan, locality, decision delta, base check)."""
    rev = store.get_revision(run_id)
    if rev is None:
        return None
    outcome: dict[str, Any] = json.loads(rev.outcome_json) if rev.outcome_json else {}
    outcome.setdefault("parent_run_id", rev.parent_run_id)
    outcome["batch"] = json.loads(rev.batch_json)
    outcome["committed"] = rev.committed_at is not None
    return outcome


@dataclass(frozen=True)
class History:
    """A run's place in its revision tree: ancestors (first pass first) and revisions."""

    ancestors: tuple[RunRecord, ...]
    children: tuple[RunRecord, ...]
    siblings: tuple[RunRecord, ...]


def history(store: Store, run: str) -> History:
    record = store.get_run(run)
    chain: list[RunRecord] = []
    parent = record.parent_run_id
    while parent:
        try:
            up = store.get_run(parent)
        except RunNotFound:
            break
        chain.append(up)
        parent = up.parent_run_id
    children = tuple(store.get_run(r.run_id) for r in store.revisions_of(record.run_id))
    siblings: tuple[RunRecord, ...] = ()
    if record.parent_run_id:
        siblings = tuple(
            store.get_run(r.run_id)
            for r in store.revisions_of(record.parent_run_id)
            if r.run_id != record.run_id
        )
    return History(ancestors=tuple(reversed(chain)), children=children, siblings=siblings)


def history_json(h: History) -> dict[str, Any]:
    return {
        "ancestors": [run_summary(r) for r in h.ancestors],
        "revisions": [run_summary(r) for r in h.children],
        "siblings": [run_summary(r) for r in h.siblings],
    }
