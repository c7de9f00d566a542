"""Who may write: reviewer tokens (bearer header or a session cookie) and CSRF protection.

With tokens configured (``semv serve --auth-token``, or the environment variable named by
``web.auth_token_env``) every write needs one: ``Authorization: Bearer TOKEN``, or the session
cookie the login page sets. A token may carry a reviewer id (``alice:TOKEN``); its writes are
then recorded as ``alice`` whatever the batch says. Without tokens, writes are open and the
reviewer id is the one given (form field, ``X-Reviewer`` header or the batch's ``meta``).

CSRF: a write that is not bearer-authenticated (a browser: cookies) must echo the
``semv_csrf`` cookie in an ``X-CSRF-Token`` header or a ``csrf_token`` form field
(double-submit; the cookie is ``SameSite=Strict``). Reads are always open.

A server without tokens refuses a write that carries ``Authorization: Bearer`` (there is no
token to check it against, so the header would only make a client believe it authenticated);
a script names itself with ``X-Reviewer`` instead. A write with an ``X-Reviewer`` header or a
bearer token is exempt from the CSRF check: a custom header cannot be sent cross-site without
a CORS preflight, which this server never grants, and the ``Host`` allow-list of
``semv.web._app`` stops DNS rebinding.

Sessions end ``web.session_hours`` after login. Failed logins and wrong bearer tokens count
against the client's address: after ``web.login_attempts`` failures within
``web.login_window_s`` seconds every attempt from it is answered 429 until the window has
passed. Cookies are ``Secure`` when the request came over HTTPS: its own scheme, or
``X-Forwarded-Proto: https`` from an address in ``web.trusted_proxies`` (the proxy's
``X-Forwarded-For`` then names the client that is throttled).
"""

from __future__ import annotations

import hmac
import re
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from fastapi import HTTPException, Request

from semv.config import environment_variable
from semv.store import SessionTable

__all__ = [
    "CSRF_COOKIE",
    "SESSION_COOKIE",
    "Auth",
    "Writer",
    "parse_tokens",
]

CSRF_COOKIE = "semv_csrf"
SESSION_COOKIE = "semv_session"
_REVIEWER = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")


def parse_tokens(values: list[str]) -> dict[str, str | None]:
    """``TOKEN`` or ``NAME:TOKEN`` items (comma-separated allowed) → token → reviewer id."""
    tokens: dict[str, str | None] = {}
    for value in values:
        for item in (v.strip() for v in value.split(",")):
            if not item:
                continue
            name, sep, token = item.partition(":")
            if sep and _REVIEWER.match(name) and token:
                tokens[token] = name
            else:
                tokens[item] = None
    return tokens


def tokens_from_env(variable: str) -> list[str]:
    value = environment_variable(variable) or ""
    return [value] if value.strip() else []


@dataclass(frozen=True)
class Writer:
    """Who is writing: the reviewer id and whether a token fixed it."""

    reviewer: str
    fixed: bool


