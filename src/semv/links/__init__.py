"""A case from a link (``semv case from-url URL``, ``semv verify URL``): the page fetched through
the guarded HTTP client and recorded in the dated replay cache, read for its claim, images,
date and author, and written as a generic case folder with the page as provenance.

Which URLs a report or a ClaimReview publishes as links is ``publishable_url``'s rule.

Pages behind a login or an app (most social platforms) are out of reach by design: save the
page from a browser and give its ``file://`` path, or write the case folder by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from semv.links._case import (
    SOCIAL_HINT,
    LinkCase,
    LinkMedia,
    case_from_link,
    case_id_for,
    check_link,
)
from semv.links._fetch import Fetched, LinkFetcher
from semv.links._page import PageFacts, PageImage, read_page
from semv.public_url import publishable_url

if TYPE_CHECKING:
    from semv.config import Settings

__all__ = [
    "SOCIAL_HINT",
    "Fetched",
    "LinkCase",
    "LinkFetcher",
    "LinkMedia",
    "PageFacts",
    "PageImage",
    "case_from_link",
    "case_id_for",
    "check_link",
    "open_fetcher",
    "publishable_url",
    "read_page",
]


def open_fetcher(
    settings: Settings,
    store_url: str,
    *,
    allow_private: bool = False,
    replay: bool = False,
    transport: Any = None,
) -> LinkFetcher:
    """A fetcher under ``[retrieval]``'s limits (images under ``links.max_image_bytes``),
    recording in the dated cache of the store at ``store_url``. Private, loopback and link-local
    addresses are refused unless ``allow_private`` or ``retrieval.allow_private``."""
    from semv.retrieval import HttpLimits, ReplayCache

    cfg = settings.retrieval
    page = HttpLimits(
        max_bytes=cfg.max_bytes,
        timeout_s=cfg.timeout_s,
        retries=cfg.retries,
        backoff_s=cfg.backoff_s,
        max_redirects=cfg.max_redirects,
        allow_private=allow_private or cfg.allow_private,
    )
    image = HttpLimits(
        max_bytes=settings.links.max_image_bytes,
        timeout_s=page.timeout_s,
        retries=page.retries,
        backoff_s=page.backoff_s,
        max_redirects=page.max_redirects,
        allow_private=page.allow_private,
    )
    return LinkFetcher(
        ReplayCache(store_url),
        page_limits=page,
        image_limits=image,
        replay=replay,
        transport=transport,
    )
