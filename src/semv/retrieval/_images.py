"""Web reverse-image search as evidence sources (SEMV §4.2 "reverse-image search"; the first
thing a fact-checker does with a viral photo), beside the local index of
``semv.perception.reverse_search``.

Two engines, both through the guarded ``HttpClient`` and the dated ``ReplayCache``:

- **TinEye** (``tineye``): ``POST /rest/search/`` with the image uploaded as multipart
  ``image_upload``, key in ``x-api-key`` from ``TINEYE_API_KEY``; matches sorted by crawl date,
  oldest first. Each backlink (a page that showed the image) becomes one item dated by its
  ``crawl_date``.
- **Google Lens through SerpApi** (``serpapi-lens``): ``GET /search.json?engine=google_lens``
  with ``type=exact_matches``, key from ``SERPAPI_API_KEY``. Lens takes an image by URL only:
  the case's source URL is sent when it names the image file itself (its path ends in an image
  suffix); otherwise the engine answers a retrieval gap, never a guess.

(Bing Visual Search was retired with the other Bing Search APIs in August 2025 and is not
offered.)

The cache key is (engine, image SHA-256, parameters) — never the bytes or the key — so a replay
needs neither the network nor the image. In ``live`` mode the first ``retrieval.fetch_pages``
matched pages are fetched (SSRF guard, size and time limits, cached like every web page) and
their title and text become the match's caption.

Every match is an item of kind ``reverse-search-match`` — the same typed payload the local index
produces — so the offline rules read it the same way: a first-seen date before the claimed date
attacks ``when`` (an earlier-context match), and a caption naming another place attacks
``where`` (``semv.dimensions.judge`` and the dimensions' signal rules). The ``--before``
leakage guard of ``search_plan`` drops matches first seen after the cut-off.
"""

from __future__ import annotations

import mimetypes
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol, runtime_checkable
from urllib.parse import urlsplit

from semv.config import environment_variable
from semv.errors import ConfigError
from semv.model import (
    Asset,
    Dimension,
    Evidence,
    MediaKind,
    MediaLocation,
    Modality,
    ProducerKind,
    Provenance,
    ReverseSearchMatch,
    SourceType,
)
from semv.nlp.dates import iso_date
from semv.retrieval._cache import ReplayCache
from semv.retrieval._http import HttpClient, RetrievalError
from semv.retrieval._source import evidence_id
from semv.retrieval._urls import domain_of
from semv.retrieval._web import ApiRequest, PageFetcher, _Cached, _items, _load

__all__ = [
    "IMAGE_API_NAMES",
    "REVERSE_DIMENSIONS",
    "ImageApi",
    "ImageMatch",
    "ImageQuery",
    "ImageSource",
    "ReverseImageSource",
    "SerpApiLensApi",
    "TinEyeApi",
    "image_queries",
    "make_image_api",
]

REVERSE_DIMENSIONS: Final = frozenset(
    {Dimension.WHEN, Dimension.WHERE, Dimension.WHO, Dimension.WHY}
)
"""The subclaims a reverse-image match bears on (its date on when, its caption on the rest)."""

_IMAGE_SUFFIXES: Final = (".jpg", ".jpeg", ".png", ".gif", ".webp", ".bmp", ".tif", ".tiff")
_CAPTION_CHARS: Final = 600
"""Longest caption kept from a matched page's text."""


@dataclass(frozen=True)
class ImageQuery:
    """One image sent to an engine: a loaded image asset of the case."""

    asset_id: str
    path: str
    sha256: str
    url: str | None = None
    """A public URL of the same image, for engines that only take URLs."""

    @property
    def label(self) -> str:
        """The query as recorded in the evidence graph (and the cache's query column)."""
        return f"image {self.asset_id} sha256:{self.sha256}"


def image_queries(assets: Sequence[Asset], source_url: str | None) -> tuple[ImageQuery, ...]:
    """The loaded image assets of a case as queries; the case's source URL is the image's
    public URL only when it names an image file."""
    url = source_url if source_url and _is_image_url(source_url) else None
    return tuple(
        ImageQuery(a.id, a.path, a.sha256, url)
        for a in assets
        if a.kind is MediaKind.IMAGE and a.loaded and a.sha256
    )


def _is_image_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and parts.path.lower().endswith(_IMAGE_SUFFIXES)


@dataclass(frozen=True)
class ImageMatch:
    """One page that showed the image, as an engine reports it."""

    page_url: str
    image_url: str | None
    title: str
    snippet: str
    first_seen: str | None
    """ISO date the engine first saw the image on the page (crawl or publication date)."""


