"""The REST API (``/api/...``; OpenAPI schema at ``/openapi.json``).

Writes (case upload, review batches) need a reviewer when auth is on (``semv.web._auth``);
everything else is read-only. Verification runs as a background job; revisions run on a
worker thread. Errors are JSON ``{"detail": ...}`` with the same messages as the CLI.
"""

from __future__ import annotations

import asyncio
import json
import mimetypes
import shutil
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, PlainTextResponse, Response
from pydantic import ValidationError
from python_multipart.exceptions import MultipartParseError
from sqlalchemy import select
from sse_starlette.sse import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from semv.contest import Policy, ReviewBatch, Revision, batch_schema
from semv.contest.evidence_file import evidence_from_data
from semv.errors import InputError
from semv.model import Bundle
from semv.safeload import loads_json
from semv.store import utc_now
from semv.web import _views as views
from semv.web._jobs import Job
from semv.web._multipart import stream_form
from semv.web._state import WebState, web_state
from semv.web._upload import accept_case, safe_member_path, unpack_zip

__all__ = ["router"]

router = APIRouter(prefix="/api")
State = Annotated[WebState, Depends(web_state)]


@router.get("/health", tags=["server"])
def health(web: State) -> dict[str, Any]:
    """Liveness, whether writes need a token, and the job queue."""
    jobs = web.workers.jobs()
    return {
        "ok": True,
        "auth": web.auth.enabled,
        "backend": web.settings.agents.backend,
        "jobs": {"running": sum(not j.finished for j in jobs), "total": len(jobs)},
    }


# ---- cases and jobs ------------------------------------------------------------------------


@router.post("/cases", status_code=202, tags=["cases"])
async def submit_case(request: Request, web: State) -> dict[str, Any]:
    """Submit a case: multipart with one ``.zip`` of the case folder, or the folder's files
    (each part's file name is its path inside the folder). Optional fields ``adapter`` and
    ``text_only``; the submitter is the token's reviewer (or ``X-Reviewer``). Streamed to disk
    as it arrives and validated as ``semv verify`` validates (the case size limits included)
    before the answer: 202 with one job per case, or 400/413 with nothing stored."""
    limits = web.settings.web
    writer = web.auth.writer(request)  # before reading the body: refused writes cost nothing
    web.uploads.mkdir(parents=True, exist_ok=True)
    received = Path(tempfile.mkdtemp(prefix=".receiving-", dir=web.uploads))
    staged: Path | None = None
    try:
        try:
            form = await stream_form(
                request.headers.get("content-type", ""), request.stream(), received, limits
            )
        except MultipartParseError as exc:
            raise InputError(f"upload: malformed multipart body ({exc})") from exc
        adapter = form.fields.get("adapter") or None
        text_only = form.fields.get("text_only", "").lower() in ("1", "true", "on", "yes")
        if not form.files:
            raise InputError("no files uploaded: send a case folder as a .zip or as its files")
        if len(form.files) == 1 and form.files[0].name.lower().endswith(".zip"):
            where = form.files[0].name
            staged = Path(tempfile.mkdtemp(prefix=".staging-", dir=web.uploads))
            archive = received.joinpath(*form.files[0].parts)
            await run_in_threadpool(unpack_zip, archive, staged, limits, where=where)
        else:
            where = "upload"
            staged = received  # the parts were written where the case folder is read
        uploaded = await run_in_threadpool(
            accept_case,
            staged,
            web.uploads,
            adapter=adapter,
            text_only=text_only,
            where=where,
            limits=web.settings.limits,
        )
    except BaseException:
        if staged is not None:
            shutil.rmtree(staged, ignore_errors=True)
        raise
    finally:
        if staged is not received:
            shutil.rmtree(received, ignore_errors=True)
    jobs = web.workers.submit(
        uploaded.cases,
        uploaded.contract,
        uploaded.upload_id,
        submitted_by=writer.reviewer,
        source=uploaded.source,
        adapter=adapter,
        text_only=text_only,
    )
    return {
        "upload_id": uploaded.upload_id,
        "submitted_by": writer.reviewer,
        "jobs": [_job_links(j.as_json()) for j in jobs],
    }


