"""Web search adapters (SearXNG JSON, Serper, Brave Search, GDELT DOC 2.0) and the page
fetcher, all through the guarded ``HttpClient`` and the dated ``ReplayCache``.

API keys come from the environment (``SERPER_API_KEY``, ``BRAVE_API_KEY``); endpoints
default to the public services and can be overridden (``SEARXNG_URL`` names your SearXNG
instance; tests point every endpoint at a recorded-response server on 127.0.0.1). Keys are
sent as headers and never stored in the cache.

In ``live`` mode every request goes out and its response is stored with its retrieval time
before it is parsed (so a malformed response replays as the same error). In ``replay`` mode
nothing goes out: the newest cached response for (source, query, params) is used, and a
missing one is a ``RetrievalError`` (a retrieval gap, never an invented result).
"""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass
from typing import Any

from semv.config import environment, environment_variable
from semv.errors import ConfigError
from semv.model import Evidence, Modality, ProducerKind, Provenance, RetrievedDocument, SourceType
from semv.nlp.dates import iso_date
from semv.retrieval._cache import CacheEntry, ReplayCache, cache_key
from semv.retrieval._documents import extract_html
from semv.retrieval._http import HttpClient, RetrievalError
from semv.retrieval._priors import SourcePriors
from semv.retrieval._source import CONTENT_CHARS, evidence_id
from semv.retrieval._urls import domain_of

__all__ = [
    "API_NAMES",
    "BraveApi",
    "GdeltApi",
    "PageFetcher",
    "SearxngApi",
    "SerperApi",
    "WebApi",
    "WebHit",
    "WebSearchSource",
    "make_api",
]


@dataclass(frozen=True)
class WebHit:
    url: str
    title: str
    snippet: str
    published: str | None


@dataclass(frozen=True)
class ApiRequest:
    method: str
    url: str
    params: dict[str, Any] | None
    json_body: Any
    headers: dict[str, str]
    cache_params: dict[str, Any]
    files: dict[str, tuple[str, bytes, str]] | None = None
    """A multipart upload (an image sent to a reverse-image engine); never cached."""


def _load(body: str, where: str) -> Any:
    try:
        return json.loads(body)
    except json.JSONDecodeError as exc:
        raise RetrievalError(f"{where}: malformed JSON response: {exc.msg}") from exc


def _items(data: Any, path: tuple[str, ...], where: str) -> list[dict[str, Any]]:
    node = data
    for step in path:
        if not isinstance(node, dict):
            raise RetrievalError(f"{where}: unexpected response shape (no '{step}')")
        node = node.get(step, [])
    if not isinstance(node, list):
        raise RetrievalError(f"{where}: unexpected response shape ({'.'.join(path)})")
    return [n for n in node if isinstance(n, dict)]


class WebApi:
    name = "web"
    endpoint = ""

    def __init__(self, endpoint: str | None = None, key: str | None = None) -> None:
        self.endpoint = (endpoint or self.endpoint).rstrip("/")
        self.key = key

    def request(self, query: str, *, k: int, before: str | None) -> ApiRequest:
        raise NotImplementedError

    def parse(self, body: str) -> list[WebHit]:
        raise NotImplementedError


class SearxngApi(WebApi):
    """SearXNG ``/search?format=json`` (the instance must enable the JSON format)."""

    name = "searxng"

    def __init__(self, endpoint: str | None = None, key: str | None = None) -> None:
        base = endpoint or environment().searxng_url
        if not base:
            raise ConfigError("searxng: set SEARXNG_URL to your SearXNG instance")
        super().__init__(base, key)

    def request(self, query: str, *, k: int, before: str | None) -> ApiRequest:
        params = {"q": query, "format": "json", "pageno": 1}
        return ApiRequest(
            "GET",
            f"{self.endpoint}/search",
            params,
            None,
            {},
            {"endpoint": self.endpoint, **params, "k": k, "before": before},
        )

    def parse(self, body: str) -> list[WebHit]:
        out = []
        for r in _items(_load(body, self.name), ("results",), self.name):
            if r.get("url"):
                out.append(
                    WebHit(
                        str(r["url"]),
                        str(r.get("title") or ""),
                        str(r.get("content") or ""),
                        iso_date(r.get("publishedDate")),
                    )
                )
        return out


