"""One generated page per hedron component, from ``hedron_core.registry()``.

Each page shows the component's summary, its props (from the signature and the ``Args:``
section of the docstring), the HTML its example instance renders to (``hedron_core.render``)
and a preview of that HTML. Nothing is written by hand: adding a component to the registry
adds its page.
"""

from __future__ import annotations

import html
import inspect
import re
from typing import Any

from griffe_examples import plain_roles

FOLDER = "hedron/components"


def _registry() -> tuple[Any, ...]:
    try:
        import hedron_core
    except ImportError:
        return ()
    registry = getattr(hedron_core, "registry", None)
    return tuple(registry()) if callable(registry) else ()


def _cell(text: str) -> str:
    return html.escape(plain_roles(text)).replace("|", "&#124;").replace("\n", " ")


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
    return plain_roles(inspect.cleandoc("\n".join(lines)))


def component_page(info: Any, render: Any) -> str:
    """Markdown of one component page."""
    out = [f"# {info.name}", "", info.summary, ""]
    description = _description(info.doc)
    if description:
        out += [description, ""]
    out += ["## Props", "", "| Prop | Type | Default | Description |", "| --- | --- | --- | --- |"]
    for prop in info.props:
        default = "required" if prop.required else (prop.default or "")
        out.append(
            f"| `{_code_cell(prop.name)}` | `{_code_cell(prop.annotation)}` | {_cell(default)} |"
            f" {_cell(prop.description)} |"
        )
    markup = render(info.example)
    out += ["", "## Example", "", f"`{info.name}.example()` renders to:", ""]
    out += ["```html", markup, "```", ""]
    out += ["Preview (htmx is not active on this page):", ""]
    preview = markup
    if re.match(r"<(input|select|textarea)\b", markup):
        # a bare control has no name of its own (a Field gives it one): label the preview
        preview = f"<label>{html.escape(info.name)} (example) {markup}</label>"
    out += [f'<div class="hedron-preview" hx-disable markdown="0">{preview}</div>', ""]
    module = info.cls.__module__.split("._")[0]
    ref = "../../reference/hedron_core.md"
    out += [f"API: `{module}.{info.name}`, see the [API reference]({ref})."]
    return "\n".join(out) + "\n"


def pages() -> dict[str, str]:
    """``{"hedron/components/<name>.md": markdown}`` for every registered component."""
    infos = _registry()
    if not infos:
        return {}
    from hedron_core import render

    out = {f"{FOLDER}/{info.name.lower()}.md": component_page(info, render) for info in infos}
    rows = [f"| [{i.name}]({i.name.lower()}.md) | {_cell(i.summary)} |" for i in infos]
    out[f"{FOLDER}/index.md"] = "\n".join(
        [
            "# Components",
            "",
            "Every hedron component, generated from the component registry",
            "(`hedron_core.registry()`): props, an example and the HTML it renders.",
            "",
            "| Component | Summary |",
            "| --- | --- |",
            *rows,
            "",
        ]
    )
    return out