def _job_links(job: dict[str, Any]) -> dict[str, Any]:
    jid = job["job_id"]
    job["links"] = {"status": f"/api/jobs/{jid}", "events": f"/api/jobs/{jid}/events"}
    if job.get("run_id"):
        job["links"]["run"] = f"/api/runs/{job['run_id']}"
        job["links"]["page"] = f"/runs/{job['run_id']}"
    return job


@router.get("/jobs", tags=["cases"])
def list_jobs(web: State) -> list[dict[str, Any]]:
    """Verification jobs of this server, newest first."""
    return [_job_links(j.as_json()) for j in web.workers.jobs()]


@router.get("/jobs/{job_id}", tags=["cases"])
def get_job(job_id: str, web: State) -> dict[str, Any]:
    """A job's status and progress (``done`` of ``total`` stage nodes); its run when done."""
    job = web.workers.job(job_id)
    if job is None:
        raise HTTPException(404, f"no job {job_id}")
    return _job_links(job.as_json())


@router.get("/jobs/{job_id}/events", tags=["cases"])
async def job_events(job_id: str, request: Request, web: State) -> EventSourceResponse:
    """Server-sent events: ``progress`` whenever the job advances, then ``done``."""
    first = web.workers.job(job_id)
    if first is None:
        raise HTTPException(404, f"no job {job_id}")
    interval = web.settings.web.poll_interval_s

    async def stream() -> AsyncIterator[dict[str, str]]:
        last: tuple[str, int] | None = None
        job: Job = first
        while True:
            state = (job.status, job.done)
            if state != last:
                last = state
                payload = json.dumps(_job_links(job.as_json()))
                yield {"event": "done" if job.finished else "progress", "data": payload}
            if job.finished or await request.is_disconnected():
                return
            await asyncio.sleep(interval)
            # the latest state from the store (the job may run on another server)
            latest: Job | None = await run_in_threadpool(web.workers.job, job_id)
            job = latest or job

    return EventSourceResponse(stream())


# ---- runs ----------------------------------------------------------------------------------


@router.get("/runs", tags=["runs"])
def list_runs(
    web: State,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    case_id: str | None = None,
) -> list[dict[str, Any]]:
    """Most recent runs first (first passes and revisions)."""
    records = web.store.list_runs(limit if case_id is None else 1000)
    gone = web.store.interrupted(records)
    rows = [
        views.run_summary(r, interrupted=r.run_id in gone)
        for r in records
        if case_id is None or r.case_id == case_id
    ]
    return rows[:limit]


@router.get("/runs/{run}", tags=["runs"], response_model=None)
def get_result(run: str, web: State) -> Response:
    """The JSON result contract (``semv verify --json``) of a committed run, with its
    ``report_paths`` relative to the server's data directory (``reports/<run>/report.md``):
    an API client learns where the reports are, never where the server keeps its files. Every
    other field is the stored document's."""
    result = json.loads(views.result_text(web.store, run))
    paths = result.get("report_paths")
    if isinstance(paths, dict):
        result["report_paths"] = {
            kind: _relative(str(path), (web.data_dir, web.reports_dir.parent))
            for kind, path in paths.items()
        }
    return Response(json.dumps(result, ensure_ascii=False), media_type="application/json")


def _relative(path: str, roots: tuple[Path, ...]) -> str:
    """``path`` relative to the first of ``roots`` it lies in (the data directory, else the
    folder of the reports directory), else its file name."""
    target = Path(path).resolve()
    for root in roots:
        if target.is_relative_to(root.resolve()):
            return target.relative_to(root.resolve()).as_posix()
    return target.name


@router.get("/runs/{run}/summary", tags=["runs"])
def get_summary(run: str, web: State) -> dict[str, Any]:
    """Status, label and confidence of any run (also running or failed ones)."""
    record = web.store.get_run(run)
    return views.run_summary(record, interrupted=bool(web.store.interrupted([record])))


