"""``POST /api/cases/from-url``: verify a link from the web UI ("verify a link" beside the
upload). The page becomes a case folder exactly as ``semv case from-url`` builds it
(``semv.links``: guarded fetch, dated cache, the page as provenance), is accepted as an upload
is, and is queued as one job.

The server never fetches a private, loopback or link-local address unless its configuration
allows it (``retrieval.allow_private``): a link typed into the form must not reach the
server's own network.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from semv.web._state import WebState, web_state
from semv.web._upload import Uploaded, accept_case

__all__ = ["LinkRequest", "router"]

router = APIRouter(prefix="/api")
State = Annotated[WebState, Depends(web_state)]


class LinkRequest(BaseModel):
    """A link to verify."""

    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        min_length=1,
        max_length=4096,
        description="An http(s) link to a page that shows a picture and its caption.",
    )
    text_only: bool = Field(False, description="Do not read the page's images.")


@router.post("/cases/from-url", status_code=202, tags=["cases"])
async def submit_link(request: Request, body: LinkRequest, web: State) -> dict[str, Any]:
    """Verify a link: the page's caption (or title) is the claim, its images the media, the
    page its provenance (URL, fetch time, SHA-256). 202 with one job, like an upload; 400 for
    a link that is refused (a private address, not an HTML page, too large, too slow)."""
    writer = web.auth.writer(request)
    if body.url.strip().lower().startswith("file:"):
        from semv.errors import InputError

        raise InputError("a link to verify is an http(s) URL (the server reads no local files)")
    uploaded, made = await run_in_threadpool(_build, web, body)
    jobs = web.workers.submit(
        uploaded.cases,
        uploaded.contract,
        uploaded.upload_id,
        submitted_by=writer.reviewer,
        source=uploaded.source,
        adapter="generic",
        text_only=body.text_only,
    )
    from semv.web._api import _job_links

    return {
        "upload_id": uploaded.upload_id,
        "submitted_by": writer.reviewer,
        "case": made,
        "jobs": [_job_links(j.as_json()) for j in jobs],
    }


def _build(web: WebState, body: LinkRequest) -> tuple[Uploaded, dict[str, Any]]:
    from semv.links import case_from_link, open_fetcher

    web.uploads.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=".staging-", dir=web.uploads))
    try:
        fetcher = open_fetcher(web.settings, web.store.url)
        try:
            made = case_from_link(
                body.url, staged / "case", fetcher=fetcher, cfg=web.settings.links
            )
        finally:
            fetcher.close()
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    uploaded = accept_case(
        staged, web.uploads, adapter="generic", text_only=body.text_only, where=body.url
    )
    summary = {
        "case_id": made.case_id,
        "claim": made.claim,
        "claim_from": made.claim_from,
        "media": [m.path for m in made.media],
        "skipped_images": [{"url": url, "reason": reason} for url, reason in made.skipped],
        "page": {
            "url": made.page.final_url,
            "fetched_at": made.page.fetched_at,
            "sha256": made.page.sha256,
        },
    }
    return uploaded, summary
