"""Redirects on the httpx engine, followed the way the requests engine follows them.

requests follows redirects by default, at most ``requests.models.DEFAULT_REDIRECT_LIMIT`` of
them; httpx follows none unless asked. Both turn a 303 (and a 301/302 to a POST, a 302 to any
method but HEAD) into a GET without a body. They differ in one place: on a 301/302/303 whose
method stays the same (a PUT answered 301), httpx sends the body again, requests drops it with
its headers; requests drops ``Content-Type`` on every such redirect too. Only 307 and 308 keep
the body. A 304 has no ``Location``: neither engine follows it.
"""

from __future__ import annotations

from typing import Any

import httpx
import requests.models

__all__ = ["follow_like_requests"]

_LIMIT = requests.models.DEFAULT_REDIRECT_LIMIT
_KEEP_BODY = (307, 308)
_BODY_HEADERS = ("Content-Length", "Content-Type", "Transfer-Encoding")


async def _drop_body(response: httpx.Response) -> None:
    """Response hook: before httpx builds the next request from this one, drop the body."""
    if response.has_redirect_location and response.status_code not in _KEEP_BODY:
        request = response.request
        request.stream = httpx.ByteStream(b"")
        for name in _BODY_HEADERS:
            request.headers.pop(name, None)


def follow_like_requests(options: dict[str, Any]) -> dict[str, Any]:
    """``httpx.AsyncClient`` options that follow redirects as requests does; the caller's own
    ``follow_redirects``, ``max_redirects`` and ``event_hooks`` are kept (ours run last)."""
    merged = {"follow_redirects": True, "max_redirects": _LIMIT, **options}
    hooks = dict(merged.get("event_hooks") or {})
    hooks["response"] = [*hooks.get("response", ()), _drop_body]
    merged["event_hooks"] = hooks
    return merged
