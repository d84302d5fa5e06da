"""Turning what a handler returned into a response: page or fragment HTML, or as it is."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Literal

from fastapi import Request
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from hedron._middleware import CSRF_SCOPE_KEY
from hedron_core import Component, render, render_document

__all__ = ["Mode", "component_response", "is_htmx_request", "with_request"]

#: ``page``: a document (a fragment to htmx); ``fragment``: always a fragment.
Mode = Literal["page", "fragment"]

_REQUEST_PARAM = "hedron_request__"
_NO_STORE = (b"cache-control", b"no-store")
_PAGE_HEADERS = (_NO_STORE, (b"vary", b"HX-Request"))
_HX_HEADERS = frozenset({b"hx-request", b"hx-boosted", b"hx-history-restore-request"})


def is_htmx_request(request: Request) -> bool:
    """``True`` for an htmx request that wants a fragment (not a boost or history restore)."""
    seen: dict[bytes, bytes] = {}
    for name, value in request.scope["headers"]:  # one pass; the first value of each counts
        if name in _HX_HEADERS and name not in seen:
            seen[name] = value
    return (
        seen.get(b"hx-request") == b"true"
        and seen.get(b"hx-boosted") != b"true"
        and seen.get(b"hx-history-restore-request") != b"true"
    )


def component_response(
    component: Component, request: Request, mode: Mode, *, title: str, static_prefix: str
) -> HTMLResponse:
    """``component`` as HTML: in ``page`` mode a full document (``title`` when the page has
    none), or the body fragment to an htmx request, with ``Vary: HX-Request``; in
    ``fragment`` mode the fragment. Never stored by caches (``Cache-Control: no-store``)."""
    token = request.scope.get(CSRF_SCOPE_KEY)
    if mode == "page":
        if is_htmx_request(request):
            html = render(component, csrf_token=token)
        else:
            html = render_document(
                component, title=title, static_prefix=static_prefix, csrf_token=token
            )
        response = HTMLResponse(html)
        response.raw_headers.extend(_PAGE_HEADERS)
    else:
        response = HTMLResponse(render(component, csrf_token=token))
        response.raw_headers.append(_NO_STORE)
    return response


def with_request(
    func: Callable[..., Any],
) -> tuple[inspect.Signature, list[inspect.Parameter], Callable[[dict[str, Any]], Request]]:
    """What a wrapper around ``func`` needs to get the request from FastAPI.

    Returns ``func``'s signature, its parameters plus a keyword-only ``Request`` one when it
    declares none (FastAPI fills it in), and a function taking the wrapper's keyword
    arguments to the request, removing the added one (``func`` does not take it).
    """
    signature = inspect.signature(func, eval_str=True)
    params = list(signature.parameters.values())
    name = next((p.name for p in params if p.annotation is Request), None)
    if name is not None:
        own = name
        return signature, params, lambda kwargs: kwargs[own]
    params.append(
        inspect.Parameter(_REQUEST_PARAM, inspect.Parameter.KEYWORD_ONLY, annotation=Request)
    )
    return signature, params, lambda kwargs: kwargs.pop(_REQUEST_PARAM)


def page_vary(response: Response) -> Response:
    """A handler's own response on a page route: it varies with ``HX-Request`` too."""
    response.headers.setdefault("Vary", "HX-Request")
    return response
