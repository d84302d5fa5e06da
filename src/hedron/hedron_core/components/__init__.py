"""All hedron components and the registry the explorer and the docs iterate.

Example:
    >>> [info.name for info in registry()][:3]
    ['Page', 'Stack', 'Row']
"""

from __future__ import annotations

from hedron_core._base import Component
from hedron_core.components._feedback import Alert, Loading, ProgressBar, Status
from hedron_core.components._forms import Button, Form, Link
from hedron_core.components._inputs import Field, Input, Select, Textarea
from hedron_core.components._layout import Card, Fragment, Page, Region, Row, Stack
from hedron_core.components._live import ComponentRef, Lazy, Poll, RefreshButton
from hedron_core.components._registry import ComponentInfo, PropInfo, describe
from hedron_core.components._table import Table
from hedron_core.components._text import Badge, Code, Heading, Text

__all__ = [
    "CATEGORIES",
    "COMPONENTS",
    "Alert",
    "Badge",
    "Button",
    "Card",
    "Code",
    "ComponentInfo",
    "ComponentRef",
    "Field",
    "Form",
    "Fragment",
    "Heading",
    "Input",
    "Lazy",
    "Link",
    "Loading",
    "Page",
    "Poll",
    "ProgressBar",
    "PropInfo",
    "RefreshButton",
    "Region",
    "Row",
    "Select",
    "Stack",
    "Status",
    "Table",
    "Text",
    "Textarea",
    "registry",
]

#: Every public component class, in the order the explorer and the docs show them.
COMPONENTS: tuple[type[Component], ...] = (
    Page,
    Stack,
    Row,
    Card,
    Fragment,
    Region,
    Text,
    Heading,
    Code,
    Badge,
    Status,
    Alert,
    Loading,
    ProgressBar,
    Button,
    Link,
    Form,
    Field,
    Input,
    Select,
    Textarea,
    Table,
    ComponentRef,
    Poll,
    Lazy,
    RefreshButton,
)


#: The docs/explorer group of each component.
CATEGORIES: dict[str, str] = {
    **dict.fromkeys(("Page", "Stack", "Row", "Card", "Fragment", "Region"), "Layout"),
    **dict.fromkeys(("Text", "Heading", "Code", "Badge"), "Text"),
    **dict.fromkeys(("Status", "Alert", "Loading", "ProgressBar"), "Feedback"),
    **dict.fromkeys(("Button", "Link"), "Actions"),
    **dict.fromkeys(("Form", "Field", "Input", "Select", "Textarea"), "Forms"),
    "Table": "Data",
    **dict.fromkeys(("ComponentRef", "Poll", "Lazy", "RefreshButton"), "Live"),
}


def registry() -> tuple[ComponentInfo, ...]:
    """Describe every component (name, docstring, props, example instance).

    The explorer page and the docs generator both iterate this.

    Example:
        >>> info = {i.name: i for i in registry()}["Poll"]
        >>> [p.name for p in info.props]
        ['ref', 'interval_ms', 'content']
    """
    return tuple(describe(cls, category=CATEGORIES[cls.__name__]) for cls in COMPONENTS)
