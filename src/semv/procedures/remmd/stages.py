"""The ReMMD procedure's stages (ReMMD §3): ``points`` → ``bank`` → ``judge`` (σ_j) →
``veracity`` (L1) → ``diagnosis`` (L2, after L1) → ``findings`` + ``verdict`` (L3, the
``Verdict``) → ``render``.

Each step runs its deterministic offline rules; with the LLM backend the model answers the
step (prompt ``prompts/<step>.j2``) and the offline result is kept when its answer is
unusable. The judge's node carries the reviewer's rejections (record ids, point ids) as
params, so contesting a record or a point re-runs only the judge side: points and the bank
(its retrievals) are reused.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from semv.adapters import REMMD_L2, l2_label
from semv.graph import StageContext, StageDef
from semv.model import Case, Evidence, MediaEvidence, Stage, Verdict
from semv.procedures._labelled import Finding, Findings, labelled_verdict
from semv.procedures.remmd import _llm
from semv.procedures.remmd._models import (
    AtomicPoint,
    AtomicPoints,
    Diagnosis,
    EvidenceBank,
    PointFinding,
    PointRole,
    PointStates,
    PointStatus,
    PointType,
    Veracity,
)
from semv.procedures.remmd.bank import build_bank
from semv.procedures.remmd.judge import diagnose, judge_point, veracity, visual_signals
from semv.procedures.remmd.points import Candidate, extract_points, merge_and_cap, point_facts

__all__ = [
    "BANK",
    "DIAGNOSIS",
    "FINDINGS",
    "JUDGE",
    "POINTS",
    "VERACITY",
    "VERDICT",
    "rationale",
]

_CODE = ("semv.procedures.remmd", "semv.nlp")


# ---- points ------------------------------------------------------------------------------


async def points_stage(
    ctx: StageContext, *, case: Case, media: list[MediaEvidence]
) -> AtomicPoints:
    cfg = ctx.settings.remmd
    offline = await asyncio.to_thread(
        extract_points,
        case.claim,
        media,
        cfg,
        language=case.context.language,
        use_embeddings=ctx.settings.offline.embeddings,
    )
    llm = _llm.llm_backend(ctx.agents)
    if llm is None:
        return offline
    images = [
        {"index": n, "asset": m.asset_id, "text": " ".join(e.content for e in m.evidence)[:1500]}
        for n, m in enumerate(media, start=1)
        if m.evidence
    ]
    answer, problem = await _llm.ask(
        llm,
        "points",
        _llm.PointsAnswer,
        max_points=cfg.max_points,
        language=offline.language,
        case_id=case.id,
        text=case.claim,
        images=images,
    )
    if answer is None or not answer.points:
        note = _llm.fallback_note("points", problem or "no points")
        return offline.model_copy(update={"uncertainty": (*offline.uncertainty, note)})
    cands = []
    for n, p in enumerate(answer.points):
        facts, _ = point_facts(p.text, offline.language)
        cands.append(
            Candidate(
                text=p.text,
                type=PointType(p.type),
                role=PointRole(p.role),
                central=p.central,
                centrality=float(len(answer.points) - n),
                order=n,
                facts=facts,
            )
        )
    kept, merged, dropped = merge_and_cap(
        cands, cfg, use_embeddings=ctx.settings.offline.embeddings
    )
    by_text = {p.text: p for p in answer.points}
    points = tuple(
        AtomicPoint(
            id=f"a{n}",
            text=c.text,
            query=by_text[c.text].query or c.text[:120],
            bridge_query=by_text[c.text].bridge_query,
            type=c.type,
            role=c.role,
            central=c.central,
            centrality=c.centrality,
            facts=c.facts,
            merged_from=c.merged_from,
        )
        for n, c in enumerate(kept, start=1)
    )
    return AtomicPoints(
        language=offline.language,
        post_summary=answer.post_summary,
        points=points,
        candidates=len(cands),
        merged=merged,
        dropped=dropped,
        retrieval_queries=tuple(
            dict.fromkeys(q for p in points for q in (p.query, p.bridge_query) if q)
        ),
    )


POINTS = StageDef(
    name="remmd-points",
    version="1",
    fn=points_stage,
    output=AtomicPoints,
    reads=("remmd", "offline"),
    uses_agents=True,
    symbol=Stage.CLAIMS,
    code=_CODE,
)


# ---- bank --------------------------------------------------------------------------------


async def bank_stage(
    ctx: StageContext,
    *,
    points: AtomicPoints,
    supplied: tuple[Evidence, ...],
    media: list[MediaEvidence],
) -> EvidenceBank:
    from semv.retrieval import Retrieval

    declared = tuple(ctx.params.get("sources", ()))
    retrieval = ctx.resources.get("retrieval")
    if declared and not isinstance(retrieval, Retrieval):
        raise ValueError("the node declares retrieval sources but the run provides none")
    sources: Sequence[object] = ()
    cfg = ctx.settings.retrieval
    if declared and isinstance(retrieval, Retrieval):
        sources = retrieval.sources

    def k_for(source: object) -> int:
        return cfg.corpus_k if getattr(source, "mode", "") == "offline" else cfg.web_k

    return await build_bank(
        points,
        supplied,
        media,
        ctx.settings.remmd,
        sources=sources,
        before=ctx.params.get("before"),
        k_for=k_for,
        use_embeddings=ctx.settings.offline.embeddings,
    )


BANK = StageDef(
    name="remmd-bank",
    version="1",
    fn=bank_stage,
    output=EvidenceBank,
    reads=("remmd", "retrieval", "offline"),
    symbol=Stage.RETRIEVE,
    code=(*_CODE, "semv.retrieval"),
)


# ---- judge (σ_j) -------------------------------------------------------------------------


def _matched(
    point: AtomicPoint, bank: EvidenceBank, rejected: set[str]
) -> list[tuple[Evidence, float]]:
    items = {r.evidence_id: r.item for r in bank.records}
    return [
        (items[m.evidence_id], m.score)
        for m in bank.matches.get(point.id, ())
        if m.evidence_id in items and m.evidence_id not in rejected
    ]


async def judge_stage(
    ctx: StageContext, *, points: AtomicPoints, bank: EvidenceBank
) -> PointStates:
    cfg = ctx.settings.remmd
    rejected_records = set(ctx.params.get("rejected_evidence", ()))
    rejected_points = set(ctx.params.get("rejected_points", ()))
    active = [p for p in points.points if p.id not in rejected_points]
    tol = ctx.settings.offline.time_tolerance_days
    offline = {
        p.id: judge_point(p, _matched(p, bank, rejected_records), cfg, capture_tolerance_days=tol)
        for p in active
    }
    excluded = tuple(sorted(rejected_records | rejected_points))
    llm = _llm.llm_backend(ctx.agents)
    if llm is None:
        return PointStates(findings=tuple(offline.values()), excluded=excluded)
    allowed = {p.id: {ev.id for ev, _ in _matched(p, bank, rejected_records)} for p in active}
    view: list[dict[str, Any]] = [
        {
            "id": p.id,
            "type": p.type.value,
            "central": p.central,
            "role": p.role.value,
            "text": p.text,
            "records": [
                {"id": ev.id, "text": f"{ev.title or ''} {ev.content}"[:1200]}
                for ev, _ in _matched(p, bank, rejected_records)
            ],
        }
        for p in active
    ]
    answer, problem = await _llm.ask(llm, "judge", _llm.JudgeAnswer, points=view)
    if answer is None:
        return PointStates(
            findings=tuple(offline.values()),
            excluded=excluded,
            uncertainty=(_llm.fallback_note("judge", problem or "?"),),
        )
    findings = dict(offline)
    for f in answer.findings:
        if f.point not in allowed:
            continue
        status = PointStatus(f.status)
        if status is not PointStatus.UNVERIFIED and f.evidence_id not in allowed[f.point]:
            status = PointStatus.UNVERIFIED  # fail closed: a verdict must cite its own record
        findings[f.point] = PointFinding(
            point=f.point,
            status=status,
            evidence_id=f.evidence_id if status is not PointStatus.UNVERIFIED else None,
            note=f.note[:500],
            kind="model",
        )
    return PointStates(findings=tuple(findings.values()), excluded=excluded)


JUDGE = StageDef(
    name="remmd-judge",
    version="1",
    fn=judge_stage,
    output=PointStates,
    reads=("remmd", "offline"),
    uses_agents=True,
    symbol=Stage.ARGUE,
    code=_CODE,
)


# ---- L1 ----------------------------------------------------------------------------------


def _judged(points: AtomicPoints, states: PointStates) -> list[dict[str, Any]]:
    by_id = {f.point: f for f in states.findings}
    return [
        {
            "id": p.id,
            "type": p.type.value,
            "central": p.central,
            "role": p.role.value,
            "status": by_id[p.id].status.value,
            "note": by_id[p.id].note,
            "text": p.text,
        }
        for p in points.points
        if p.id in by_id
    ]


async def veracity_stage(
    ctx: StageContext, *, points: AtomicPoints, states: PointStates
) -> Veracity:
    offline = veracity(points.points, {f.point: f for f in states.findings}, ctx.settings.remmd)
    llm = _llm.llm_backend(ctx.agents)
    if llm is None:
        return offline
    answer, _problem = await _llm.ask(
        llm, "veracity", _llm.VeracityAnswer, points=_judged(points, states)
    )
    if answer is None:
        return offline.model_copy(update={"rule": f"{offline.rule} (model fallback)"})
    return Veracity(
        level1_verdict=answer.level1_verdict,
        rule="model",
        decisive=offline.decisive,
        confidence=offline.confidence,
    )


VERACITY = StageDef(
    name="remmd-veracity",
    version="1",
    fn=veracity_stage,
    output=Veracity,
    reads=("remmd",),
    uses_agents=True,
    symbol=Stage.AGGREGATE,
    code=_CODE,
)


# ---- L2 (after L1) -----------------------------------------------------------------------


async def diagnosis_stage(
    ctx: StageContext,
    *,
    points: AtomicPoints,
    states: PointStates,
    level1: Veracity,
    bank: EvidenceBank,
) -> Diagnosis:
    records = [r.item for r in bank.records if r.evidence_id not in set(states.excluded)]
    offline = diagnose(points.points, {f.point: f for f in states.findings}, level1, records)
    llm = _llm.llm_backend(ctx.agents)
    if llm is None:
        return offline
    signals = [
        {"id": eid, "text": f"{code}: " + next(r.content for r in records if r.id == eid)}
        for code, ids in sorted(visual_signals(records).items())
        for eid in ids
    ]
    answer, _problem = await _llm.ask(
        llm,
        "diagnosis",
        _llm.DiagnosisAnswer,
        level1=level1.level1_verdict,
        labels=list(REMMD_L2),
        points=_judged(points, states),
        signals=signals,
    )
    if answer is None:
        return offline
    labels = sorted(
        {label for raw in answer.level2_taxonomy if (label := l2_label(raw)) is not None},
        key=REMMD_L2.index,
    )
    return Diagnosis(
        level2_taxonomy=tuple(labels),
        grounds={"model": (answer.reason[:300],)} if answer.reason else {},
        soft_signals=offline.soft_signals,
    )


DIAGNOSIS = StageDef(
    name="remmd-diagnosis",
    version="1",
    fn=diagnosis_stage,
    output=Diagnosis,
    reads=(),
    uses_agents=True,
    symbol=Stage.AGGREGATE,
    code=_CODE,
)


# ---- findings (for the report) ------------------------------------------------------------


async def findings_stage(
    ctx: StageContext, *, points: AtomicPoints, states: PointStates, bank: EvidenceBank
) -> Findings:
    by_id = {f.point: f for f in states.findings}
    scores = {p: {m.evidence_id: m.score for m in ms} for p, ms in bank.matches.items()}
    rows = []
    cited: dict[str, Evidence] = {}
    items = {r.evidence_id: r.item for r in bank.records}
    for p in points.points:
        f = by_id.get(p.id)
        linked = tuple(m.evidence_id for m in bank.matches.get(p.id, ()))
        for eid in linked:
            cited.setdefault(eid, items[eid])
        centre = "central" if p.central else "peripheral"
        detail = f"{centre} {p.role.value}; query: {p.query}"
        if p.bridge_query:
            detail += f"; bridge: {p.bridge_query}"
        if f is not None and f.note:
            detail += f"; {f.note}"
        rows.append(
            Finding(
                id=p.id,
                kind=p.type.value,
                text=p.text,
                state=f.status.value if f is not None else "rejected",
                score=scores.get(p.id, {}).get(f.evidence_id or "") if f is not None else None,
                evidence=(f.evidence_id,) if f is not None and f.evidence_id else linked[:3],
                detail=detail,
            )
        )
    return Findings(items=tuple(rows), evidence=tuple(cited.values()))


FINDINGS = StageDef(
    name="remmd-findings",
    version="1",
    fn=findings_stage,
    output=Findings,
    code=_CODE,
)


# ---- verdict: L3 and the Verdict ---------------------------------------------------------


@cache
def _phrases() -> dict[str, Any]:
    data = resources.files("semv.procedures.remmd") / "data" / "rationale.json"
    loaded: dict[str, Any] = json.loads(data.read_text("utf-8"))
    return loaded


def rationale(
    language: str,
    points: Sequence[AtomicPoint],
    findings: dict[str, PointFinding],
    level1: Veracity,
    labels: Sequence[str],
    limit: int,
) -> str:
    """L3 in the post's language (phrases in ``data/rationale.json``; English otherwise)."""
    table = _phrases()
    words: dict[str, str] = table.get(language) or table["en"]
    central = [p for p in points if p.central and p.id in findings]
    supported = sum(1 for p in central if findings[p.id].status is PointStatus.SUPPORTED)
    parts = [words["verdict"].format(label=level1.level1_verdict)]
    named = 0
    by_id = {p.id: p for p in points}
    for pid in level1.decisive:
        if named >= limit or pid not in by_id or pid not in findings:
            continue
        key = "decisive" if by_id[pid].central else "detail"
        parts.append(words[key].format(point=by_id[pid].text[:160], note=findings[pid].note or ""))
        named += 1
    if central and supported:
        parts.append(words["supported"].format(supported=supported, central=len(central)))
    elif not level1.decisive:
        parts.append(words["none"])
    if labels:
        parts.append(words["labels"].format(labels=", ".join(labels)))
    return " ".join(parts)


