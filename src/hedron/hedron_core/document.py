"""The HTML document shell around a page (host-neutral, no inline script or style)."""

from __future__ import annotations

from functools import lru_cache
from json.encoder import encode_basestring

from hedron_core._base import Component, RenderContext, current_csrf_token
from hedron_core._html import Html, element, escape_attr, escape_text
from hedron_core.components import Page
from hedron_core.htmx import htmx_config_json
from hedron_core.security import CSRF_HEADER

__all__ = ["CSRF_HEADER", "render_document"]


def render_document(
    component: Component,
    *,
    title: str,
    static_prefix: str = "/_hedron/static",
    csrf_token: str | None = None,
    lang: str = "en",
) -> Html:
    """Render a full HTML document for ``component`` (wrapped in a ``Page`` if needed).

    The shell loads htmx and the stylesheet from ``static_prefix`` (same origin), carries
    the locked-down htmx config in ``<meta name="htmx-config">`` and the CSRF token in
    ``hx-headers`` on ``<body>``, so it needs no inline script and satisfies a strict CSP.

    Args:
        component: Usually a ``Page``; anything else is wrapped in ``Page(component)``.
        title: Document title used when the page has none.
        static_prefix: Root-relative URL of hedron's static files.
        csrf_token: Token for ``X-CSRF-Token``/``csrf_token``; defaults to the request's.
        lang: Document language.

    Example:
        >>> html = render_document(Page(Text("hi")), title="Demo")
        >>> html.startswith("<!DOCTYPE html>")
        True
    """
    page = component if isinstance(component, Page) else Page(component)
    token = csrf_token if csrf_token is not None else current_csrf_token.get()
    body = page.render(RenderContext(csrf_token=token))
    return Html(
        f"{_head_start(lang, static_prefix)}<title>{escape_text(page.title or title)}</title>"
        f"</head>{_body_open(token) if token else _BODY}{body}</body></html>"
    )


_BODY = '<body class="h-body">'


@lru_cache(maxsize=1024)
def _body_open(token: str) -> str:
    """``<body>`` carrying ``token`` in ``hx-headers`` (a client's token repeats per request)."""
    header = "{" + encode_basestring(CSRF_HEADER) + ":" + encode_basestring(token) + "}"
    return f'<body class="h-body" hx-headers="{escape_attr(header)}">'


@lru_cache(maxsize=32)
def _head_start(lang: str, static_prefix: str) -> str:
    """The constant part of the document up to ``<title>`` (computed once per prefix)."""
    return (
        f'<!DOCTYPE html><html lang="{escape_attr(lang)}"><head>'
        '<meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="htmx-config" content="{escape_attr(htmx_config_json())}">'
        + element("link", {"rel": "icon", "href": f"{static_prefix}/favicon.svg"})
        + element("link", {"rel": "stylesheet", "href": f"{static_prefix}/hedron.css"})
        + f'<script src="{escape_attr(static_prefix)}/vendor/htmx.min.js" defer></script>'
        + f'<script src="{escape_attr(static_prefix)}/hedron.js" defer></script>'
    )
