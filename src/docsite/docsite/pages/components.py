"""The component gallery: one generated page per hedron component, from ``hedron_core.registry()``.

Each page shows the component's summary, the Python that builds its example
(``component_gallery``: the function's source, as written) right above what that very function
returns, rendered with hedron's own stylesheet (``preview_css``, scoped to the preview) and
inert, then the HTML, the props (from the signature and
the docstring's ``Args:``) and a link to the API reference. Adding a component to the registry
adds its page; the test suite requires it to have an example function.

A preview is inert in its HTML (:func:`inert`): no address to follow or submit to, so without
JavaScript too nothing in it sends a request or leaves the page; ``docs/assets/gallery/
gallery.mjs`` also stops the clicks and submits before the theme's instant navigation sees
them. "The HTML it renders" shows the markup as hedron writes it.

The hand-written guide (``docs/hedron/components.md``) keeps its own URL; its
``<!-- component-gallery -->`` line becomes the table of every component, by group.
"""

from __future__ import annotations

import html
import inspect
import re
from typing import Any

from docsite.griffe.examples import plain_roles
from docsite.pages import gallery as component_gallery

FOLDER = "hedron/components"
GALLERY_MARKER = re.compile(r"^<!--\s*component-gallery\s*-->[ \t]*$", re.MULTILINE)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
#: The attributes that name an address to follow, submit to or fetch (htmx's too).
_ADDRESS = re.compile(r'(?<=\s)(href|action|formaction|hx-(?:get|post|put|patch|delete))(?==")')
_FORM_TAG = re.compile(r"<form\b[^>]*>")
_METHOD = re.compile(r'\smethod="[^"]*"')


def _registry() -> tuple[Any, ...]:
    try:
        import hedron_core
    except ImportError:
        return ()
    registry = getattr(hedron_core, "registry", None)
    return tuple(registry()) if callable(registry) else ()


def _text(text: str, *, cell: bool = False) -> str:
    """Docstring text as Markdown that shows it once escaped.

    Code spans are left to Markdown (it escapes their content itself); only the text between
    them is escaped here. In a table cell, pipes outside code spans become ``&#124;`` and
    lines are joined.
    """
    text = plain_roles(text)
    out, last = [], 0
    for match in _CODE_SPAN.finditer(text):
        out.append(_escape(text[last : match.start()], cell))
        out.append(match.group(0))
        last = match.end()
    out.append(_escape(text[last:], cell))
    joined = "".join(out)
    return joined.replace("\n", " ") if cell else joined


def _escape(text: str, cell: bool) -> str:
    text = html.escape(text, quote=False)
    return text.replace("|", "&#124;") if cell else text


def _code_cell(text: str) -> str:
    """Text for a code span in a table cell (the tables extension keeps its pipes)."""
    return text.replace("\n", " ")


def _description(doc: str) -> str:
    """The docstring's prose: everything before its first Google-style section."""
    lines: list[str] = []
    for line in doc.splitlines()[1:]:
        if line.strip().endswith(":") and not line.startswith(" ") and line.strip()[:-1].isalpha():
            break
        lines.append(line)
    return inspect.cleandoc("\n".join(lines))


def page_name(info: Any) -> str:
    """``hedron/components/<name>.md`` of a registry entry."""
    return f"{FOLDER}/{info.name.lower()}.md"


def example_source(info: Any) -> str:
    """The source of the component's example function, exactly as written.

    Raises:
        ValueError: ``component_gallery`` has no example function for it.
    """
    function = component_gallery.example_for(info.name)
    if function is None:
        name = component_gallery.function_name(info.name)
        raise ValueError(
            f"hedron component {info.name}: add {name}() to src/docsite/docsite/pages/gallery.py"
        )
    return inspect.getsource(function)


