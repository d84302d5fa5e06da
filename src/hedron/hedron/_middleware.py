"""``HedronMiddleware``: security headers, the CSRF cookie and sessions, in one pure-ASGI pass."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hedron._sessions import SESSION_COOKIE, SessionCodec, read_cookies
from hedron_core._base import current_csrf_token
from hedron_core.security import (
    CSRF_COOKIE,
    Profile,
    new_csrf_token,
    security_headers,
    valid_token_format,
)

__all__ = ["COOKIE_SCOPE_KEY", "CSRF_SCOPE_KEY", "HedronMiddleware"]

#: Scope key holding the CSRF token of the request (issued or read from the cookie).
CSRF_SCOPE_KEY = "hedron.csrf_token"
#: Scope key holding the well-formed token the client sent in its cookie (or ``None``).
COOKIE_SCOPE_KEY = "hedron.csrf_cookie"

_COOKIES = (CSRF_COOKIE, SESSION_COOKIE)


class HedronMiddleware:
    """Adds the profile's security headers to every HTTP response, issues the CSRF cookie and
    provides ``request.session`` (signed cookie, written only when changed).

    The CSRF token is exposed to rendering through a context variable (``Form`` and the page
    shell read it) and to handlers as ``request.scope["hedron.csrf_token"]``.

    Args:
        app: The wrapped ASGI app.
        secret: Session signing key.
        profile: ``development``, ``standard`` or ``strict``.
    """

    def __init__(self, app: ASGIApp, *, secret: str, profile: Profile = "standard") -> None:
        self.app = app
        self.headers = security_headers(profile)
        self._names = frozenset(name for name, _ in self.headers)
        secure = profile == "strict"
        self.sessions = SessionCodec(secret, secure=secure)
        self._csrf_attrs = "; Path=/; SameSite=Lax; HttpOnly" + ("; Secure" if secure else "")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind != "http" and kind != "websocket":
            await self.app(scope, receive, send)
            return
        cookies = read_cookies(scope["headers"], _COOKIES)
        raw_session = cookies.get(SESSION_COOKIE)
        session = self.sessions.load(raw_session)
        scope["session"] = session
        if kind == "websocket":
            await self.app(scope, receive, send)
            return
        existing = cookies.get(CSRF_COOKIE)
        if existing is not None and not valid_token_format(existing):
            existing = None
        token = existing or new_csrf_token()
        scope[COOKIE_SCOPE_KEY] = existing
        scope[CSRF_SCOPE_KEY] = token
        set_csrf = None
        if existing is None:
            set_csrf = f"{CSRF_COOKIE}={token}{self._csrf_attrs}".encode("latin-1")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers: list[Any] = list(message.get("headers", ()))
                names = self._names
                if any(name.lower() in names for name, _ in headers):
                    present = {name.lower() for name, _ in headers}
                    headers.extend(h for h in self.headers if h[0] not in present)
                else:
                    headers.extend(self.headers)
                if set_csrf is not None:
                    headers.append((b"set-cookie", set_csrf))
                current = scope["session"]
                if isinstance(current, dict) and getattr(current, "modified", True):
                    if current:
                        headers.append((b"set-cookie", self.sessions.set_cookie_header(current)))
                    elif raw_session:
                        headers.append((b"set-cookie", self.sessions.clear_header))
                if raw_session or (isinstance(current, dict) and current):
                    _add_vary_cookie(headers)
                message["headers"] = headers
            await send(message)

        reset = current_csrf_token.set(token)
        try:
            await self.app(scope, receive, send_with_headers)
        finally:
            current_csrf_token.reset(reset)


def _add_vary_cookie(headers: list[Any]) -> None:
    for i, (name, value) in enumerate(headers):
        if name.lower() == b"vary":
            if b"cookie" not in value.lower():
                headers[i] = (name, value + b", Cookie")
            return
    headers.append((b"vary", b"Cookie"))


def scope_token(scope: MutableMapping[str, Any]) -> str | None:
    """The request's CSRF token, if ``HedronMiddleware`` ran."""
    token = scope.get(CSRF_SCOPE_KEY)
    return token if isinstance(token, str) else None