@router.get("/runs/{run}/report", tags=["runs"], response_model=None)
def get_report(
    run: str,
    web: State,
    format: Annotated[str, Query(pattern="^(html|markdown|md|json)$")] = "html",
) -> Response:
    """The report (MV2026 layout) as HTML, Markdown or JSON."""
    text = views.report_text(web.store, run, format)
    if format == "html":
        return HTMLResponse(text, headers={"Content-Security-Policy": _REPORT_CSP})
    if format == "json":
        return Response(text, media_type="application/json")
    return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")


_REPORT_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'"


@router.get("/runs/{run}/claimreview", tags=["runs"])
def get_claim_review(run: str, web: State) -> Response:
    """The run's verdict as schema.org ``ClaimReview`` JSON-LD (for fact-check publishing and
    search engines). Its ``url`` is the report under ``export.report_base_url`` when that is
    configured, else this server's HTML report under ``web.public_url`` (``semv serve`` sets
    it to its own loopback address when unset); never a name from the request's ``Host``
    header. Without either the document has no ``url``."""
    from semv.export import claim_review_for_run

    views.result_text(web.store, run)  # 404 for an unknown run, 409 for one not committed
    record = web.store.get_run(run)
    cfg = web.settings.export
    if cfg.report_base_url:
        doc = claim_review_for_run(web.store, record.run_id, cfg)
    else:
        base = web.settings.web.public_url
        url = f"{base.rstrip('/')}/api/runs/{record.run_id}/report" if base else ""
        doc = claim_review_for_run(web.store, record.run_id, cfg, url=url)
        if not base:
            doc.pop("url", None)
    return Response(
        json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True),
        media_type="application/ld+json",
    )


@router.get("/runs/{run}/pdf", tags=["runs"], response_model=None)
async def get_pdf(run: str, web: State) -> Response:
    """The run's report as PDF (MV2026 layout with argument graphs, forensic maps and
    keyframes), printed by headless Chromium once per run and then served from the cache;
    503 when no PDF engine is installed, or (with ``Retry-After``) while all
    ``web.pdf_concurrency`` print slots are busy."""
    record = await run_in_threadpool(web.store.get_run, run)
    views.result_text(web.store, record.run_id)
    pdf = await run_in_threadpool(web.printer.pdf, web.store, record.run_id, web.settings.export)
    return Response(
        pdf,
        media_type="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{record.run_id}.pdf"'},
    )


@router.get("/runs/{run}/trace", tags=["runs"])
def get_trace(run: str, web: State) -> dict[str, Any]:
    """The hash-chained trace and whether it verifies."""
    return views.trace_payload(web.store, run)


@router.get("/runs/{run}/nodes", tags=["runs"])
def get_nodes(run: str, web: State) -> dict[str, Any]:
    """The stage-graph nodes of the run (fingerprints, output hashes, reuse)."""
    return views.node_graph(web.store, run)


@router.get("/runs/{run}/graph", tags=["runs"])
def get_graph(run: str, web: State) -> dict[str, Any]:
    """Each subclaim's argument graph: claim, arguments, edge weights, base/propagated scores."""
    record = web.store.get_run(run)
    return {
        "run_id": record.run_id,
        "subclaims": [g.as_json() for g in views.argument_graphs(web.store, record.run_id)],
    }


@router.get("/runs/{run}/history", tags=["runs"])
def get_history(run: str, web: State) -> dict[str, Any]:
    """The run's revision history: ancestors (first pass first), revisions, siblings."""
    record = web.store.get_run(run)
    data = views.history_json(views.history(web.store, record.run_id))
    data["run"] = views.run_summary(record)
    data["revision"] = views.revision_outcome(web.store, record.run_id)
    return data


@router.get("/runs/{run}/maps/{name}", include_in_schema=False, response_model=None)
def get_report_map(run: str, name: str, web: State) -> FileResponse:
    """``maps/<sha256>.png`` relative to ``/api/runs/{run}/report`` (the report's own links)."""
    return get_run_file(run, f"maps/{name}", web)


