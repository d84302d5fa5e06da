"""The component explorer page (host-neutral): every component, a preview and its props."""

from __future__ import annotations

from hedron_core._base import Component, RenderContext
from hedron_core._html import Html, element
from hedron_core.components import (
    Card,
    Code,
    ComponentInfo,
    Heading,
    Link,
    Page,
    Row,
    Table,
    Text,
    registry,
)

__all__ = ["Preview", "explorer_page"]


class Preview(Component):
    """Renders ``component`` in its own render pass, inert (``hx-disable``).

    The preview shows the real markup and styles without sending the example's requests
    (which point at endpoints the explorer app does not have).

    Args:
        component: The component to preview.
        name: Used to make generated ids unique per preview.

    Example:
        >>> render(Preview(Text("hi"), name="Text"))
        '<div class="h-preview" hx-disable><p class="h-text">hi</p></div>'
    """

    _fields = ("component", "name")
    component: Component
    name: str

    def __init__(self, component: Component, *, name: str) -> None:
        if not isinstance(component, Component):
            raise TypeError(f"Preview.component must be a Component, got {component!r}")
        self._set(component=component, name=name)

    def render(self, ctx: RenderContext) -> Html:
        inner = self.component.render(
            RenderContext(csrf_token=ctx.csrf_token, id_prefix=f"x-{self.name.lower()}")
        )
        return element("div", {"class": "h-preview", "hx-disable": True}, [inner])


def _plain(text: str) -> str:
    """Docstring markup (````code````) shown as plain text."""
    return text.replace("``", "")


def _entry(info: ComponentInfo) -> Card:
    rows = [
        [
            p.name,
            p.annotation,
            "required" if p.required else (p.default or ""),
            _plain(p.description),
        ]
        for p in info.props
    ]
    return Card(
        Text(_plain(info.summary)),
        Preview(info.example, name=info.name),
        Table(["Prop", "Type", "Default", "Description"], rows, caption=f"{info.name} props"),
        Code(repr(info.example)),
        title=info.name,
        id=f"component-{info.name.lower()}",
    )


def explorer_page() -> Page:
    """Build the explorer page: an index of links, then one card per component.

    Example:
        >>> "Poll" in render(explorer_page())
        True
    """
    infos = registry()
    index = Row(
        *(Link(i.name, href=f"/_hedron/explorer#component-{i.name.lower()}") for i in infos)
    )
    return Page(
        Text(f"{len(infos)} components, each with a live preview and its props."),
        Heading("Index", level=2),
        index,
        *(_entry(i) for i in infos),
        title="hedron component explorer",
    )