class SerperApi(WebApi):
    """Serper (Google results): POST /search with ``X-API-KEY``."""

    name = "serper"
    endpoint = "https://google.serper.dev"

    def __init__(self, endpoint: str | None = None, key: str | None = None) -> None:
        key = key or environment_variable("SERPER_API_KEY")
        if not key:
            raise ConfigError(
                "serper: set SERPER_API_KEY (or answer from the dated cache with --replay)"
            )
        super().__init__(endpoint, key)

    def request(self, query: str, *, k: int, before: str | None) -> ApiRequest:
        body: dict[str, Any] = {"q": query, "num": k}
        if before:
            y, m, d = [*before.split("-"), "12", "28"][:3]
            body["tbs"] = f"cdr:1,cd_max:{m}/{d}/{y}"
        return ApiRequest(
            "POST",
            f"{self.endpoint}/search",
            None,
            body,
            {"X-API-KEY": self.key or ""},
            {"endpoint": self.endpoint, **body},
        )

    def parse(self, body: str) -> list[WebHit]:
        return [
            WebHit(
                str(r["link"]),
                str(r.get("title") or ""),
                str(r.get("snippet") or ""),
                iso_date(r.get("date")),
            )
            for r in _items(_load(body, self.name), ("organic",), self.name)
            if r.get("link")
        ]


class BraveApi(WebApi):
    """Brave Search API: GET /res/v1/web/search with ``X-Subscription-Token``."""

    name = "brave"
    endpoint = "https://api.search.brave.com"

    def __init__(self, endpoint: str | None = None, key: str | None = None) -> None:
        key = key or environment_variable("BRAVE_API_KEY")
        if not key:
            raise ConfigError(
                "brave: set BRAVE_API_KEY (or answer from the dated cache with --replay)"
            )
        super().__init__(endpoint, key)

    def request(self, query: str, *, k: int, before: str | None) -> ApiRequest:
        params: dict[str, Any] = {"q": query, "count": min(k, 20)}
        if before:
            params["freshness"] = f"1990-01-01to{before[:10]}"
        return ApiRequest(
            "GET",
            f"{self.endpoint}/res/v1/web/search",
            params,
            None,
            {"X-Subscription-Token": self.key or "", "Accept": "application/json"},
            {"endpoint": self.endpoint, **params},
        )

    def parse(self, body: str) -> list[WebHit]:
        return [
            WebHit(
                str(r["url"]),
                str(r.get("title") or ""),
                str(r.get("description") or ""),
                iso_date(r.get("page_age")),
            )
            for r in _items(_load(body, self.name), ("web", "results"), self.name)
            if r.get("url")
        ]


class GdeltApi(WebApi):
    """GDELT DOC 2.0 article list (no key): titles, URLs and first-seen dates."""

    name = "gdelt"
    endpoint = "https://api.gdeltproject.org"

    def request(self, query: str, *, k: int, before: str | None) -> ApiRequest:
        params: dict[str, Any] = {
            "query": query,
            "mode": "ArtList",
            "format": "json",
            "maxrecords": min(k, 250),
            "sort": "DateDesc",
        }
        if before:
            params["enddatetime"] = before[:10].replace("-", "").ljust(8, "1") + "235959"
        return ApiRequest(
            "GET",
            f"{self.endpoint}/api/v2/doc/doc",
            params,
            None,
            {},
            {"endpoint": self.endpoint, **params},
        )

    def parse(self, body: str) -> list[WebHit]:
        if not body.strip():
            return []  # GDELT answers an empty body when nothing matches
        return [
            WebHit(
                str(r["url"]),
                str(r.get("title") or ""),
                str(r.get("title") or ""),
                iso_date(r.get("seendate")),
            )
            for r in _items(_load(body, self.name), ("articles",), self.name)
            if r.get("url")
        ]


API_NAMES: dict[str, type[WebApi]] = {
    "searxng": SearxngApi,
    "serper": SerperApi,
    "brave": BraveApi,
    "gdelt": GdeltApi,
}


REPLAY_KEY = "(replay: no request is sent)"
"""The key of a web API opened for replay: answers come from the dated cache (whose keys never
hold the API key), so ``--replay`` needs no API key."""


def make_api(name: str, endpoint: str | None = None, *, replay: bool = False) -> WebApi:
    try:
        cls = API_NAMES[name]
    except KeyError:
        known = ", ".join(sorted(API_NAMES))
        raise ConfigError(f"unknown web source {name!r} (known: {known})") from None
    return cls(endpoint, REPLAY_KEY) if replay else cls(endpoint)