async def verdict_stage(
    ctx: StageContext,
    *,
    points: AtomicPoints,
    states: PointStates,
    level1: Veracity,
    level2: Diagnosis,
) -> Verdict:
    cfg = ctx.settings.remmd
    findings = {f.point: f for f in states.findings}
    text = rationale(
        points.language,
        points.points,
        findings,
        level1,
        level2.level2_taxonomy,
        cfg.rationale_points,
    )
    uncertainty = (*points.uncertainty, *states.uncertainty)
    llm = _llm.llm_backend(ctx.agents)
    if llm is not None:
        answer, problem = await _llm.ask(
            llm,
            "rationale",
            _llm.RationaleAnswer,
            language=points.language,
            level1=level1.level1_verdict,
            labels=list(level2.level2_taxonomy),
            points=_judged(points, states),
        )
        if answer is not None and answer.level3_rationale.strip():
            text = answer.level3_rationale.strip()
        else:
            uncertainty = (*uncertainty, _llm.fallback_note("rationale", problem or "empty"))
    judged = [f for f in findings.values() if f.status is not PointStatus.UNVERIFIED]
    score = (
        sum(1.0 for f in judged if f.status is PointStatus.SUPPORTED) / len(judged)
        if judged
        else 0.5
    )
    return labelled_verdict(
        veracity=level1.level1_verdict,
        distortions=level2.level2_taxonomy,
        rationale=text,
        confidence=level1.confidence,
        score=score,
        contract=str(ctx.params["contract"]),
        rule=f"remmd:{level1.rule}",
        uncertainty=uncertainty,
    )


VERDICT = StageDef(
    name="remmd-verdict",
    version="1",
    fn=verdict_stage,
    output=Verdict,
    reads=("remmd",),
    uses_agents=True,
    symbol=Stage.AGGREGATE,
    code=_CODE,
)