class ImageApi:
    """One reverse-image engine: how to ask it and how to read its answer."""

    name = "image"
    label = "reverse-image engine"
    endpoint = ""
    key_env = ""
    method = ""

    def __init__(self, endpoint: str | None = None, key: str | None = None) -> None:
        key = key or (environment_variable(self.key_env) if self.key_env else None)
        if self.key_env and not key:
            raise ConfigError(
                f"{self.name}: set {self.key_env} (or answer from the dated cache with --replay)"
            )
        self.endpoint = (endpoint or self.endpoint).rstrip("/")
        self.key = key

    uploads = False
    """True when the engine takes the image bytes (else it needs ``ImageQuery.url``)."""

    def request(self, image: ImageQuery, data: bytes, *, k: int) -> ApiRequest:
        raise NotImplementedError

    def parse(self, body: str) -> list[ImageMatch]:
        raise NotImplementedError


class TinEyeApi(ImageApi):
    """TinEye API: ``POST /rest/search/`` with a multipart ``image_upload``."""

    name = "tineye"
    label = "TinEye"
    endpoint = "https://api.tineye.com"
    key_env = "TINEYE_API_KEY"
    method = "TinEye API image upload (matches sorted by crawl date)"
    uploads = True

    def request(self, image: ImageQuery, data: bytes, *, k: int) -> ApiRequest:
        params: dict[str, Any] = {"limit": k, "sort": "crawl_date", "order": "asc"}
        mime = mimetypes.guess_type(image.path)[0] or "application/octet-stream"
        return ApiRequest(
            "POST",
            f"{self.endpoint}/rest/search/",
            params,
            None,
            {"x-api-key": self.key or ""},
            {"endpoint": self.endpoint, "image_sha256": image.sha256, **params},
            files={"image_upload": (Path(image.path).name, data, mime)},
        )

    def parse(self, body: str) -> list[ImageMatch]:
        data = _load(body, self.name)
        out: list[ImageMatch] = []
        for match in _items(data, ("results", "matches"), self.name):
            for link in match.get("backlinks") or []:
                if isinstance(link, dict) and link.get("backlink"):
                    out.append(
                        ImageMatch(
                            page_url=str(link["backlink"]),
                            image_url=str(link.get("url") or match.get("image_url") or "") or None,
                            title="",
                            snippet="",
                            first_seen=iso_date(link.get("crawl_date")),
                        )
                    )
        return out


class SerpApiLensApi(ImageApi):
    """Google Lens through SerpApi: ``GET /search.json?engine=google_lens&type=exact_matches``."""

    name = "serpapi-lens"
    label = "Google Lens (SerpApi)"
    endpoint = "https://serpapi.com"
    key_env = "SERPAPI_API_KEY"
    method = "Google Lens exact matches through SerpApi (image by URL)"

    def request(self, image: ImageQuery, data: bytes, *, k: int) -> ApiRequest:
        if image.url is None:
            raise RetrievalError(
                f"{self.name}: Google Lens takes an image by URL and the case gives none for "
                f"{image.asset_id} (its source URL does not name an image file)"
            )
        params: dict[str, Any] = {
            "engine": "google_lens",
            "type": "exact_matches",
            "url": image.url,
        }
        return ApiRequest(
            "GET",
            f"{self.endpoint}/search.json",
            {**params, "api_key": self.key or ""},
            None,
            {"Accept": "application/json"},
            {"endpoint": self.endpoint, "image_sha256": image.sha256, "k": k, **params},
        )

    def parse(self, body: str) -> list[ImageMatch]:
        data = _load(body, self.name)
        if isinstance(data, dict) and data.get("error"):
            raise RetrievalError(f"{self.name}: {data['error']}")
        out: list[ImageMatch] = []
        for section in ("exact_matches", "visual_matches"):
            for r in _items(data, (section,), self.name):
                if r.get("link"):
                    out.append(
                        ImageMatch(
                            page_url=str(r["link"]),
                            image_url=str(r.get("image") or r.get("thumbnail") or "") or None,
                            title=str(r.get("title") or ""),
                            snippet=str(r.get("snippet") or r.get("source") or ""),
                            first_seen=iso_date(r.get("date")),
                        )
                    )
        return out


IMAGE_API_NAMES: dict[str, type[ImageApi]] = {
    TinEyeApi.name: TinEyeApi,
    SerpApiLensApi.name: SerpApiLensApi,
}


def make_image_api(name: str, endpoint: str | None = None, *, replay: bool = False) -> ImageApi:
    """The engine ``name``; opened for ``replay`` it needs no API key (no request is sent)."""
    from semv.retrieval._web import REPLAY_KEY

    try:
        cls = IMAGE_API_NAMES[name]
    except KeyError:
        known = ", ".join(sorted(IMAGE_API_NAMES))
        raise ConfigError(f"unknown reverse-image engine {name!r} (known: {known})") from None
    return cls(endpoint, REPLAY_KEY) if replay else cls(endpoint)


