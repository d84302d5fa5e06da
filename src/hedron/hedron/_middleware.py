"""``HedronMiddleware``: security headers on every response and the CSRF cookie (pure ASGI)."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

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

_COOKIE_PREFIX = CSRF_COOKIE + "="


def _cookie_token(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name != b"cookie":
            continue
        for part in value.decode("latin-1").split(";"):
            part = part.strip()
            if part.startswith(_COOKIE_PREFIX):
                token = part[len(_COOKIE_PREFIX) :]
                return token if valid_token_format(token) else None
    return None


class HedronMiddleware:
    """Adds the profile's security headers to every HTTP response and issues the CSRF cookie.

    The token is exposed to rendering through a context variable (``Form`` and the page
    shell read it) and to handlers as ``request.scope["hedron.csrf_token"]``.

    Args:
        app: The wrapped ASGI app.
        profile: ``development``, ``standard`` or ``strict``.
    """

    def __init__(self, app: ASGIApp, profile: Profile = "standard") -> None:
        self.app = app
        self.headers = security_headers(profile)
        self._names = {name for name, _ in self.headers}
        secure = "; Secure" if profile == "strict" else ""
        self._cookie_attrs = f"; Path=/; SameSite=Lax; HttpOnly{secure}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        existing = _cookie_token(scope)
        token = existing or new_csrf_token()
        scope[COOKIE_SCOPE_KEY] = existing
        scope[CSRF_SCOPE_KEY] = token
        set_cookie = None
        if existing is None:
            set_cookie = f"{CSRF_COOKIE}={token}{self._cookie_attrs}".encode("latin-1")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers: list[Any] = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend(h for h in self.headers if h[0] not in present)
                if set_cookie is not None:
                    headers.append((b"set-cookie", set_cookie))
                message["headers"] = headers
            await send(message)

        reset = current_csrf_token.set(token)
        try:
            await self.app(scope, receive, send_with_headers)
        finally:
            current_csrf_token.reset(reset)


def scope_token(scope: MutableMapping[str, Any]) -> str | None:
    """The request's CSRF token, if ``HedronMiddleware`` ran."""
    token = scope.get(CSRF_SCOPE_KEY)
    return token if isinstance(token, str) else None
