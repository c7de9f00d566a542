"""The reviewer pages: the case list, a run's case page (report sections, argument graphs,
evidence cards, contest controls, revision diff and history) and the login form.

Pages are server-rendered with Jinja2 (autoescaping on: every case and evidence text is
escaped); ``static/semv.js`` adds the review-batch panel, which posts to the REST API.
"""

from __future__ import annotations

import json
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from semv.errors import RunNotFound, StoreError
from semv.glossary import stage_word
from semv.model import Provenance, Result, Stage
from semv.report import (
    DimensionSection,
    EvidenceRef,
    NoteView,
    ReportView,
    provenance_line,
    safe_link,
    summary_html,
)
from semv.store import RunRecord
from semv.web import _views as views
from semv.web._auth import CSRF_COOKIE, SESSION_COOKIE, check_csrf, csrf_token
from semv.web._state import WebState, web_state
from semv.web._svg import graph_svg

__all__ = ["router"]

router = APIRouter(include_in_schema=False)
State = Annotated[WebState, Depends(web_state)]

STAGE_NAMES = {stage.value: stage_word(stage.value) for stage in Stage}
"""Stage symbol → its name in words ("A" → "argumentation", "Q" → "QBAF"), from the glossary."""


def _render(request: Request, web: WebState, name: str, status: int = 200, **ctx: Any) -> Response:
    token, new = csrf_token(request)
    ctx.update(
        csrf=token,
        auth_enabled=web.auth.enabled,
        can_write=web.auth.can_write(request),
        reviewer_fixed=web.auth.session_name(request)[1],
    )
    response = web.templates.TemplateResponse(request, name, ctx, status_code=status)
    if new:
        response.set_cookie(
            CSRF_COOKIE,
            token,
            httponly=False,
            samesite="strict",
            path="/",
            secure=web.auth.is_https(request),
        )
    return response


@router.get("/", response_class=HTMLResponse)
def index(request: Request, web: State) -> Response:
    runs = web.store.list_runs(200)
    return _render(
        request,
        web,
        "index.html.j2",
        runs=runs,
        jobs=web.workers.jobs(),
        max_upload_mb=web.settings.web.max_upload_mb,
    )


def _evidence_index(view: ReportView) -> dict[str, EvidenceRef]:
    """Every evidence item the report shows, by id (first full reference wins)."""
    found: dict[str, EvidenceRef] = {}

    def add(refs: tuple[EvidenceRef, ...]) -> None:
        for ref in refs:
            if ref.found and ref.id not in found:
                found[ref.id] = ref

    for media in view.case_summary.media:
        add(media.evidence)
    add(view.source.supplied)
    for section in view.dimension_sections():
        for arg in (*section.support, *section.attack):
            add(arg.evidence)
        add(section.evidence)
    return found


def _section_evidence(
    section: DimensionSection, graph: views.ArgumentGraph | None, index: dict[str, EvidenceRef]
) -> list[EvidenceRef]:
    ids: list[str] = []
    for arg in (*section.support, *section.attack):
        ids.extend(e.id for e in arg.evidence)
    if graph is not None:
        for a in graph.arguments:
            ids.extend(a.evidence)
    ids.extend(e.id for e in section.evidence)
    out = []
    for i in dict.fromkeys(ids):
        ref = index.get(i)
        out.append(ref if ref is not None else EvidenceRef(id=i, found=False))
    return out


