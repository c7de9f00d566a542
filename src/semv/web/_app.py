"""``create_app``: the FastAPI application of ``semv serve`` (REST API + reviewer pages)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import jinja2
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from semv import __version__
from semv.config import Settings, load_settings
from semv.errors import ContestError, InputError, RunNotFound, SemvError
from semv.export import PdfError
from semv.glossary import explain, policy_meaning
from semv.report import neutralise
from semv.retrieval import Retrieval
from semv.store import SessionTable, Store
from semv.web._auth import Auth, parse_tokens, tokens_from_env
from semv.web._docs import add_api_docs
from semv.web._jobs import Workers
from semv.web._print import PdfBusy, PdfPrinter
from semv.web._public import public_message
from semv.web._state import WebState
from semv.web._upload import UploadTooLarge
from semv.web._views import NotCommitted

__all__ = ["create_app"]

HERE = Path(__file__).parent
_STATUS: tuple[tuple[type[SemvError], int], ...] = (
    (UploadTooLarge, 413),
    (PdfError, 503),
    (PdfBusy, 503),
    (RunNotFound, 404),
    (NotCommitted, 409),
    (ContestError, 409),
    (InputError, 400),
)


class _BodyLimit:
    """Refuse a write body larger than ``limit`` bytes while it streams (413), before the
    multipart parser has spooled it anywhere."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("POST", "PUT"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            refuse = JSONResponse(
                {"detail": f"request body of {int(declared)} bytes exceeds web.max_upload_mb"},
                status_code=413,
            )
            await refuse(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise UploadTooLarge(
                        f"request body exceeds web.max_upload_mb="
                        f"{self.limit / 1024 / 1024:g} MiB (refused)"
                    )
            return message

        await self.app(scope, limited, send)


LOOPBACK_NAMES: Final = ("127.0.0.1", "localhost", "::1")
"""Host names every server answers to (its own machine)."""
_WILDCARD_HOSTS: Final = ("0.0.0.0", "::", "")


def host_name(header: str) -> str:
    """The name of a ``Host`` header without its port, lower-case (``[::1]:8000`` → ``::1``)."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    name, _, port = value.rpartition(":")
    return name if name and port.isdigit() else value


class _HostCheck:
    """Refuse a request whose ``Host`` header names none of ``allowed`` (400): a page on
    another site whose name an attacker re-points at 127.0.0.1 (DNS rebinding) reaches the
    server with that site's name, never with one of these."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str]) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and "*" not in self.allowed:
            headers = dict(scope.get("headers") or [])
            raw = headers.get(b"host")
            name = host_name(raw.decode("latin-1")) if raw is not None else None
            if name is not None and name not in self.allowed:
                refuse = JSONResponse(
                    {
                        "detail": f"Host {name!r} is not served here: add the name clients "
                        "use to web.allowed_hosts (or give it to semv serve --host)"
                    },
                    status_code=400,
                )
                await refuse(scope, receive, send)
                return
        await self.app(scope, receive, send)


def allowed_hosts(settings: Settings, hosts: list[str]) -> frozenset[str]:
    """The names this server answers to: loopback, ``hosts`` (``--host``) and
    ``web.allowed_hosts``."""
    names = [*LOOPBACK_NAMES, *hosts, *settings.web.allowed_hosts]
    return frozenset(
        n.strip().lower().strip("[]") for n in names if n.strip() not in _WILDCARD_HOSTS
    )


def create_app(
    data_dir: Path,
    *,
    settings: Settings | None = None,
    tokens: list[str] | None = None,
    reports_dir: Path | None = None,
    retrieval: Callable[[Store], Retrieval] | None = None,
    store_url: str | None = None,
    hosts: list[str] | None = None,
) -> FastAPI:
    """The web application over the store in ``data_dir`` (or the database at ``store_url``,
    with uploads and reports still under ``data_dir``). ``tokens`` (``NAME:TOKEN`` or
    ``TOKEN``) turn auth on; the environment variable ``web.auth_token_env`` adds more. Jobs
    and login sessions live in the store, so they survive a restart."""
    settings = settings or load_settings()
    store = Store(data_dir, url=store_url)
    reports = reports_dir or data_dir / "reports"
    workers = Workers(store, settings, reports_dir=reports_dir, retrieval=retrieval)
    auth = Auth(
        parse_tokens([*(tokens or []), *tokens_from_env(settings.web.auth_token_env)]),
        sessions=SessionTable(store),
        session_seconds=settings.web.session_hours * 3600.0,
        login_attempts=settings.web.login_attempts,
        login_window_s=settings.web.login_window_s,
        trusted_proxies=tuple(settings.web.trusted_proxies),
    )
    # autoescape everything (the templates end in .j2, which select_autoescape would miss)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        trim_blocks=True,
        finalize=neutralise,  # bidi overrides, zero-width characters, NUL shown as [U+XXXX]
    )
    env.globals["explain"] = explain  # plain-language meanings of labels, codes and symbols
    env.globals["policy_meaning"] = policy_meaning
    templates = Jinja2Templates(env=env)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            workers.close()
            store.close()

    app = FastAPI(
        title="semv",
        version=__version__,
        description="Contestable multimedia verification: submit cases, read reports, "
        "contest verdicts (SEMV; A-QBAF MV2026 §2.6.2).",
        lifespan=lifespan,
        docs_url=None,  # FastAPI's pages load scripts from a CDN: semv.web._docs serves /docs
        redoc_url=None,
    )
    app.state.web = WebState(
        settings=settings,
        store=store,
        workers=workers,
        auth=auth,
        templates=templates,
        data_dir=data_dir,
        reports_dir=reports,
        printer=PdfPrinter(settings.web.pdf_concurrency, data_dir / "pdf-cache"),
    )

    async def semv_error(_request: Request, exc: Exception) -> JSONResponse:
        status = next((code for kind, code in _STATUS if isinstance(exc, kind)), 500)
        headers = {"Retry-After": str(PdfBusy.retry_after_s)} if isinstance(exc, PdfBusy) else None
        return JSONResponse(
            {"detail": public_message(str(exc), store.url)}, status_code=status, headers=headers
        )

    app.add_exception_handler(SemvError, semv_error)
    from semv.web._api import router as api_router
    from semv.web._links import router as link_router
    from semv.web._pages import router as page_router

    app.include_router(api_router)
    app.include_router(link_router)
    app.include_router(page_router)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    add_api_docs(app)
    limit = int(settings.web.max_upload_mb * 1024 * 1024) + 64 * 1024  # + multipart framing
    app.add_middleware(_BodyLimit, limit=limit)
    app.add_middleware(_HostCheck, allowed=allowed_hosts(settings, hosts or []))

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Any:
        response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
        )
        return response

    return app
