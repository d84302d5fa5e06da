"""Signed-cookie sessions (``request.session``), handled inside ``HedronMiddleware``.

The cookie holds base64 JSON signed with ``itsdangerous.TimestampSigner`` (the same format as
Starlette's ``SessionMiddleware``). It is only written when a handler changed the session.
"""

from __future__ import annotations

import json
from base64 import b64decode, b64encode
from collections.abc import Iterable
from typing import Any, SupportsIndex

import itsdangerous
from itsdangerous.exc import BadSignature

__all__ = ["SESSION_COOKIE", "Session", "SessionCodec"]

#: Name of hedron's session cookie.
SESSION_COOKIE = "hedron_session"
_MAX_AGE = 14 * 24 * 60 * 60


class Session(dict[str, Any]):
    """The ``request.session`` dict; remembers whether a handler changed it."""

    modified = False

    def __setitem__(self, key: str, value: Any) -> None:
        self.modified = True
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.modified = True
        super().__delitem__(key)

    def clear(self) -> None:
        self.modified = True
        super().clear()

    def pop(self, key: str, *default: Any) -> Any:
        self.modified = True
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, Any]:
        self.modified = True
        return super().popitem()

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self.modified = True
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.modified = True
        super().update(*args, **kwargs)

    def __ior__(self, other: Any) -> Session:  # type: ignore[override,misc]
        self.modified = True
        super().update(other)
        return self

    def __reduce_ex__(self, protocol: SupportsIndex) -> Any:
        return (dict, (dict(self),))


class SessionCodec:
    """Signs and reads session cookies.

    Args:
        secret: The signing key (``Hedron(session_secret=...)``).
        secure: Add the ``Secure`` flag (``security="strict"``).
        max_age: Cookie and signature lifetime in seconds.
    """

    def __init__(self, secret: str, *, secure: bool, max_age: int = _MAX_AGE) -> None:
        self.signer = itsdangerous.TimestampSigner(secret)
        self.max_age = max_age
        flags = f"; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax"
        self.flags = flags + ("; Secure" if secure else "")
        clear = "; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax"
        self.clear_header = (
            f"{SESSION_COOKIE}=null{clear}" + ("; Secure" if secure else "")
        ).encode("latin-1")

    def load(self, raw: str | None) -> Session:
        """Decode a cookie value; a missing, expired or forged cookie gives an empty session."""
        if not raw:
            return Session()
        try:
            data = self.signer.unsign(raw.encode("latin-1"), max_age=self.max_age)
            value = json.loads(b64decode(data))
        except (BadSignature, ValueError, UnicodeError):
            return Session()
        return Session(value) if isinstance(value, dict) else Session()

    def set_cookie_header(self, session: dict[str, Any]) -> bytes:
        """The ``Set-Cookie`` value persisting ``session``."""
        data = self.signer.sign(b64encode(json.dumps(session).encode("utf-8")))
        return f"{SESSION_COOKIE}={data.decode('latin-1')}{self.flags}".encode("latin-1")


def read_cookies(
    headers: Iterable[tuple[bytes, bytes]], names: tuple[str, ...], *, marker: bytes = b""
) -> dict[str, str]:
    """Pick the first value of each cookie in ``names`` out of the ``Cookie`` headers.

    ``marker`` is a byte string every name contains (their common prefix): a ``Cookie``
    header without it holds none of them and is skipped without being parsed.
    """
    found: dict[str, str] = {}
    for name, value in headers:
        if name != b"cookie" or marker not in value:
            continue
        for part in value.decode("latin-1").split(";"):
            key, sep, val = part.strip().partition("=")
            if sep and key in names and key not in found:
                found[key] = val
    return found
