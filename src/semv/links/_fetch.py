"""Fetching a link's page and images: through the guarded ``HttpClient`` (SSRF guard on every
hop, size and time limits, retries) and recorded in the dated ``ReplayCache``, or read from a
saved page on disk (``file://``).

Every answer is stored as it arrived — its bytes (base64), content type, final URL and the time
it was fetched — under the cache namespaces ``link-page`` and ``link-image``, so ``--replay``
rebuilds the same case, with the same SHA-256 digests, without a request. A ``file://`` link is
read from disk under the same size limit; an image a saved page names by a relative path must
lie in the page's folder or below it (a saved page cannot pull other files of the machine into a
case).
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

from semv.errors import InputError
from semv.retrieval import (
    CacheEntry,
    FetchRefused,
    HttpClient,
    HttpLimits,
    ReplayCache,
    RetrievalError,
)
from semv.store import utc_now

__all__ = ["Fetched", "LinkFetcher"]

PAGE = "link-page"
IMAGE = "link-image"


@dataclass(frozen=True)
class Fetched:
    """One fetched resource: its bytes and where and when they came from."""

    url: str
    """The URL asked for."""
    final_url: str
    """The URL after redirects (the file's URI for ``file://``)."""
    content_type: str
    data: bytes
    fetched_at: str
    """UTC time of the fetch (ISO 8601); on ``--replay``, the time it was recorded."""

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


class LinkFetcher:
    """Live (requests go out and are recorded) or replay (answers come from the cache)."""

    def __init__(
        self,
        cache: ReplayCache,
        *,
        page_limits: HttpLimits,
        image_limits: HttpLimits,
        replay: bool,
        transport: Any = None,
    ) -> None:
        self.cache = cache
        self.replay = replay
        self.page_limits = page_limits
        self.image_limits = image_limits
        self._page_http = None if replay else HttpClient(page_limits, transport=transport)
        self._image_http = None if replay else HttpClient(image_limits, transport=transport)
        self._file_root: Path | None = None

    def close(self) -> None:
        for client in (self._page_http, self._image_http):
            if client is not None:
                client.close()
        self.cache.close()

    def page(self, url: str) -> Fetched:
        """The page at ``url``; ``InputError`` naming the URL when it cannot be had."""
        if url.lower().startswith("file:"):
            path = _file_path(url)
            self._file_root = path.parent.resolve()
            return _read_file(url, path, self.page_limits.max_bytes, "page")
        return self._get(PAGE, url, self._page_http)

    def image(self, url: str) -> Fetched:
        """An image the page names; ``RetrievalError`` when it cannot be had (the caller skips
        it and says why)."""
        if url.lower().startswith("file:"):
            path = _file_path(url)
            root = self._file_root
            if root is None or not path.resolve().is_relative_to(root):
                raise FetchRefused(f"{url}: a file outside the saved page's folder is not read")
            try:
                return _read_file(url, path, self.image_limits.max_bytes, "image")
            except InputError as exc:
                raise RetrievalError(str(exc)) from exc
        return self._get(IMAGE, url, self._image_http)

    def _get(self, namespace: str, url: str, http: HttpClient | None) -> Fetched:
        params = {"url": url}
        if http is None:
            entry = self.cache.get(namespace, url, params)
            if entry is None:
                raise RetrievalError(
                    f"{url}: no recorded copy in the dated cache (--replay sends no request; "
                    "fetch it once without --replay)"
                )
            return _from_entry(url, entry)
        response = http.request("GET", url)
        record = {
            "content_type": response.content_type,
            "data": base64.b64encode(response.content).decode("ascii"),
        }
        entry = self.cache.put(
            namespace,
            url,
            params,
            status=response.status,
            final_url=response.url,
            body=json.dumps(record, sort_keys=True),
        )
        return Fetched(
            url, response.url, response.content_type, response.content, entry.retrieved_at
        )


def _from_entry(url: str, entry: CacheEntry) -> Fetched:
    try:
        record = json.loads(entry.body)
        data = base64.b64decode(record["data"], validate=True)
        content_type = str(record.get("content_type") or "")
    except (ValueError, KeyError, TypeError) as exc:
        raise RetrievalError(f"{url}: the cached copy is unreadable ({exc})") from exc
    return Fetched(url, entry.final_url or url, content_type, data, entry.retrieved_at)


def _file_path(url: str) -> Path:
    parts = urlsplit(url)
    if parts.netloc not in ("", "localhost"):
        raise InputError(f"{url}: a file: URL names a file on this machine (file:///path)")
    return Path(url2pathname(unquote(parts.path)))


def _read_file(url: str, path: Path, max_bytes: int, what: str) -> Fetched:
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise InputError(f"{path}: not a file")
        if size > max_bytes:
            raise InputError(
                f"{path}: the saved {what} has {size} bytes, over the {max_bytes}-byte limit"
            )
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read the saved {what}: {exc.strerror or exc}") from exc
    content_type = "text/html" if path.suffix.lower() in (".html", ".htm", ".xhtml") else ""
    return Fetched(url, path.resolve().as_uri(), content_type, data, utc_now())
