"""Who may write: reviewer tokens (bearer header or a session cookie) and CSRF protection.

With tokens configured (``semv serve --auth-token``, or the environment variable named by
``web.auth_token_env``) every write needs one: ``Authorization: Bearer TOKEN``, or the session
cookie the login page sets. A token may carry a reviewer id (``alice:TOKEN``); its writes are
then recorded as ``alice`` whatever the batch says. Without tokens, writes are open and the
reviewer id is the one given (form field, ``X-Reviewer`` header or the batch's ``meta``).

CSRF: a write that is not bearer-authenticated (a browser: cookies) must echo the
``semv_csrf`` cookie in an ``X-CSRF-Token`` header or a ``csrf_token`` form field
(double-submit; the cookie is ``SameSite=Strict``). Reads are always open.
"""

from __future__ import annotations

import hmac
import os
import re
import secrets
import threading
from dataclasses import dataclass

from fastapi import HTTPException, Request

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
    value = os.environ.get(variable, "")
    return [value] if value.strip() else []


@dataclass(frozen=True)
class Writer:
    """Who is writing: the reviewer id and whether a token fixed it."""

    reviewer: str
    fixed: bool


class Auth:
    """Token check, login sessions and CSRF for one server."""

    def __init__(self, tokens: dict[str, str | None], sessions: SessionTable | None = None) -> None:
        """``sessions``: keep login sessions in the store (they survive a restart and are
        shared by several servers); in this process's memory without it."""
        self.tokens = tokens
        self._table = sessions
        self._sessions: dict[str, str | None] = {}
        self._lock = threading.Lock()

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

    def login(self, presented: str) -> str | None:
        """A new session id for a valid token, else None."""
        ok, name = self._match(presented)
        if not ok:
            return None
        session = secrets.token_urlsafe(32)
        if self._table is not None:
            self._table.add(session, name, self._token(presented))
            return session
        with self._lock:
            self._sessions[session] = name
        return session

    def logout(self, session: str) -> None:
        if self._table is not None:
            self._table.remove(session)
            return
        with self._lock:
            self._sessions.pop(session, None)

    def session_name(self, request: Request) -> tuple[bool, str | None]:
        session = request.cookies.get(SESSION_COOKIE, "")
        if self._table is not None:
            return self._table.lookup(session, self.tokens) if session else (False, None)
        with self._lock:
            if session in self._sessions:
                return True, self._sessions[session]
        return False, None

    def writer(self, request: Request, claimed: str | None = None) -> Writer:
        """Authorise a write (``HTTPException`` 401/403 otherwise) and name its reviewer."""
        header = request.headers.get("authorization", "")
        bearer = header[7:].strip() if header.lower().startswith("bearer ") else None
        if bearer is not None:
            ok, name = self._match(bearer) if self.enabled else (True, None)
            if not ok:
                raise HTTPException(401, "invalid reviewer token")
        else:
            # credentials first: a write without any is 401; 403 only for a bad CSRF token
            ok, name = self.session_name(request) if self.enabled else (True, None)
            if not ok:
                raise HTTPException(
                    401,
                    "a reviewer token is required for writes "
                    "(Authorization: Bearer TOKEN, or log in at /login)",
                    headers={"WWW-Authenticate": "Bearer"},
                )
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
