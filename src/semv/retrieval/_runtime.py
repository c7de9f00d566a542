"""``Retrieval``: the evidence sources enabled for a run, and the retrieval loop of one
subclaim (the body of the ``retrieve:k`` stage).

Fingerprint honesty: live retrieval is not a pure function of the plan. ``identity()`` lists,
per source, everything its answers depend on — the corpus content digest and the re-ranker for
the local corpus; for a web source in ``live`` mode a token fresh in every session (a live node
is never reused from the node cache), in ``replay`` mode the digest of that source's cache
entries (a replay from an unchanged cache is a pure function of the plan, so it is reused).
The temporal cut-off enters too. The stage graph puts this into the retrieve nodes' params.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from semv.config import RetrievalConfig, Settings
from semv.model import (
    Case,
    Evidence,
    QueryRecord,
    ResearchPlan,
    Stage,
    UncertaintyCode,
    UncertaintyItem,
)
from semv.nlp.dates import iso_date, parse_date, published_after
from semv.retrieval._cache import ReplayCache
from semv.retrieval._corpus import LocalCorpus
from semv.retrieval._http import HttpClient, HttpLimits, RetrievalError
from semv.retrieval._images import (
    IMAGE_API_NAMES,
    REVERSE_DIMENSIONS,
    ImageQuery,
    ImageSource,
    ReverseImageSource,
    make_image_api,
)
from semv.retrieval._priors import load_priors
from semv.retrieval._rerank import E5Reranker
from semv.retrieval._source import CorpusSource, EvidenceSource
from semv.retrieval._web import WebSearchSource, make_api

__all__ = [
    "ExternalResult",
    "Retrieval",
    "exclude_after",
    "open_retrieval",
    "reopen_retrieval",
    "search_plan",
]


def exclude_after(items: Sequence[Evidence], before: str | None) -> tuple[list[Evidence], int]:
    """Temporal-leakage guard: drop items published after ``before``; return (kept, dropped)."""
    if before is None:
        return list(items), 0
    kept = [e for e in items if not published_after(e.published, before)]
    return kept, len(items) - len(kept)


@dataclass
class Retrieval:
    """The sources of a run plus its temporal cut-off policy."""

    sources: tuple[EvidenceSource | ImageSource, ...]
    config: RetrievalConfig
    before: str | None = None
    before_claim_date: bool = False
    """Use each case's own claimed date as the cut-off (benchmark runs)."""
    _closers: list[Any] = field(default_factory=list)
    spec: dict[str, Any] = field(default_factory=dict)
    """How the sources were opened (recorded with a run so a revision can reopen them)."""

    def before_for(self, case: Case) -> str | None:
        if self.before is not None:
            return self.before
        if self.before_claim_date and case.context.date:
            # the same parse as the ``when`` subclaim's claimed date (semv.nlp.dates)
            claimed = parse_date(case.context.date, case.context.language)
            return None if claimed is None else claimed.cutoff
        return None

    def identity(self) -> list[str]:
        return [s.identity() for s in self.sources]

    def close(self) -> None:
        for closer in self._closers:
            closer.close()
        self._closers.clear()


def open_retrieval(
    settings: Settings,
    *,
    store_url: str,
    corpus: bool = False,
    corpus_url: str | None = None,
    web: Sequence[str] = (),
    endpoints: dict[str, str] | None = None,
    mode: str = "live",
    before: str | None = None,
    before_claim_date: bool = False,
    rerank: bool | None = None,
    allow_private: bool | None = None,
    transport: Any = None,
    as_of: str | None = None,
) -> Retrieval:
    """Build the sources: the local corpus (in ``corpus_url`` or the store) and web APIs.

    ``mode`` is ``live`` (requests go out and are recorded) or ``replay`` (answers come from
    the dated cache: the newest entry per query, or the newest at or before ``as_of``).
    A ``web`` name of ``IMAGE_API_NAMES`` opens a web reverse-image engine."""
    cfg = settings.retrieval
    priors = load_priors()
    sources: list[EvidenceSource | ImageSource] = []
    closers: list[Any] = []
    if corpus:
        local = LocalCorpus(corpus_url or store_url)
        closers.append(local)
        use_rerank = cfg.rerank if rerank is None else rerank
        reranker = E5Reranker(cfg.rerank_weight) if use_rerank else None
        sources.append(CorpusSource(local, priors, reranker=reranker, pool=cfg.rerank_pool))
    if web:
        cache = ReplayCache(store_url)
        closers.append(cache)
        http = None
        if mode == "live":
            limits = HttpLimits(
                max_bytes=cfg.max_bytes,
                timeout_s=cfg.timeout_s,
                retries=cfg.retries,
                backoff_s=cfg.backoff_s,
                max_redirects=cfg.max_redirects,
                allow_private=cfg.allow_private if allow_private is None else allow_private,
            )
            http = HttpClient(limits, transport=transport)
            closers.append(http)
        for name in web:
            if name in IMAGE_API_NAMES:
                sources.append(
                    ReverseImageSource(
                        make_image_api(name, (endpoints or {}).get(name), replay=mode == "replay"),
                        cache=cache,
                        mode=mode,
                        reliability=settings.sources.prior_caption,
                        max_upload_bytes=cfg.max_upload_bytes,
                        http=http,
                        fetch_pages=cfg.fetch_pages,
                        as_of=as_of,
                    )
                )
                continue
            api = make_api(name, (endpoints or {}).get(name), replay=mode == "replay")
            sources.append(
                WebSearchSource(
                    api,
                    cache=cache,
                    priors=priors,
                    mode=mode,
                    http=http,
                    fetch_pages=cfg.fetch_pages,
                    as_of=as_of,
                )
            )
    iso_before = iso_date(before) if before else None
    if before and iso_before is None:
        from semv.errors import InputError

        raise InputError(f"--before {before!r}: not a date (use YYYY-MM-DD)")
    spec = {
        "corpus": corpus,
        "corpus_url": corpus_url,
        "web": list(web),
        "endpoints": dict(endpoints or {}),
        "before": iso_before,
        "before_claim_date": before_claim_date,
    }
    return Retrieval(tuple(sources), cfg, iso_before, before_claim_date, closers, spec)