@runtime_checkable
class ImageSource(Protocol):
    """An evidence source that answers an image rather than a text query."""

    name: str
    mode: str

    def identity(self) -> str: ...

    def search_image(self, image: ImageQuery, *, before: str | None, k: int) -> list[Evidence]: ...


class ReverseImageSource:
    """One web reverse-image engine as an evidence source (text queries get nothing)."""

    def __init__(
        self,
        api: ImageApi,
        *,
        cache: ReplayCache,
        mode: str,
        reliability: float,
        max_upload_bytes: int,
        http: HttpClient | None = None,
        fetch_pages: int = 0,
        as_of: str | None = None,
    ) -> None:
        self.api = api
        self.name = api.name
        self.mode = mode
        self.cache = cache
        self.as_of = as_of
        self.reliability = reliability
        self.max_upload_bytes = max_upload_bytes
        self.fetch_pages = fetch_pages
        self._io = _Cached(http, cache, mode, as_of)
        self.fetcher = PageFetcher(http, cache, mode, as_of) if fetch_pages else None
        self._token = uuid.uuid4().hex

    def identity(self) -> str:
        """As ``WebSearchSource.identity``: a live session is its own snapshot; a replay is
        named by the digest of the cache entries it may read."""
        if self.mode == "live":
            state = f"live:{self._token}"
        else:
            names: tuple[str, ...] = (self.name, PageFetcher.name) if self.fetcher else (self.name,)
            state = f"replay:{self.cache.digest(names, as_of=self.as_of)[:16]}"
        return f"{self.name}:{self.api.endpoint}:{state}:pages={self.fetch_pages}"

    def search(self, query: str, *, before: str | None = None, k: int) -> list[Evidence]:
        """Reverse-image engines answer images, not text (``search_image``)."""
        return []

    def search_image(self, image: ImageQuery, *, before: str | None, k: int) -> list[Evidence]:
        data = self._upload(image) if self.mode == "live" and self.api.uploads else b""
        req = self.api.request(image, data, k=k)
        entry = self._io.get(self.name, image.label, req)
        out: list[Evidence] = []
        for n, match in enumerate(self.api.parse(entry.body)[:k]):
            caption = " ".join(p for p in (match.title, match.snippet) if p).strip()
            page_url, retrieved_at, method = match.page_url, entry.retrieved_at, self.api.method
            first_seen = match.first_seen
            if self.fetcher is not None and n < self.fetch_pages:
                try:
                    page, text, title, date = self.fetcher.fetch(match.page_url)
                except RetrievalError:
                    page = None
                if page is not None and (text or title):
                    caption = ". ".join(p for p in (title, text[:_CAPTION_CHARS]) if p)
                    page_url = page.final_url or match.page_url
                    first_seen = first_seen or date
                    retrieved_at = page.retrieved_at
                    method += " + page fetch"
            out.append(
                self._evidence(image, match, n, caption, page_url, first_seen, retrieved_at, method)
            )
        return out

    def _upload(self, image: ImageQuery) -> bytes:
        path = Path(image.path)
        try:
            size = path.stat().st_size
            if size > self.max_upload_bytes:
                raise RetrievalError(
                    f"{self.name}: {path.name} is {size} bytes, over the "
                    f"{self.max_upload_bytes}-byte upload limit (retrieval.max_upload_bytes)"
                )
            return path.read_bytes()
        except OSError as exc:
            raise RetrievalError(f"{self.name}: cannot read {path}: {exc}") from exc

    def _evidence(
        self,
        image: ImageQuery,
        match: ImageMatch,
        rank: int,
        caption: str,
        page_url: str,
        first_seen: str | None,
        retrieved_at: str | None,
        method: str,
    ) -> Evidence:
        engine = self.api.label
        text = f"Web reverse-image match ({engine}): the same image appears at {page_url}"
        if first_seen:
            text += f", first seen there on {first_seen}"
        text += "."
        if caption:
            text += f" The page: “{caption}”"
        observation = ReverseSearchMatch(
            match_method=self.name,
            engine=engine,
            search_rank=rank,
            source_url=page_url,
            first_seen=first_seen or None,
            caption=caption or None,
            image_url=match.image_url or None,
        )
        domain = domain_of(page_url)
        return Evidence(
            id=evidence_id(f"rsearch:{image.asset_id}:{self.name}", match.page_url),
            source=domain or engine,
            source_type=SourceType.PRIOR_CAPTION,
            modality=Modality.IMAGE,
            content=text,
            observation=observation,
            reliability=self.reliability,
            location=MediaLocation(asset_id=image.asset_id),
            provenance=Provenance(
                producer=ProducerKind.RETRIEVAL,
                agent=f"web-reverse-image/{self.name}",
                method=method,
                derived_from=(image.asset_id,),
                url=page_url,
                retrieved_at=retrieved_at,
            ),
            url=page_url,
            title=f"Earlier appearance found by {engine}",
            published=first_seen,
        )