class _Cached:
    """Live-or-replay access to one cache namespace."""

    def __init__(
        self, http: HttpClient | None, cache: ReplayCache, mode: str, as_of: str | None = None
    ) -> None:
        if mode not in ("live", "replay"):
            raise ConfigError(f"retrieval mode must be live or replay, not {mode!r}")
        if mode == "live" and http is None:
            raise ConfigError("live retrieval needs an HTTP client")
        self.http = http
        self.cache = cache
        self.mode = mode
        self.as_of = as_of
        self._session: dict[str, CacheEntry] = {}
        self._lock = threading.Lock()

    def get(self, source: str, query: str, req: ApiRequest) -> CacheEntry:
        """Live: the first request for a key in this session goes out and is recorded; a
        repeat of it (another subclaim asking the same query) gets the same dated answer, so
        a session is one consistent snapshot and its replay is exact."""
        if self.mode == "replay":
            entry = self.cache.get(source, query, req.cache_params, as_of=self.as_of)
            if entry is None:
                raise RetrievalError(f"{source}: no cached response for {query!r} (replay)")
            return entry
        if self.http is None:
            raise RetrievalError(f"{source}: no HTTP client for a live request")
        key = cache_key(source, query, req.cache_params)
        with self._lock:
            seen = self._session.get(key)
            if seen is not None:
                return seen
            response = self.http.request(
                req.method,
                req.url,
                params=req.params,
                json_body=req.json_body,
                headers=req.headers,
                files=req.files,
            )
            entry = self.cache.put(
                source,
                query,
                req.cache_params,
                status=response.status,
                final_url=response.url,
                body=response.body,
            )
            self._session[key] = entry
            return entry


class PageFetcher:
    """Fetches a page (guarded, cached) and extracts its main text with trafilatura."""

    name = "page"

    def __init__(
        self, http: HttpClient | None, cache: ReplayCache, mode: str, as_of: str | None = None
    ) -> None:
        self._io = _Cached(http, cache, mode, as_of)

    def fetch(self, url: str) -> tuple[CacheEntry, str, str | None, str | None]:
        """(cache entry, extracted text, title, date). The entry's ``final_url`` is the URL
        after redirects."""
        req = ApiRequest("GET", url, None, None, {}, {"url": url})
        entry = self._io.get(self.name, url, req)
        meta = extract_html(entry.body, entry.final_url or url)
        return entry, str(meta.get("text") or ""), meta.get("title"), iso_date(meta.get("date"))


class WebSearchSource:
    """One web search API as an ``EvidenceSource``."""

    def __init__(
        self,
        api: WebApi,
        *,
        cache: ReplayCache,
        priors: SourcePriors,
        mode: str,
        http: HttpClient | None = None,
        fetch_pages: int = 0,
        as_of: str | None = None,
    ) -> None:
        self.as_of = as_of
        self.api = api
        self.name = api.name
        self.mode = mode
        self.priors = priors
        self._io = _Cached(http, cache, mode, as_of)
        self.fetcher = PageFetcher(http, cache, mode, as_of) if fetch_pages else None
        self.fetch_pages = fetch_pages
        self.cache = cache
        self._token = uuid.uuid4().hex

    def identity(self) -> str:
        """Live answers change over time: a live session (this object) is one snapshot — a
        repeated query gets the session's first answer — and carries its own random token, so
        a node computed in another session is never reused. A replay depends only on the plan
        and the cache, so the digest of the cache entries it may read is used instead."""
        if self.mode == "live":
            state = f"live:{self._token}"
        else:
            names: tuple[str, ...] = (self.name, PageFetcher.name) if self.fetcher else (self.name,)
            state = f"replay:{self.cache.digest(names, as_of=self.as_of)[:16]}"
        return (
            f"{self.name}:{self.api.endpoint}:{state}:pages={self.fetch_pages}"
            f":priors={self.priors.version}"
        )

    def search(self, query: str, *, before: str | None = None, k: int) -> list[Evidence]:
        req = self.api.request(query, k=k, before=before)
        entry = self._io.get(self.name, query, req)
        hits = self.api.parse(entry.body)[:k]
        out: list[Evidence] = []
        for n, hit in enumerate(hits):
            content = (
                f"{hit.title}. {hit.snippet}".strip(" .") if hit.snippet != hit.title else hit.title
            )
            url, published, title = hit.url, hit.published, hit.title
            retrieved_at = entry.retrieved_at
            method = f"{self.name} search"
            if self.fetcher is not None and n < self.fetch_pages:
                try:
                    page, text, page_title, page_date = self.fetcher.fetch(hit.url)
                except RetrievalError:
                    page = None
                if page is not None and text:
                    content = text
                    url = page.final_url or hit.url
                    title = page_title or title
                    published = published or page_date
                    retrieved_at = page.retrieved_at
                    method = f"{self.name} search + page fetch"
            domain = domain_of(url)
            prior = self.priors.lookup(domain)
            out.append(
                Evidence(
                    id=evidence_id("web", url, content),
                    source=domain or self.name,
                    source_type=SourceType(prior.source_type),
                    modality=Modality.TEXT,
                    content=content[:CONTENT_CHARS] or url,
                    observation=RetrievedDocument(prior=prior.category, search_rank=n),
                    reliability=prior.reliability,
                    provenance=Provenance(
                        producer=ProducerKind.RETRIEVAL,
                        agent=f"web/{self.name}",
                        method=method,
                        url=url,
                        retrieved_at=retrieved_at,
                    ),
                    url=url,
                    title=title or None,
                    published=published,
                )
            )
        return out
