"""CSRF protection (double-submit cookie) for hedron routes and for plain FastAPI routes.

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

from hedron._middleware import COOKIE_SCOPE_KEY
from hedron_core.security import (
    CSRF_COOKIE,
    CSRF_FIELD,
    CSRF_HEADER,
    SAFE_METHODS,
    tokens_match,
    valid_token_format,
)

__all__ = ["CSRF_COOKIE", "CSRF_FIELD", "CSRF_HEADER", "csrf_protect", "csrf_token"]

_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


async def csrf_protect(request: Request) -> None:
    """FastAPI dependency: refuse an unsafe request whose CSRF token does not match.

    Safe methods (GET, HEAD, OPTIONS, TRACE) pass. Otherwise the ``hedron_csrf`` cookie must
    equal the ``X-CSRF-Token`` header or the ``csrf_token`` form field, else ``403``.

    Example:
        >>> @app.post("/delete", dependencies=[Depends(csrf_protect)])  # doctest: +SKIP
        ... async def delete() -> None: ...
    """
    if request.method in SAFE_METHODS:
        return
    cookie = request.scope.get(COOKIE_SCOPE_KEY)
    if cookie is None:
        raw = request.cookies.get(CSRF_COOKIE)
        cookie = raw if valid_token_format(raw) else None
    submitted = request.headers.get(CSRF_HEADER)
    if not submitted:
        content_type = request.headers.get("content-type", "")
        if content_type.startswith(_FORM_TYPES):
            form = await request.form()
            value = form.get(CSRF_FIELD)
            submitted = value if isinstance(value, str) else None
    if not tokens_match(cookie, submitted):
        raise HTTPException(status_code=403, detail="CSRF token missing or invalid")


def csrf_token(request: Request) -> str | None:
    """The CSRF token issued for ``request`` (to embed in a hand-written form or header).

    Example:
        >>> token = csrf_token(request)  # doctest: +SKIP
    """
    token = request.scope.get("hedron.csrf_token")
    return token if isinstance(token, str) else None