@router.get("/runs/{run}", response_class=HTMLResponse)
def run_page(run: str, request: Request, web: State) -> Response:
    try:
        record = web.store.get_run(run)
    except RunNotFound as exc:
        return _render(request, web, "error.html.j2", status=404, message=str(exc))
    hist = views.history(web.store, record.run_id)
    revision = views.revision_outcome(web.store, record.run_id)
    if record.result_json is None:
        return _render(
            request, web, "pending.html.j2", record=record, history=hist, revision=revision
        )
    try:
        view, contestation = views.report_view(web.store, record.run_id)
    except (ValidationError, StoreError, ValueError):
        return _plain_page(request, web, record, hist, revision)
    graphs = {g.dimension: g for g in views.argument_graphs(web.store, record.run_id)}
    index = _evidence_index(view)
    sections = []
    for section in view.dimension_sections():
        graph = graphs.get(section.dimension)
        sections.append(
            {
                "key": section.key,
                "section": section,
                "graph": graph,
                "svg": graph_svg(graph) if graph is not None else None,
                "evidence": _section_evidence(section, graph, index),
            }
        )
    return _render(
        request,
        web,
        "run.html.j2",
        record=record,
        view=view,
        sections=sections,
        contestation=contestation,
        history=hist,
        revision=revision,
        policy=web.settings.contest.policy,
        stage_names=STAGE_NAMES,
        summary=summary_html(view, headline=False),
    )


def _plain_page(
    request: Request,
    web: WebState,
    record: RunRecord,
    hist: views.History,
    revision: dict[str, Any] | None,
) -> Response:
    """A committed run whose report is not in the MV2026 layout (another procedure's): the
    page is built from its JSON result contract, with the same controls."""
    result = json.loads(views.result_text(web.store, record.run_id))
    evidence = [
        EvidenceRef(
            id=e["id"],
            found=True,
            source=e.get("source"),
            source_type=e.get("source_type"),
            url=e.get("url"),
            link=safe_link(e.get("url")),
            published=e.get("published"),
            reliability=e.get("reliability"),
            content=e.get("content"),
            provenance=provenance_line(Provenance.model_validate(e["provenance"]))
            if e.get("provenance")
            else None,
        )
        for e in result.get("evidence", [])
    ]
    notes = [
        NoteView(code=u["code"], subject=u["subject"], detail=u["detail"])
        for u in result.get("uncertainty", [])
    ]
    return _render(
        request,
        web,
        "result.html.j2",
        record=record,
        result=result,
        shown=_shown(result),
        evidence=evidence,
        notes=notes,
        history=hist,
        revision=revision,
        policy=web.settings.contest.policy,
        stage_names=STAGE_NAMES,
    )


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, web: State, next: str = "/") -> Response:
    return _render(request, web, "login.html.j2", next=_local(next), error=None)


def _local(target: str) -> str:
    """Only same-site paths as redirect targets."""
    safe = target.startswith("/") and not target.startswith("//") and "\\" not in target
    return target if safe else "/"


@router.post("/login", response_class=HTMLResponse)
def login(
    request: Request,
    web: State,
    token: Annotated[str, Form()],
    csrf_token: Annotated[str, Form()],
    next: Annotated[str, Form()] = "/",
) -> Response:
    check_csrf(request, csrf_token)
    session = web.auth.login(token, request)
    if session is None:
        return _render(
            request, web, "login.html.j2", status=401, next=_local(next), error="unknown token"
        )
    response = RedirectResponse(_local(next), status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        session,
        httponly=True,
        samesite="strict",
        path="/",
        secure=web.auth.is_https(request),
        max_age=max(1, int(web.auth.session_seconds)),
    )
    return response


@router.post("/logout")
def logout(request: Request, web: State, csrf_token: Annotated[str, Form()]) -> RedirectResponse:
    check_csrf(request, csrf_token)
    web.auth.logout(request.cookies.get(SESSION_COOKIE, ""))
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


def login_link(path: str) -> str:
    return "/login?next=" + quote(path, safe="/")


def _shown(result: dict[str, Any]) -> tuple[str, float]:
    """What the page shows beside a result's label, and its name: the calibrated probability
    of the label where the result carries one, else the uncalibrated confidence γ (Eq. 19)."""
    try:
        p = Result.model_validate(result).shown_probability
    except ValidationError:
        p = None
    if p is None:
        return "uncalibrated score", float(result.get("confidence", 0.0))
    return "calibrated probability", p
