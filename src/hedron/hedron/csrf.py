"""CSRF protection for hedron routes and for plain FastAPI routes of a Hedron app.

The CSRF cookie holds a random value; the token pages carry (``X-CSRF-Token`` from
``hx-headers``, the hidden ``csrf_token`` field of ``Form``) is an HMAC of it under a key
derived from the session secret. An unsafe request passes only with the token that belongs to
its cookie, so a cookie planted by an attacker (with any value in the header) is refused.

Every unsafe-method route registered with ``@app.page`` or ``@app.action`` is protected
automatically. Protect a plain route with the :func:`csrf_protect` dependency::

    from fastapi import Depends
    from hedron.csrf import csrf_protect

    @app.post("/plain", dependencies=[Depends(csrf_protect)])
    def plain() -> dict[str, bool]:
        return {"ok": True}

or protect a whole router: ``APIRouter(dependencies=[Depends(csrf_protect)])``.
"""

from __future__ import annotations

from fastapi import HTTPException, Request

from hedron._middleware import COOKIE_SCOPE_KEY, CSRF_SCOPE_KEY
from hedron_core.security import (
    CSRF_COOKIE,
    CSRF_FIELD,
    CSRF_HEADER,
    SAFE_METHODS,
    tokens_match,
)

__all__ = ["CSRF_COOKIE", "CSRF_FIELD", "CSRF_HEADER", "csrf_protect", "csrf_token"]

_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


async def csrf_protect(request: Request) -> None:
    """FastAPI dependency: refuse an unsafe request whose CSRF token does not match.

    Safe methods (GET, HEAD, OPTIONS, TRACE) pass. Otherwise the request must carry the CSRF
    cookie and, in the ``X-CSRF-Token`` header or the ``csrf_token`` form field, the token
    hedron issued for that cookie (:func:`csrf_token`), else ``403``. It needs the Hedron
    app's middleware (which knows the key); without it every unsafe request is refused.

    Example:
        >>> @app.post("/delete", dependencies=[Depends(csrf_protect)])  # doctest: +SKIP
        ... async def delete() -> None: ...
    """
    if request.method in SAFE_METHODS:
        return
    # The token goes with the cookie the client sent; no cookie, no valid token.
    expected = request.scope.get(CSRF_SCOPE_KEY) if request.scope.get(COOKIE_SCOPE_KEY) else None
    submitted = request.headers.get(CSRF_HEADER)
    if not submitted:
        content_type = request.headers.get("content-type", "").lower()
        if content_type.startswith(_FORM_TYPES):
            form = await request.form()
            value = form.get(CSRF_FIELD)
            submitted = value if isinstance(value, str) else None
    if not tokens_match(expected if isinstance(expected, str) else None, submitted):
        raise HTTPException(status_code=403, detail="CSRF token missing or invalid")


def csrf_token(request: Request) -> str | None:
    """The CSRF token issued for ``request`` (to embed in a hand-written form or header).

    Example:
        >>> token = csrf_token(request)  # doctest: +SKIP
    """
    token = request.scope.get(CSRF_SCOPE_KEY)
    return token if isinstance(token, str) else None
