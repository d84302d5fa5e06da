"""hedron_core: the host-neutral core of hedron (components, rendering, security policy).

Pure Python with no web-framework import, so it renders the same under CPython and Pyodide.

Example:
    >>> from hedron_core import Status, render
    >>> render(Status("Queued…"))
    '<div class="h-status h-tone-info" role="status" aria-live="polite">Queued…</div>'
"""

from hedron_core._base import Component, RenderContext, render
from hedron_core._html import Html, TrustedURL, element, escape_attr, escape_text
from hedron_core.components import (
    Alert,
    Badge,
    Button,
    Card,
    Code,
    ComponentRef,
    Field,
    Form,
    Fragment,
    Heading,
    Input,
    Lazy,
    Link,
    Loading,
    Page,
    Poll,
    ProgressBar,
    RefreshButton,
    Region,
    Row,
    Select,
    Stack,
    Status,
    Table,
    Text,
    Textarea,
    registry,
)
from hedron_core.document import render_document
from hedron_core.htmx import STOP_POLLING_STATUS

__version__ = "1.2.0"

__all__ = [
    "STOP_POLLING_STATUS",
    "Alert",
    "Badge",
    "Button",
    "Card",
    "Code",
    "Component",
    "ComponentRef",
    "Field",
    "Form",
    "Fragment",
    "Heading",
    "Html",
    "Input",
    "Lazy",
    "Link",
    "Loading",
    "Page",
    "Poll",
    "ProgressBar",
    "RefreshButton",
    "Region",
    "RenderContext",
    "Row",
    "Select",
    "Stack",
    "Status",
    "Table",
    "Text",
    "Textarea",
    "TrustedURL",
    "element",
    "escape_attr",
    "escape_text",
    "registry",
    "render",
    "render_document",
]
