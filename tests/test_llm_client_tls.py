"""A plain-HTTP model server is reached without loading the certificate store; anything that
may use TLS (an https URL, any URL through a proxy) is verified."""

from __future__ import annotations

import pytest

from semv.agents.llm import tls_needed

_PROXIES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _PROXIES:
        monkeypatch.delenv(name, raising=False)


def test_plain_http_needs_no_tls() -> None:
    assert not tls_needed("http://127.0.0.1:8080/v1")
    assert not tls_needed("HTTP://localhost/v1/models")


def test_https_and_other_schemes_need_tls() -> None:
    assert tls_needed("https://api.example.org/v1")
    assert tls_needed("HTTPS://api.example.org/v1")
    assert tls_needed("api.example.org/v1")


@pytest.mark.parametrize("variable", _PROXIES)
def test_a_proxy_in_the_environment_keeps_verification(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, "https://proxy.example.org:3128")
    assert tls_needed("http://127.0.0.1:8080/v1")
