"""``semv serve``: the reviewer web UI and the REST API (``semv.web``)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from semv.cli._common import (
    DEFAULT_DATA_DIR,
    BackendOpt,
    ConfigFile,
    CorpusDb,
    DataDir,
    LlmModelOpt,
    LlmUrlOpt,
    StoreUrl,
    err,
    fail,
    settings_from,
)
from semv.errors import SemvError

__all__ = ["serve"]


def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="TCP port.")] = 8000,
    auth_token: Annotated[
        list[str] | None,
        typer.Option(
            "--auth-token",
            help="Reviewer token required for writes, TOKEN or NAME:TOKEN (repeatable; also "
            "the variable named by web.auth_token_env).",
        ),
    ] = None,
    data_dir: DataDir = DEFAULT_DATA_DIR,
    store_url: StoreUrl = None,
    config: ConfigFile = None,
    source: Annotated[
        list[str] | None,
        typer.Option("--source", help="Evidence source for submitted cases (as verify)."),
    ] = None,
    corpus_db: CorpusDb = None,
    backend: BackendOpt = None,
    llm_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
) -> None:
    """Serve the reviewer web UI and the REST API (OpenAPI at /openapi.json)."""
    import uvicorn

    from semv.agents.backends import with_llm_overrides
    from semv.cli._retrieval import open_sources
    from semv.store import Store
    from semv.web import create_app

    try:
        settings = with_llm_overrides(
            settings_from(config), backend=backend, url=llm_url, model=llm_model
        )
        retrieval = None
        if source:
            names = list(source)

            def retrieval(store: Store) -> Any:
                return open_sources(
                    settings,
                    store,
                    names,
                    before=None,
                    before_claim_date=False,
                    replay=False,
                    endpoint=[],
                    corpus_db=corpus_db,
                )

        if settings.web.public_url is None and _loopback(host):
            # the address this server answers on: ClaimReview urls never come from a Host header
            web = settings.web.model_copy(
                update={"public_url": f"http://{_authority(host)}:{port}"}
            )
            settings = settings.model_copy(update={"web": web})
        web_app = create_app(
            data_dir,
            settings=settings,
            tokens=auth_token or [],
            retrieval=retrieval,
            store_url=store_url,
            hosts=[host],
        )
    except SemvError as exc:
        fail(exc)
    err.print(f"semv serve: http://{_authority(host)}:{port}/ (data {data_dir})", highlight=False)
    if not _loopback(host) and not web_app.state.web.auth.enabled:
        err.print(
            f"[yellow]warning:[/] listening on {host} without reviewer tokens: anyone who can "
            "reach this address can submit cases and contest verdicts (give --auth-token, or "
            f"set {settings.web.auth_token_env}; docs/deploy.md, security)",
            highlight=False,
        )
    uvicorn.run(
        web_app,
        host=host,
        port=port,
        log_level="warning",
        forwarded_allow_ips=list(settings.web.trusted_proxies),
    )


def _loopback(host: str) -> bool:
    """Whether ``host`` is only reachable from this machine."""
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _authority(host: str) -> str:
    """``host`` as it appears in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