def inert(markup: str) -> str:
    """``markup`` made inert in itself: each address moves to a ``data-preview-`` attribute (a
    link without ``href`` goes nowhere, htmx finds nothing to request) and forms submit with
    ``method="dialog"`` (outside a dialog, a submit that does nothing).

    Example:
        >>> inert('<a class="h-link" href="/jobs">All jobs</a>')
        '<a class="h-link" data-preview-href="/jobs">All jobs</a>'
    """
    markup = _ADDRESS.sub(lambda m: f"data-preview-{m.group(1)}", markup)
    return _FORM_TAG.sub(lambda m: _METHOD.sub("", m.group(0))[:-1] + ' method="dialog">', markup)


def preview_html(info: Any) -> str:
    """What the example function returns, rendered inert inside a preview element."""
    from hedron_core import render
    from hedron_core.explorer import Preview

    function = component_gallery.example_for(info.name)
    if function is None:
        raise ValueError(f"hedron component {info.name}: no example function")
    inner = inert(render(Preview(function(), name=info.name)))
    label = html.escape(f"Preview of the {info.name} example", quote=True)
    return (
        f'<div class="hedron-preview" role="group" aria-label="{label}"'
        f' data-component="{html.escape(info.name)}">{inner}</div>'
    )


def component_page(info: Any, reference: str | None = None) -> str:
    """Markdown of one component page; ``reference`` is its API reference identifier."""
    from hedron_core import render

    function = component_gallery.example_for(info.name)
    out = [f"# {info.name}", "", _text(info.summary), ""]
    description = _description(info.doc)
    if description:
        out += [_text(description), ""]
    if info.category:
        out += [f"Group: **{info.category}**, in the [component gallery](../components.md).", ""]
    out += ["## Example", ""]
    # A raw HTML block of its own, so Markdown passes hedron's markup through untouched; the
    # stylesheet frames it and the code block right after it as one example.
    out += [preview_html(info), ""]
    out += ['```python title="The Python that builds it"', example_source(info).rstrip("\n")]
    out += ["```", ""]
    markup = render(function()) if function is not None else ""
    out += ['??? note "The HTML it renders"', "", "    ```html"]
    out += [f"    {line}" for line in markup.splitlines()]
    out += ["    ```", ""]
    out += ["The preview is inert: nothing in it sends a request or leaves this page.", ""]
    out += ["## Props", "", "| Prop | Type | Default | Description |", "| --- | --- | --- | --- |"]
    for prop in info.props:
        default = "required" if prop.required else f"`{_code_cell(prop.default or '')}`"
        if not prop.required and prop.default is None:
            default = ""  # *children
        out.append(
            f"| `{_code_cell(prop.name)}` | `{_code_cell(prop.annotation)}` |"
            f" {default} | {_text(prop.description, cell=True)} |"
        )
    if reference:
        out += ["", f"API reference: [`{reference}`][{reference}]."]
    return "\n".join(out) + "\n"


def pages(references: dict[str, str] | None = None) -> dict[str, str]:
    """``{"hedron/components/<name>.md": markdown}`` for every registered component.

    ``references`` maps a component's name to its API reference identifier.
    """
    refs = references or {}
    return {page_name(info): component_page(info, refs.get(info.name)) for info in _registry()}


def nav() -> list[Any]:
    """The gallery's nav section: the component pages, by group, in registry order."""
    groups: dict[str, list[str]] = {}
    for info in _registry():
        groups.setdefault(info.category or "Other", []).append(page_name(info))
    return [{group: names} for group, names in groups.items()]


def gallery_table(where: str) -> str:
    """The guide's table of every component, by group, linked to its page.

    ``where`` is the guide's path (``hedron/components.md``), for the relative links.
    """
    base = "../" * where.count("/")
    groups: dict[str, list[str]] = {}
    for info in _registry():
        link = f"[`{info.name}`]({base}{page_name(info)})"
        groups.setdefault(info.category or "Other", []).append(link)
    rows = [f"| {group} | {', '.join(links)} |" for group, links in groups.items()]
    return "\n".join(["| group | components |", "| --- | --- |", *rows])


def embed_gallery(markdown: str, where: str) -> str:
    """Replace the ``<!-- component-gallery -->`` line of a page by :func:`gallery_table`."""
    return GALLERY_MARKER.sub(lambda _: gallery_table(where), markdown)