@dataclass
class _Throttle:
    """Failed attempts per client address within a sliding window."""

    attempts: int
    window_s: float
    failures: dict[str, deque[float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def wait(self, client: str) -> float:
        """Seconds ``client`` must wait before its next attempt (0: go ahead)."""
        now = time.monotonic()
        with self.lock:
            seen = self.failures.get(client)
            while seen and now - seen[0] > self.window_s:
                seen.popleft()
            if not seen:
                self.failures.pop(client, None)
                return 0.0
            return self.window_s - (now - seen[0]) if len(seen) >= self.attempts else 0.0

    def failed(self, client: str) -> None:
        with self.lock:
            if len(self.failures) > 10_000:  # a flood of addresses: forget the oldest half
                for key in list(self.failures)[:5_000]:
                    self.failures.pop(key, None)
            self.failures.setdefault(client, deque(maxlen=self.attempts)).append(time.monotonic())

    def succeeded(self, client: str) -> None:
        with self.lock:
            self.failures.pop(client, None)


class Auth:
    """Token check, login sessions, throttling and CSRF for one server."""

    def __init__(
        self,
        tokens: dict[str, str | None],
        sessions: SessionTable | None = None,
        *,
        session_seconds: float = 12 * 3600.0,
        login_attempts: int = 5,
        login_window_s: float = 300.0,
        trusted_proxies: tuple[str, ...] = ("127.0.0.1", "::1"),
    ) -> None:
        """``sessions``: keep login sessions in the store (they survive a restart and are
        shared by several servers); in this process's memory without it."""
        self.tokens = tokens
        self.session_seconds = session_seconds
        self.trusted_proxies = frozenset(trusted_proxies)
        self._table = sessions
        self._sessions: dict[str, tuple[str | None, float]] = {}
        self._lock = threading.Lock()
        self._throttle = _Throttle(login_attempts, login_window_s)

    @property
    def enabled(self) -> bool:
        return bool(self.tokens)

    def _match(self, presented: str) -> tuple[bool, str | None]:
        for token, name in self.tokens.items():
            if hmac.compare_digest(token.encode(), presented.encode()):
                return True, name
        return False, None

    def _token(self, presented: str) -> str:
        return next(t for t in self.tokens if hmac.compare_digest(t.encode(), presented.encode()))

    # ---- where a request comes from ------------------------------------------------------

    def _proxied(self, request: Request) -> bool:
        return request.client is not None and request.client.host in self.trusted_proxies

    def client(self, request: Request) -> str:
        """The client's address: the proxy's ``X-Forwarded-For`` (its last entry, the one
        the trusted proxy appended) when the request came through one, else the peer."""
        peer = request.client.host if request.client is not None else "unknown"
        forwarded = request.headers.get("x-forwarded-for", "")
        if forwarded and self._proxied(request):
            return forwarded.split(",")[-1].strip() or peer
        return peer

    def is_https(self, request: Request) -> bool:
        """Whether the browser reached the server over HTTPS (cookies get ``Secure``)."""
        if request.url.scheme == "https":
            return True
        proto = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
        return proto == "https" and self._proxied(request)

    def check_throttle(self, request: Request) -> None:
        """``HTTPException`` 429 while the client has used up its failed attempts."""
        wait = self._throttle.wait(self.client(request))
        if wait > 0:
            raise HTTPException(
                429,
                "too many failed logins or tokens from this address; try again later",
                headers={"Retry-After": str(max(1, int(wait + 0.999)))},
            )

    # ---- sessions ------------------------------------------------------------------------

    def login(self, presented: str, request: Request | None = None) -> str | None:
        """A new session id for a valid token, else None (a failure counts against the
        ``request``'s client); ``HTTPException`` 429 while that client is throttled."""
        client = self.client(request) if request is not None else None
        if request is not None:
            self.check_throttle(request)
        ok, name = self._match(presented)
        if client is not None:
            (self._throttle.succeeded if ok else self._throttle.failed)(client)
        if not ok:
            return None
        session = secrets.token_urlsafe(32)
        if self._table is not None:
            self._table.add(session, name, self._token(presented))
            return session
        with self._lock:
            self._sessions[session] = (name, time.monotonic())
        return session

    def logout(self, session: str) -> None:
        if self._table is not None:
            self._table.remove(session)
            return
        with self._lock:
            self._sessions.pop(session, None)

    def session_name(self, request: Request) -> tuple[bool, str | None]:
        session = request.cookies.get(SESSION_COOKIE, "")
        if not session:
            return False, None
        if self._table is not None:
            return self._table.lookup(session, self.tokens, max_age_s=self.session_seconds)
        with self._lock:
            found = self._sessions.get(session)
            if found is not None and time.monotonic() - found[1] <= self.session_seconds:
                return True, found[0]
            self._sessions.pop(session, None)
        return False, None

    # ---- writes --------------------------------------------------------------------------

    def writer(self, request: Request, claimed: str | None = None) -> Writer:
        """Authorise a write (``HTTPException`` 401/403/429 otherwise) and name its
        reviewer."""
        header = request.headers.get("authorization", "")
        bearer = header[7:].strip() if header.lower().startswith("bearer ") else None
        if bearer is not None:
            if not self.enabled:
                raise HTTPException(
                    401,
                    "this server has no reviewer tokens, so it cannot check a bearer token: "
                    "drop the Authorization header and name the reviewer in X-Reviewer",
                )
            self.check_throttle(request)
            ok, name = self._match(bearer)
            if not ok:
                self._throttle.failed(self.client(request))
                raise HTTPException(401, "invalid reviewer token")
        elif self.enabled:
            # credentials first: a write without any is 401; 403 only for a bad CSRF token
            ok, name = self.session_name(request)
            if not ok:
                raise HTTPException(
                    401,
                    "a reviewer token is required for writes "
                    "(Authorization: Bearer TOKEN, or log in at /login)",
                    headers={"WWW-Authenticate": "Bearer"},
                )
            check_csrf(request)
        else:
            name = None
            if "x-reviewer" not in request.headers:  # a browser form: ambient cookies only
                check_csrf(request)
        if name is not None:
            return Writer(reviewer=name, fixed=True)
        reviewer = claimed or request.headers.get("x-reviewer") or "reviewer"
        if not _REVIEWER.match(reviewer):
            raise HTTPException(422, f"invalid reviewer id {reviewer!r} (letters, digits, ._@-)")
        return Writer(reviewer=reviewer, fixed=False)

    def can_write(self, request: Request) -> bool:
        """Whether the browser's session may write (for showing or hiding controls)."""
        return not self.enabled or self.session_name(request)[0]


def check_csrf(request: Request, form_value: str | None = None) -> None:
    cookie = request.cookies.get(CSRF_COOKIE)
    sent = form_value or request.headers.get("x-csrf-token")
    if not cookie or not sent or not hmac.compare_digest(cookie.encode(), sent.encode()):
        raise HTTPException(
            403, "CSRF check failed: reload the page (the form's token must match its cookie)"
        )


def csrf_token(request: Request) -> tuple[str, bool]:
    """The browser's CSRF token, and whether it is new (the response must set the cookie)."""
    current = request.cookies.get(CSRF_COOKIE)
    if current and re.fullmatch(r"[A-Za-z0-9_-]{20,64}", current):
        return current, False
    return secrets.token_urlsafe(24), True
