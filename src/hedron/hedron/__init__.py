"""hedron: FastAPI-native HTML/HTMX components with durable jobs.

Example:
    >>> from hedron import ComponentRef, Hedron, Page, Poll, Status, Text  # doctest: +SKIP
"""

from hedron._app import Hedron
from hedron.jobs import JobScope, PollPolicy, TaskFlow
from hedron.responses import fragment
from hedron_core import (
    STOP_POLLING_STATUS,
    Alert,
    Badge,
    Button,
    Card,
    Code,
    Component,
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
    TrustedURL,
    render,
)

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
    "Hedron",
    "Input",
    "JobScope",
    "Lazy",
    "Link",
    "Loading",
    "Page",
    "Poll",
    "PollPolicy",
    "ProgressBar",
    "RefreshButton",
    "Region",
    "Row",
    "Select",
    "Stack",
    "Status",
    "Table",
    "TaskFlow",
    "Text",
    "Textarea",
    "TrustedURL",
    "fragment",
    "render",
]
