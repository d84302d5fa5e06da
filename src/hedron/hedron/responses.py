"""Responses built from components."""

from __future__ import annotations

from collections.abc import Mapping

from fastapi.responses import HTMLResponse

from hedron_core import Component, render

__all__ = ["fragment"]


def fragment(
    component: Component,
    *,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
) -> HTMLResponse:
    """Render one component as an HTML fragment response (no document shell).

    Answer a :class:`~hedron_core.components.Poll` request with ``status_code=286``
    (:data:`hedron_core.htmx.STOP_POLLING_STATUS`) once the work is finished: htmx swaps this
    last fragment in and stops polling.

    Args:
        component: What to render.
        status_code: HTTP status (100–599; 286 ends polling).
        headers: Extra response headers.

    Example:
        >>> fragment(Status("Done", tone="success"), status_code=286)  # doctest: +SKIP
    """
    if not isinstance(component, Component):
        raise TypeError(
            f"fragment(component=...) must be a Component, got {type(component).__name__}"
        )
    if isinstance(status_code, bool) or not isinstance(status_code, int):
        raise TypeError(
            f"fragment(status_code=...) must be an int, got {type(status_code).__name__}"
        )
    if not 100 <= status_code <= 599:
        raise ValueError(
            f"fragment(status_code=...) must be between 100 and 599, got {status_code}"
        )
    if headers is not None and not isinstance(headers, Mapping):
        raise TypeError(f"fragment(headers=...) must be a mapping, got {type(headers).__name__}")
    return HTMLResponse(render(component), status_code=status_code, headers=headers)
