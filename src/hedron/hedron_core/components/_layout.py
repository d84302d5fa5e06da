"""Layout components: ``Page``, ``Stack``, ``Row``, ``Card``, ``Fragment``, ``Region``."""

from __future__ import annotations

from typing import Final, Literal

from hedron_core._base import (
    Child,
    Component,
    RenderContext,
    check_id,
    check_required_id,
    render_children,
)
from hedron_core._html import Html, element, join
from hedron_core._props import check_bool, check_child, check_children, check_choice, check_str

__all__ = ["Card", "Fragment", "Page", "Region", "Row", "Stack"]

Gap = Literal["none", "sm", "md", "lg"]
GAPS: Final[tuple[Gap, ...]] = ("none", "sm", "md", "lg")


class Page(Component):
    """The root of a page: its children, under an optional ``<h1>`` title.

    ``@app.page`` handlers return a ``Page``; a normal request gets the full HTML document,
    an htmx request gets only this body fragment. ``title`` also becomes the document title.

    Args:
        *children: Components (or strings) shown in order.
        title: Page title (``<title>`` and a visible ``<h1>``).

    Example:
        >>> render(Page(Text("Hello"), title="Home"))  # doctest: +ELLIPSIS
        '<main class="h-page" id="hedron-main"><h1...me</h1><p class="h-text">Hello</p></main>'
    """

    _fields = ("children", "title")
    children: tuple[Child, ...]
    title: str | None

    def __init__(self, *children: Child, title: str | None = None) -> None:
        self._set(
            children=check_children(children, where="Page.children"),
            title=None if title is None else check_str(title, where="Page.title"),
        )

    def render(self, ctx: RenderContext) -> Html:
        ctx.claim_id("hedron-main", where="Page")
        parts = render_children(self.children, ctx)
        if self.title:
            parts.insert(0, element("h1", {"class": "h-page-title"}, [self.title]))
        return element("main", {"class": "h-page", "id": "hedron-main"}, parts)

    @classmethod
    def example(cls) -> Page:
        from hedron_core.components._text import Text

        return cls(Text("Welcome back."), title="Dashboard")


class Stack(Component):
    """Children stacked vertically with a gap.

    Args:
        *children: Components (or strings).
        gap: Space between children: ``none``, ``sm``, ``md`` or ``lg``.
        id: Optional element id.

    Example:
        >>> render(Stack(Text("a"), Text("b"), gap="sm"))
        '<div class="h-stack h-gap-sm"><p class="h-text">a</p><p class="h-text">b</p></div>'
    """

    _fields = ("children", "gap", "id")
    children: tuple[Child, ...]
    gap: Gap
    id: str | None

    _css = "h-stack"

    def __init__(self, *children: Child, gap: Gap = "md", id: str | None = None) -> None:
        name = type(self).__name__
        self._set(
            children=check_children(children, where=f"{name}.children"),
            gap=check_choice(gap, GAPS, where=f"{name}.gap"),
            id=check_id(id, where=f"{name}.id"),
        )

    def render(self, ctx: RenderContext) -> Html:
        if self.id:
            ctx.claim_id(self.id, where=f"{type(self).__name__}.id")
        attrs = {"class": f"{self._css} h-gap-{self.gap}", "id": self.id}
        return element("div", attrs, render_children(self.children, ctx))

    @classmethod
    def example(cls) -> Stack:
        from hedron_core.components._text import Text

        return cls(Text("First"), Text("Second"))


class Row(Stack):
    """Children side by side (wrapping on narrow screens).

    Args:
        *children: Components (or strings).
        gap: Space between children: ``none``, ``sm``, ``md`` or ``lg``.
        id: Optional element id.

    Example:
        >>> render(Row(Badge("a"), Badge("b")))  # doctest: +ELLIPSIS
        '<div class="h-row h-gap-md"><span class="...s="h-badge h-tone-neutral">b</span></div>'
    """

    _css = "h-row"

    @classmethod
    def example(cls) -> Row:
        from hedron_core.components._text import Badge

        return cls(Badge("queued"), Badge("running", tone="info"))


