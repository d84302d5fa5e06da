"""hedron's own static files (stylesheet, script and htmx), served from memory without threads."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

__all__ = ["STATIC_FILES", "static_endpoint"]

_DIR = Path(__file__).resolve().parent / "static"

#: Files hedron serves under its static prefix, with their media types.
STATIC_FILES: dict[str, str] = {
    "hedron.css": "text/css; charset=utf-8",
    "hedron.js": "text/javascript; charset=utf-8",
    "favicon.svg": "image/svg+xml",
    "vendor/htmx.min.js": "text/javascript; charset=utf-8",
}


@cache
def _load(name: str) -> tuple[bytes, str]:
    data = (_DIR / name).read_bytes()
    return data, '"' + hashlib.sha256(data).hexdigest()[:32] + '"'


async def static_endpoint(request: Request) -> Response:
    """Serve one of :data:`STATIC_FILES` (404 for anything else; ETag revalidation)."""
    name = request.path_params.get("name", "")
    media_type = STATIC_FILES.get(name)
    if media_type is None:
        return Response("Not Found", status_code=404, media_type="text/plain")
    try:
        data, etag = _load(name)
    except FileNotFoundError:
        return Response(
            f"{name} is missing from this hedron install (htmx is fetched at build time)",
            status_code=404,
            media_type="text/plain",
        )
    headers = {"ETag": etag, "Cache-Control": "public, max-age=3600"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(data, media_type=media_type, headers=headers)