@router.get("/runs/{run}/files/{name:path}", tags=["runs"], response_model=None)
def get_run_file(run: str, name: str, web: State) -> FileResponse:
    """A file written next to the run's report (forensic maps ``maps/<sha256>.png``,
    keyframes); only names inside the run's report folder are served."""
    record = web.store.get_run(run)
    rel = safe_member_path(name, where="file")
    base = (web.reports_dir / record.run_id).resolve()
    path = base.joinpath(*rel.parts).resolve()
    if not path.is_relative_to(base) or not path.is_file():
        raise HTTPException(404, f"run {record.run_id} has no file {name}")
    return FileResponse(path, media_type=mimetypes.guess_type(path.name)[0])


_MEDIA_TYPES = ("image/", "video/", "audio/")


@router.get("/runs/{run}/media/{asset}", tags=["runs"], response_model=None)
def get_media(run: str, asset: str, web: State) -> FileResponse:
    """A media file of the run's case (for thumbnails), when it is still where it was read
    and its SHA-256 still matches."""
    import hashlib

    record = web.store.get_run(run)
    bundle = Bundle.model_validate_json(web.store.node_value_json(record.run_id, "bundle"))
    found = next((a for a in bundle.case.media if a.id == asset), None)
    if found is None:
        raise HTTPException(404, f"run {record.run_id} has no media {asset}")
    path = Path(found.path)
    kind = mimetypes.guess_type(path.name)[0] or ""
    if not path.is_file() or not kind.startswith(_MEDIA_TYPES):
        raise HTTPException(404, f"media {asset} is no longer available")
    if found.sha256 and hashlib.sha256(path.read_bytes()).hexdigest() != found.sha256:
        raise HTTPException(410, f"media {asset} changed since the run read it")
    return FileResponse(path, media_type=kind)


# ---- contestation --------------------------------------------------------------------------


@router.get("/schema/review-batch", tags=["contest"])
def review_batch_schema() -> dict[str, Any]:
    """The review-batch JSON Schema (``semv contest --schema``)."""
    return batch_schema()


def _complete_evidence(raw: Any, reviewer: str, web: WebState) -> Any:
    """Reviewer evidence in ``add`` actions may omit id, source, type, modality and
    reliability (the defaults of ``semv contest --add-evidence``)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("actions"), list):
        return raw
    for i, action in enumerate(raw["actions"]):
        if isinstance(action, dict) and isinstance(action.get("evidence_added"), list):
            action["evidence_added"] = [
                evidence_from_data(
                    item, reviewer=reviewer, settings=web.settings, where=f"actions[{i}]"
                ).model_dump(mode="json")
                if isinstance(item, dict)
                else item
                for item in action["evidence_added"]
            ]
    return raw


def _stamp(batch: ReviewBatch, reviewer: str, fixed: bool) -> ReviewBatch:
    """Record who reviewed and when on every action (a token's reviewer id always wins)."""
    now = utc_now()
    actions = []
    for h in batch.actions:
        who = reviewer if fixed or h.meta.reviewer == "reviewer" else h.meta.reviewer
        actions.append(
            h.model_copy(
                update={"meta": h.meta.model_copy(update={"reviewer": who, "at": h.meta.at or now})}
            )
        )
    return batch.model_copy(update={"actions": tuple(actions)})


def revision_json(revision: Revision) -> dict[str, Any]:
    payload = revision.model_dump(mode="json")
    payload["locality"]["avoided"] = revision.locality.avoided
    payload["links"] = {
        "run": f"/api/runs/{revision.run_id}",
        "page": f"/runs/{revision.run_id}",
        "parent": f"/runs/{revision.parent_run_id}",
    }
    return payload


@router.post("/runs/{run}/contest", status_code=201, tags=["contest"])
async def contest_run(run: str, request: Request, web: State) -> dict[str, Any]:
    """Apply a review batch (the review-batch schema) to a committed run: a new revision run
    with its routing plan, scope, locality and before/after decision diff. ``stale_base``
    says that the run was also revised by someone else (nothing is merged or overwritten)."""
    web.auth.writer(request)  # before reading the body: a refused write parses nothing
    try:
        raw = loads_json(await request.body(), "review batch")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"review batch: not valid JSON: {exc}") from exc
    writer = web.auth.writer(request, _claimed_reviewer(raw))
    try:
        batch = ReviewBatch.model_validate(_complete_evidence(raw, writer.reviewer, web))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise HTTPException(422, f"review batch: {problems}") from exc
    chosen = request.query_params.get("policy")
    try:
        policy = Policy(chosen) if chosen is not None else None
    except ValueError as exc:
        raise HTTPException(422, f"policy must be scoped, causal or global, not {chosen}") from exc
    revision = await web.workers.contest(run, _stamp(batch, writer.reviewer, writer.fixed), policy)
    return revision_json(revision)


