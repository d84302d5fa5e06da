"""``HedronMiddleware``: security headers, the CSRF cookie and sessions, in one pure-ASGI pass."""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hedron._sessions import SESSION_COOKIE, SessionCodec, read_cookies
from hedron_core._base import current_csrf_token
from hedron_core.security import (
    CSRF_COOKIE,
    CSRF_HOST_COOKIE,
    Profile,
    csrf_cookie_name,
    csrf_key,
    csrf_token_for,
    new_csrf_token,
    security_headers,
    valid_token_format,
)

__all__ = ["COOKIE_SCOPE_KEY", "CSRF_SCOPE_KEY", "HedronMiddleware"]

#: Scope key holding the CSRF token of the request: the one pages embed and unsafe requests
#: must send back (an HMAC of the CSRF cookie's value, which is issued when missing).
CSRF_SCOPE_KEY = "hedron.csrf_token"
#: Scope key holding the well-formed CSRF cookie value the client sent (or ``None``).
COOKIE_SCOPE_KEY = "hedron.csrf_cookie"

_COOKIES = (CSRF_COOKIE, CSRF_HOST_COOKIE, SESSION_COOKIE)
# Every cookie in _COOKIES contains it: a Cookie header without it is skipped unparsed.
_COOKIE_MARK = b"hedron_"
assert all(_COOKIE_MARK in name.encode("latin-1") for name in _COOKIES)
# How many (well-formed cookie value -> CSRF token) pairs a middleware remembers: a client
# sends the same cookie on every request, so its token's HMAC is computed once.
_TOKEN_CACHE_SIZE = 4096


class HedronMiddleware:
    """Adds the profile's security headers to every HTTP response, issues the CSRF cookie and
    provides ``request.session`` (signed cookie, written only when changed).

    The CSRF cookie holds a random value; the CSRF token is an HMAC of it under a key derived
    from ``secret``, so only this app can make the token that goes with a cookie. The cookie
    is ``__Host-hedron_csrf`` under ``strict`` (https only, this host only), else
    ``hedron_csrf``. The token is exposed to rendering through a context variable (``Form``
    and the page shell read it) and to handlers as ``request.scope["hedron.csrf_token"]``.

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
        self._csrf_cookie = csrf_cookie_name(profile)
        self._csrf_key = csrf_key(secret)
        self._csrf_attrs = "; Path=/; SameSite=Lax; HttpOnly" + ("; Secure" if secure else "")
        self._tokens: dict[str, str] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind != "http" and kind != "websocket":
            await self.app(scope, receive, send)
            return
        cookies = read_cookies(scope["headers"], _COOKIES, marker=_COOKIE_MARK)
        raw_session = cookies.get(SESSION_COOKIE)
        session = self.sessions.load(raw_session)
        scope["session"] = session
        if kind == "websocket":
            await self.app(scope, receive, send)
            return
        existing = cookies.get(self._csrf_cookie)
        set_csrf = None
        token = self._tokens.get(existing) if existing is not None else None
        if token is None:
            token, existing, set_csrf = self._csrf(existing)
        scope[COOKIE_SCOPE_KEY] = existing
        scope[CSRF_SCOPE_KEY] = token

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = self._finish_headers(
                    message.get("headers", ()), scope["session"], raw_session, set_csrf
                )
            await send(message)

        reset = current_csrf_token.set(token)
        try:
            await self.app(scope, receive, send_with_headers)
        finally:
            current_csrf_token.reset(reset)

    def _csrf(self, existing: str | None) -> tuple[str, str | None, bytes | None]:
        """(token, the cookie value if well-formed, the ``Set-Cookie`` issuing a new one)."""
        if existing is not None and not valid_token_format(existing):
            existing = None
        if existing is None:
            nonce = new_csrf_token()
            cookie = f"{self._csrf_cookie}={nonce}{self._csrf_attrs}".encode("latin-1")
            return csrf_token_for(nonce, self._csrf_key), None, cookie
        token = csrf_token_for(existing, self._csrf_key)
        if len(self._tokens) >= _TOKEN_CACHE_SIZE:
            self._tokens.clear()
        self._tokens[existing] = token
        return token, existing, None

    def _finish_headers(
        self,
        headers: Iterable[tuple[bytes, bytes]],
        session: object,
        raw_session: str | None,
        set_csrf: bytes | None,
    ) -> list[tuple[bytes, bytes]]:
        """The response's headers plus the security headers it lacks and the cookies."""
        out = list(headers)
        present = {name.lower() for name, _ in out}
        if present.isdisjoint(self._names):
            out += self.headers
        else:
            out += [h for h in self.headers if h[0] not in present]
        if set_csrf is not None:
            out.append((b"set-cookie", set_csrf))
        is_dict = isinstance(session, dict)
        if is_dict and getattr(session, "modified", True):
            if session:
                out.append((b"set-cookie", self.sessions.set_cookie_header(session)))  # type: ignore[arg-type]
            elif raw_session:
                out.append((b"set-cookie", self.sessions.clear_header))
        if raw_session or (is_dict and session):
            _add_vary_cookie(out)
        return out


def _add_vary_cookie(headers: list[tuple[bytes, bytes]]) -> None:
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