class Card(Component):
    """A bordered box with an optional title, header and footer.

    Args:
        *children: Components (or strings): the card's body.
        title: Optional card title (an ``<h2>``).
        header: Optional component (or string) shown at the top, in a ``<header>``; use
            ``title=`` or ``header=``, not both.
        footer: Optional component (or string) shown at the bottom, in a ``<footer>``.
        id: Optional element id.

    Example:
        >>> render(Card(Text("42 rows"), title="Import"))  # doctest: +ELLIPSIS
        '<section class="h-card"><h2 class="h-card...2><p class="h-text">42 rows</p></section>'
        >>> render(Card("body", header="H", footer="F"))  # doctest: +ELLIPSIS
        '<section class="h-card"><header class="h-card-header">H</header>body<footer...</section>'
    """

    _fields = ("children", "title", "header", "footer", "id")
    children: tuple[Child, ...]
    title: str | None
    header: Child | None
    footer: Child | None
    id: str | None

    def __init__(
        self,
        *children: Child,
        title: str | None = None,
        header: Child | None = None,
        footer: Child | None = None,
        id: str | None = None,
    ) -> None:
        if title is not None and header is not None:
            raise ValueError(
                "Card: give title= or header=, not both (put the title inside the header: "
                "header=Heading(...))"
            )
        self._set(
            children=check_children(children, where="Card.children"),
            title=None if title is None else check_str(title, where="Card.title"),
            header=None if header is None else check_child(header, where="Card.header"),
            footer=None if footer is None else check_child(footer, where="Card.footer"),
            id=check_id(id, where="Card.id"),
        )

    def render(self, ctx: RenderContext) -> Html:
        if self.id:
            ctx.claim_id(self.id, where="Card.id")
        parts: list[str] = []
        if self.header is not None:
            parts.append(_slot("header", "h-card-header", self.header, ctx))
        if self.title:
            parts.append(element("h2", {"class": "h-card-title"}, [self.title]))
        parts.extend(render_children(self.children, ctx))
        if self.footer is not None:
            parts.append(_slot("footer", "h-card-footer", self.footer, ctx))
        return element("section", {"class": "h-card", "id": self.id}, parts)

    @classmethod
    def example(cls) -> Card:
        from hedron_core.components._text import Text

        return cls(Text("1,024 rows imported."), title="Import")


def _slot(tag: str, css: str, child: Child, ctx: RenderContext) -> Html:
    return element(tag, {"class": css}, render_children((child,), ctx))


class Fragment(Component):
    """Children with no wrapper element (useful as a handler's return value).

    Args:
        *children: Components (or strings).

    Example:
        >>> render(Fragment(Text("a"), "b & c"))
        '<p class="h-text">a</p>b &amp; c'
    """

    _fields = ("children",)
    children: tuple[Child, ...]

    def __init__(self, *children: Child) -> None:
        self._set(children=check_children(children, where="Fragment.children"))

    def render(self, ctx: RenderContext) -> Html:
        return join(render_children(self.children, ctx))

    @classmethod
    def example(cls) -> Fragment:
        from hedron_core.components._text import Text

        return cls(Text("One"), Text("Two"))


class Region(Component):
    """A named area other components can target (``#id``), optionally a live region.

    Args:
        *children: Components (or strings).
        id: Required element id (the swap target).
        label: Accessible name (``aria-label``).
        live: Announce changes to assistive technology (``aria-live="polite"``).

    Example:
        >>> render(Region(Text("..."), id="results", live=True))
        '<div class="h-region" id="results" aria-live="polite"><p class="h-text">...</p></div>'
    """

    _fields = ("children", "id", "label", "live")
    children: tuple[Child, ...]
    id: str
    label: str | None
    live: bool

    def __init__(
        self, *children: Child, id: str, label: str | None = None, live: bool = False
    ) -> None:
        self._set(
            children=check_children(children, where="Region.children"),
            id=check_required_id(id, where="Region.id"),
            label=None if label is None else check_str(label, where="Region.label"),
            live=check_bool(live, where="Region.live"),
        )

    def render(self, ctx: RenderContext) -> Html:
        ctx.claim_id(self.id, where="Region.id")
        attrs = {
            "class": "h-region",
            "id": self.id,
            "aria-label": self.label,
            "aria-live": "polite" if self.live else None,
        }
        return element("div", attrs, render_children(self.children, ctx))

    @classmethod
    def example(cls) -> Region:
        from hedron_core.components._text import Text

        return cls(Text("Results appear here."), id="results", live=True)