def _claimed_reviewer(raw: Any) -> str | None:
    if isinstance(raw, dict) and isinstance(raw.get("actions"), list):
        for action in raw["actions"]:
            meta = action.get("meta") if isinstance(action, dict) else None
            if isinstance(meta, dict) and isinstance(meta.get("reviewer"), str):
                return str(meta["reviewer"])
    return None


# ---- memory (read-only) --------------------------------------------------------------------


def _banks(web: WebState) -> list[str]:
    from semv.store import memory_state

    with web.store.engine.connect() as conn:
        return [r.bank for r in conn.execute(select(memory_state.c.bank).order_by("bank"))]


@router.get("/memory", tags=["memory"])
def memory_banks(web: State) -> list[dict[str, Any]]:
    """The memory banks in this store, with their freeze state and long-term hash."""
    from semv.memory import MemoryStore

    out = []
    for bank in _banks(web):
        ms = MemoryStore(web.store, bank)
        state = ms.state()
        out.append(
            {
                "bank": bank,
                "frozen": state.frozen,
                "learn_count": state.learn_count,
                "long_term_hash": ms.long_term_hash(),
            }
        )
    return out


@router.get("/memory/{bank}", tags=["memory"])
def memory_bank(
    bank: str,
    web: State,
    all_records: Annotated[bool, Query(alias="all")] = False,
    trace: Annotated[int, Query(ge=0, le=10_000)] = 0,
) -> dict[str, Any]:
    """A bank's records (active by default, ``?all=true`` for every status) and optionally
    its last ``trace`` memory-trace events (``semv memory show --json``)."""
    from semv.memory import MemoryStore, Status

    if bank not in _banks(web):
        raise HTTPException(404, f"no memory bank {bank}")
    ms = MemoryStore(web.store, bank)
    records = ms.records() if all_records else ms.records(Status.ACTIVE)
    return {
        "bank": bank,
        "frozen": ms.state().frozen,
        "records": [r.model_dump(mode="json") for r in records],
        "trace": ms.events()[-trace:] if trace else [],
    }


@router.get("/runs/{run}/artifacts/{asset}/{index}", tags=["runs"], response_model=None)
def get_artifact(run: str, asset: str, index: int, web: State) -> FileResponse:
    """The ``index``-th derived file (keyframe PNG) the run's report lists for ``asset``;
    served only from the content-addressed artifact store."""
    from semv.perception.artifacts import ArtifactStore
    from semv.pipeline import artifacts_root

    view, _ = views.report_view(web.store, run)
    media = next((m for m in view.case_summary.media if m.id == asset), None)
    if media is None or not 0 <= index < len(media.artifacts):
        raise HTTPException(404, f"no artifact {index} of {asset}")
    root = artifacts_root(web.store, web.reports_dir).resolve()
    recorded = Path(media.artifacts[index].path).resolve()
    # written by this machine, or fetched by content hash from the shared artifact location
    found = recorded if recorded.is_relative_to(root) else recorded.name
    path = ArtifactStore(root).local(found)
    if path is None or not path.resolve().is_relative_to(root):
        raise HTTPException(404, f"artifact {index} of {asset} is not available")
    return FileResponse(path, media_type=mimetypes.guess_type(path.name)[0])
