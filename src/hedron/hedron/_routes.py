"""``HedronRoute``: plain ``@app.get``/``@app.post`` routes of a Hedron app render components.

FastAPI would encode a returned component as JSON (and refuses a component return
annotation as a response model). A Hedron app's routes use this route class, which answers a
returned :class:`~hedron_core.Component` the way ``@app.page`` does (a document, the body
fragment to htmx) and leaves every other return value to FastAPI as before.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from fastapi import Request
from fastapi.datastructures import Default, DefaultPlaceholder
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from starlette.responses import Response

from hedron._respond import component_response, with_request
from hedron_core import Component

__all__ = ["HedronRoute"]

_DEFAULT_TITLE = "Hedron"
_DEFAULT_STATIC = "/_hedron/static"


class HedronRoute(APIRoute):
    """An ``APIRoute`` whose endpoint may return a hedron component (rendered as HTML)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        wrapped = _component_aware(endpoint)
        if wrapped is not None:
            endpoint, returns_component = wrapped
            if returns_component and isinstance(
                kwargs.get("response_class", Default(None)), DefaultPlaceholder
            ):
                kwargs["response_class"] = HTMLResponse
        super().__init__(path, endpoint, **kwargs)


def _component_aware(func: Callable[..., Any]) -> tuple[Callable[..., Any], bool] | None:
    """``func`` wrapped so that a returned component becomes an HTML response (and whether
    its return annotation is a component), or ``None`` when there is nothing to wrap: a
    generator (a stream), a handler annotated to return a ``Response``, or a callable that
    is not a plain function."""
    if not inspect.isfunction(func) and not inspect.ismethod(func):
        return None  # a callable object or a partial: left to FastAPI as it is
    if inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func):
        return None
    try:
        signature, params, request_of = with_request(func)
    except (NameError, TypeError, ValueError):  # FastAPI reports what it cannot read
        return None
    returns = signature.return_annotation
    if isinstance(returns, type) and issubclass(returns, Response):
        return None
    returns_component = isinstance(returns, type) and issubclass(returns, Component)

    def answer(result: Any, request: Request) -> Any:
        if not isinstance(result, Component):
            return result
        app = request.scope.get("app")
        return component_response(
            result,
            request,
            "page",
            title=getattr(app, "title", _DEFAULT_TITLE),
            static_prefix=getattr(app, "static_prefix", _DEFAULT_STATIC),
        )

    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def endpoint(**kwargs: Any) -> Any:
            request = request_of(kwargs)
            return answer(await func(**kwargs), request)

    else:  # stays a plain function: FastAPI runs it on its worker threads as before

        @functools.wraps(func)
        def endpoint(**kwargs: Any) -> Any:
            request = request_of(kwargs)
            return answer(func(**kwargs), request)

    # A component annotation is not a response model: FastAPI skips it for a Response.
    endpoint.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=params, return_annotation=Response if returns_component else returns
    )
    return endpoint, returns_component