def reopen_retrieval(
    settings: Settings, store_url: str, spec: dict[str, Any], as_of: str
) -> Retrieval:
    """The sources a run used (its recorded ``spec``), with web answers replayed from the dated
    cache as of ``as_of``: what a revision of that run searches (Module E)."""
    return open_retrieval(
        settings,
        store_url=store_url,
        corpus=bool(spec.get("corpus")),
        corpus_url=spec.get("corpus_url"),
        web=list(spec.get("web", ())),
        endpoints=dict(spec.get("endpoints", {})),
        mode="replay",
        before=spec.get("before"),
        before_claim_date=bool(spec.get("before_claim_date")),
        as_of=as_of,
    )


@dataclass(frozen=True)
class ExternalResult:
    evidence: tuple[Evidence, ...]
    queries: tuple[QueryRecord, ...]
    excluded: int
    uncertainty: tuple[UncertaintyItem, ...]


async def search_plan(
    retrieval: Retrieval,
    plan: ResearchPlan,
    before: str | None,
    images: Sequence[ImageQuery] = (),
) -> ExternalResult:
    """Send the plan's queries to every text source, and the case's ``images`` to every
    reverse-image engine (for the subclaims a match bears on); guard, dedupe and record each
    answer. The leakage guard drops whatever was published (or first seen) after ``before``."""
    cfg = retrieval.config
    dim = plan.subclaim.split(":", 1)[-1]
    found: dict[str, Evidence] = {}
    records: list[QueryRecord] = []
    excluded = 0
    failures: list[str] = []

    async def ask(source: EvidenceSource | ImageSource, query: str, kind: str, call: Any) -> None:
        nonlocal excluded
        rid = f"src:{dim}:{len(records)}"
        try:
            items = await asyncio.to_thread(call)
        except RetrievalError as exc:
            failures.append(f"{source.name}: {exc}")
            records.append(
                QueryRecord(id=rid, source=source.name, query=query, mode=kind, error=str(exc))
            )
            return
        kept, dropped = exclude_after(items, before)
        excluded += dropped
        for item in kept:
            found.setdefault(item.id, item)
        stamps = sorted(
            {e.provenance.retrieved_at for e in kept if e.provenance and e.provenance.retrieved_at}
        )
        records.append(
            QueryRecord(
                id=rid,
                source=source.name,
                query=query,
                mode=kind,
                retrieved_at=stamps[-1] if stamps else None,
                hits=tuple(dict.fromkeys(e.id for e in kept)),
                excluded_after=dropped,
            )
        )

    for source in retrieval.sources:
        if isinstance(source, ImageSource):
            if dim not in {d.value for d in REVERSE_DIMENSIONS}:
                continue
            for image in images:
                call = partial(source.search_image, image, before=before, k=cfg.image_k)
                await ask(source, image.label, "web", call)
            continue
        offline = source.mode == "offline"
        kind = "offline" if offline else "web"
        queries = plan.queries[: cfg.corpus_queries if offline else cfg.web_queries]
        k = cfg.corpus_k if offline else cfg.web_k
        for query in queries:
            await ask(source, query, kind, partial(source.search, query, before=before, k=k))
    gaps: list[UncertaintyItem] = []
    if failures:
        gaps.append(
            UncertaintyItem(
                code=UncertaintyCode.RETRIEVAL_GAP,
                subject=plan.subclaim,
                detail=f"{len(failures)} of {len(records)} queries failed; first: {failures[0]}",
                stages=(Stage.RETRIEVE,),
            )
        )
    return ExternalResult(tuple(found.values()), tuple(records), excluded, tuple(gaps))
