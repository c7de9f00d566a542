"""HTTP for retrieval: SSRF guard, size and time limits, retries with backoff, redirects.

- **SSRF guard**: only http(s); the host is resolved and every address must be public (not
  private, loopback, link-local, multicast, reserved or unspecified) unless ``allow_private``.
  Each redirect hop is checked again. (A DNS answer that changes between our check and the
  connection — rebinding — is not prevented; run semv behind an egress proxy where that
  matters.)
- **Limits**: a body larger than ``max_bytes`` is refused while streaming; every request has a
  connect/read timeout and an overall deadline.
- **Retries**: semv's one retry policy (``semv.retry``): the retryable statuses and network
  errors are retried ``retries`` times with jittered exponential backoff from ``backoff_s``
  (``Retry-After`` in seconds is honoured; every wait capped at 30 s).
- The final URL after redirects is recorded in the response.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from semv.errors import SemvError
from semv.retry import RETRY_STATUS, Backoff, Retryable, retry_after_seconds

if TYPE_CHECKING:
    import httpx

__all__ = [
    "FetchRefused",
    "HttpClient",
    "HttpLimits",
    "HttpResponse",
    "PrivateAddressRefused",
    "RetrievalError",
]

_MAX_WAIT_S = 30.0
USER_AGENT = "semv-retrieval/0.1 (+https://example.org/semv)"


class RetrievalError(SemvError):
    """A source could not answer (network, HTTP status, malformed response, replay miss)."""


class FetchRefused(RetrievalError):
    """A request the guard refuses: private address, bad scheme, too large, too many hops."""


class PrivateAddressRefused(FetchRefused):
    """The host (of the URL or of a redirect hop) resolves to a non-public address."""


@dataclass(frozen=True)
class HttpLimits:
    max_bytes: int = 2_000_000
    timeout_s: float = 10.0
    retries: int = 3
    backoff_s: float = 0.5
    max_redirects: int = 5
    allow_private: bool = False


@dataclass(frozen=True)
class HttpResponse:
    status: int
    url: str
    """The final URL after redirects."""
    body: str
    content_type: str
    retry_after: float | None = None
    """Seconds from a ``Retry-After`` header (429/503), capped at 30 s."""
    content: bytes = b""
    """The body's bytes as received (``body`` is their decoded text)."""


def _blocked(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
    )


def check_url(url: str, *, allow_private: bool) -> None:
    """Raise ``FetchRefused`` unless ``url`` is http(s) to a public address (or allowed)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise FetchRefused(f"{url}: only http and https URLs are fetched")
    host = parts.hostname
    if not host:
        raise FetchRefused(f"{url}: no host")
    if allow_private:
        return
    try:
        literal = ipaddress.ip_address(host)
        addresses = [literal]
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, parts.port or 443, proto=socket.IPPROTO_TCP)
        except OSError as exc:
            raise RetrievalError(f"{url}: cannot resolve {host}: {exc}") from exc
        addresses = [ipaddress.ip_address(info[4][0]) for info in infos]
    for ip in addresses:
        if _blocked(ip):
            raise PrivateAddressRefused(
                f"{url}: refused: {host} resolves to non-public address {ip} "
                "(private, loopback or link-local; set retrieval.allow_private to allow)"
            )


class HttpClient:
    """A small synchronous client with the guard, limits and retries above."""

    def __init__(
        self,
        limits: HttpLimits,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        import httpx  # here, not at import: an offline run that opens no source never loads it

        self.limits = limits
        self._sleep = sleep
        self._client = httpx.Client(
            timeout=httpx.Timeout(limits.timeout_s),
            follow_redirects=False,
            headers={"User-Agent": USER_AGENT},
            transport=transport,
            trust_env=False,
        )

    def close(self) -> None:
        self._client.close()

    def request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        headers: Mapping[str, str] | None = None,
        files: Mapping[str, tuple[str, bytes, str]] | None = None,
    ) -> HttpResponse:
        """Send with retries; raise ``RetrievalError`` when every attempt failed. ``files``
        (field → (file name, content, media type)) sends a multipart upload."""
        policy = Backoff(self.limits.retries, self.limits.backoff_s, _MAX_WAIT_S)
        try:
            for attempt in policy.retrying(sleep=self._sleep):
                with attempt:
                    return self._attempt(method, url, params, json_body, headers, files)
        except Retryable as exc:
            raise RetrievalError(
                f"{url}: gave up after {self.limits.retries + 1} attempts ({exc.problem})"
            ) from exc
        raise RetrievalError(f"{url}: no attempt was made")  # retries < 0 cannot be configured

    def _attempt(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        json_body: Any,
        headers: Mapping[str, str] | None,
        files: Mapping[str, tuple[str, bytes, str]] | None,
    ) -> HttpResponse:
        """One request: the response, ``Retryable`` for an answer worth another attempt,
        ``RetrievalError`` for one that is not (a refused URL, a client error)."""
        import httpx

        try:
            response = self._once(method, url, params, json_body, headers, files)
        except FetchRefused:
            raise
        except (httpx.TransportError, TimeoutError) as exc:
            raise Retryable(f"{type(exc).__name__}: {exc}") from exc
        if response.status in RETRY_STATUS:
            raise Retryable(f"HTTP {response.status}", response.retry_after)
        if response.status >= 400:
            raise RetrievalError(f"{url}: HTTP {response.status}")
        return response

    def _once(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        json_body: Any,
        headers: Mapping[str, str] | None,
        files: Mapping[str, tuple[str, bytes, str]] | None = None,
    ) -> HttpResponse:
        deadline = time.monotonic() + self.limits.timeout_s * 3
        current = url
        for _hop in range(self.limits.max_redirects + 1):
            check_url(current, allow_private=self.limits.allow_private)
            request = self._client.build_request(
                method,
                current,
                params=params,
                json=json_body,
                headers=dict(headers or {}),
                files=dict(files) if files else None,
            )
            response = self._client.send(request, stream=True)
            try:
                if response.is_redirect:
                    location = response.headers.get("location")
                    if not location:
                        raise RetrievalError(f"{current}: redirect without Location")
                    current = urljoin(str(response.url), location)
                    params, json_body, method, files = None, None, "GET", None
                    continue
                declared = response.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > self.limits.max_bytes:
                    raise FetchRefused(
                        f"{current}: response of {declared} bytes exceeds the "
                        f"{self.limits.max_bytes}-byte limit"
                    )
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > self.limits.max_bytes:
                        raise FetchRefused(
                            f"{current}: response exceeds the {self.limits.max_bytes}-byte limit"
                        )
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"{current}: response took longer than the deadline")
                    chunks.append(chunk)
                content = b"".join(chunks)
                body = content.decode(response.encoding or "utf-8", errors="replace")
                return HttpResponse(
                    status=response.status_code,
                    url=str(response.url),
                    body=body,
                    content_type=response.headers.get("content-type", ""),
                    retry_after=_seconds(response.headers.get("retry-after")),
                    content=content,
                )
            finally:
                response.close()
        raise FetchRefused(f"{url}: more than {self.limits.max_redirects} redirects")


def _seconds(value: str | None) -> float | None:
    seconds = retry_after_seconds(value)
    return None if seconds is None else min(_MAX_WAIT_S, seconds)
