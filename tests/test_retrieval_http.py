"""Guarded HTTP: SSRF refusal, size and time limits, retries with backoff, redirects."""

from __future__ import annotations

import socket
from typing import Any

import httpx
import pytest

from semv.retrieval import FetchRefused, HttpClient, HttpLimits, RetrievalError, check_url
from tests.recorded_server import Reply, recorded_server


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://127.0.0.1:8080/admin",
        "http://10.1.2.3/",
        "http://192.168.0.1/",
        "http://172.16.5.4/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://0.0.0.0/",
        "http://localhost/",
    ],
)
def test_private_loopback_and_link_local_addresses_are_refused(url: str) -> None:
    with pytest.raises(FetchRefused, match="non-public address"):
        check_url(url, allow_private=False)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.org/x", "gopher://a/"])
def test_only_http_and_https_are_fetched(url: str) -> None:
    with pytest.raises(FetchRefused, match="only http and https"):
        check_url(url, allow_private=True)


def test_public_address_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(host: str, *args: Any, **kwargs: Any) -> list[Any]:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", 443))]

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    check_url("https://news.example/article", allow_private=False)


def test_client_refuses_loopback_by_default_and_sends_nothing() -> None:
    with recorded_server() as server:
        server.route("/page", Reply(200, "hello"))
        client = HttpClient(HttpLimits(retries=0))
        with pytest.raises(FetchRefused):
            client.request("GET", server.url + "/page")
        client.close()
        assert server.hits("/page") == 0
        allowed = HttpClient(HttpLimits(retries=0, allow_private=True))
        assert allowed.request("GET", server.url + "/page").body == "hello"
        allowed.close()


def test_redirect_to_a_private_address_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(host: str, *args: Any, **kwargs: Any) -> list[Any]:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", 443))]

    monkeypatch.setattr(socket, "getaddrinfo", fake)

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "http://169.254.169.254/latest/"})

    client = HttpClient(HttpLimits(retries=0), transport=httpx.MockTransport(handler))
    with pytest.raises(FetchRefused, match=r"169\.254\.169\.254"):
        client.request("GET", "https://public.example/start")


def test_final_url_after_redirects_is_recorded() -> None:
    with recorded_server() as server:
        server.route("/old", Reply(301, "", {"location": "/new"}))
        server.route("/new", Reply(200, "moved here"))
        client = HttpClient(HttpLimits(retries=0, allow_private=True))
        response = client.request("GET", server.url + "/old")
        assert response.url == server.url + "/new"
        assert response.body == "moved here"


def test_too_many_redirects_are_refused() -> None:
    with recorded_server() as server:
        server.route("/loop", Reply(302, "", {"location": "/loop"}))
        client = HttpClient(HttpLimits(retries=0, allow_private=True, max_redirects=3))
        with pytest.raises(FetchRefused, match="more than 3 redirects"):
            client.request("GET", server.url + "/loop")
        assert server.hits("/loop") == 4


@pytest.mark.parametrize("chunked", [False, True])
def test_oversized_response_is_refused(chunked: bool) -> None:
    with recorded_server() as server:
        server.route("/big", Reply(200, b"x" * 300_000, chunked=chunked))
        client = HttpClient(HttpLimits(retries=0, allow_private=True, max_bytes=100_000))
        with pytest.raises(FetchRefused, match="100000-byte limit"):
            client.request("GET", server.url + "/big")
        small = HttpClient(HttpLimits(retries=0, allow_private=True, max_bytes=400_000))
        assert len(small.request("GET", server.url + "/big").body) == 300_000


def test_slow_response_times_out() -> None:
    with recorded_server() as server:
        server.route("/slow", Reply(200, "late", delay_s=1.5))
        client = HttpClient(HttpLimits(retries=0, allow_private=True, timeout_s=0.3))
        with pytest.raises(RetrievalError, match="ReadTimeout"):
            client.request("GET", server.url + "/slow")


def test_429_and_500_are_retried_with_jittered_exponential_backoff() -> None:
    with recorded_server() as server:
        server.route(
            "/api",
            Reply(429, "slow down"),
            Reply(500, "oops"),
            Reply(503, "busy", {"retry-after": "2"}),
            Reply(200, '{"ok": true}'),
        )
        waits: list[float] = []
        client = HttpClient(
            HttpLimits(retries=3, backoff_s=0.5, allow_private=True), sleep=waits.append
        )
        response = client.request("GET", server.url + "/api")
        assert response.status == 200
        assert server.hits("/api") == 4
        # semv.retry: full jitter under 0.5 s, then under 1.0 s (doubled); the 503's
        # Retry-After of 2 s is the third wait exactly
        assert len(waits) == 3
        assert 0.0 <= waits[0] <= 0.5 and 0.0 <= waits[1] <= 1.0
        assert waits[2] == 2.0


def test_persistent_server_error_gives_up_after_the_retries() -> None:
    with recorded_server() as server:
        server.route("/down", Reply(500, "down"))
        waits: list[float] = []
        client = HttpClient(
            HttpLimits(retries=2, backoff_s=0.1, allow_private=True), sleep=waits.append
        )
        with pytest.raises(RetrievalError, match=r"gave up after 3 attempts \(HTTP 500\)"):
            client.request("GET", server.url + "/down")
        assert server.hits("/down") == 3
        assert len(waits) == 2 and 0.0 <= waits[0] <= 0.1 and 0.0 <= waits[1] <= 0.2


def test_client_error_is_not_retried() -> None:
    with recorded_server() as server:
        server.route("/missing-key", Reply(401, "unauthorized"))
        client = HttpClient(HttpLimits(retries=3, allow_private=True), sleep=lambda s: None)
        with pytest.raises(RetrievalError, match="HTTP 401"):
            client.request("GET", server.url + "/missing-key")
        assert server.hits("/missing-key") == 1


def test_the_policy_s_waits_double_under_full_jitter_and_respect_the_cap() -> None:
    """semv.retry's waits: retry n waits uniformly within [0, min(cap, base · 2ⁿ)]; a server's
    Retry-After replaces the wait, capped too."""
    import random

    from semv.retry import Backoff

    random.seed(11)
    policy = Backoff(retries=6, base_s=0.5, max_s=3.0)
    for n, ceiling in enumerate((0.5, 1.0, 2.0, 3.0, 3.0)):
        waits = [policy.delay(n) for _ in range(200)]
        assert all(0.0 <= w <= ceiling for w in waits)
        assert max(waits) > 0.8 * ceiling  # spread over the range, not a constant
    assert policy.delay(0, retry_after=2.0) == 2.0
    assert policy.delay(0, retry_after=60.0) == 3.0
