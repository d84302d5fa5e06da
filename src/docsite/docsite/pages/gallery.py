"""The component gallery's examples: one function per hedron component.

Each component page of the site shows the source of its function here, exactly as written
(``inspect.getsource``), next to what the function returns, rendered. So the Python on a
page is always the code that produced the preview beside it. The function for a component
is named after it in snake case with ``_example`` (``ProgressBar`` → ``progress_bar_example``);
the test suite checks that every registered component has one.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hedron_core import Component


def page_example() -> Component:
    from hedron import Page, Text

    return Page(Text("Welcome back."), title="Dashboard")


def stack_example() -> Component:
    from hedron import Stack, Status, Text

    return Stack(
        Status("Importing…"),
        Text("1,024 of 4,096 rows so far."),
        Text("You can leave this page.", muted=True),
        gap="sm",
    )


def row_example() -> Component:
    from hedron import Badge, Button, Row, Text

    return Row(
        Text("Import #8"), Badge("running", tone="info"), Button("Details", variant="secondary")
    )


def card_example() -> Component:
    from hedron import Card, ProgressBar, Text

    return Card(
        ProgressBar(42, max=100, label="Rows"),
        Text("You can leave this page; the import keeps running.", muted=True),
        title="Import",
    )


def fragment_example() -> Component:
    from hedron import Fragment, Status, Text

    # No wrapper element: a handler can answer several siblings at once.
    return Fragment(Status("Saved.", tone="success"), Text("Your changes are live."))


def region_example() -> Component:
    from hedron import Region, Text

    return Region(Text("Results appear here."), id="results", label="Search results", live=True)


def text_example() -> Component:
    from hedron import Stack, Text

    return Stack(
        Text("Your report is being prepared."),
        Text("It usually takes under a minute.", muted=True),
    )


def heading_example() -> Component:
    from hedron import Heading, Stack

    return Stack(Heading("Monthly report"), Heading("March", level=3), gap="sm")


def code_example() -> Component:
    from hedron import Code, Stack, Text

    return Stack(
        Text("The worker's last lines:"),
        Code("step 1/3: fetching\nstep 2/3: parsing"),
        Code("job-7", block=False),
    )


def badge_example() -> Component:
    from hedron import Badge, Row

    return Row(
        Badge("queued"),
        Badge("running", tone="info"),
        Badge("succeeded", tone="success"),
        Badge("cancelling", tone="warning"),
        Badge("failed", tone="error"),
        gap="sm",
    )


def status_example() -> Component:
    from hedron import Stack, Status

    return Stack(
        Status("Queued…"),
        Status("Export finished.", tone="success"),
        Status("Cancelling…", tone="warning"),
        gap="sm",
    )


def alert_example() -> Component:
    from hedron import Alert, Stack

    return Stack(
        Alert("Your export is ready to download.", tone="success", title="Export ready"),
        Alert("The export failed: quota exceeded.", tone="error", title="Export failed"),
    )


def loading_example() -> Component:
    from hedron import Loading

    return Loading("Fetching results…")


def progress_bar_example() -> Component:
    from hedron import ProgressBar, Stack

    return Stack(
        ProgressBar(42, max=100, label="Import"),
        ProgressBar(None, label="Waiting for a worker"),  # indeterminate
    )


def button_example() -> Component:
    from hedron import Button, ComponentRef, Row

    export = ComponentRef("export", "/export", method="POST")  # sends a POST when clicked
    return Row(
        Button("Start export", ref=export),
        Button("Preview", variant="secondary"),
        Button("Delete", variant="danger"),
        Button("Archived", disabled=True),
    )


def link_example() -> Component:
    from hedron import Link

    return Link("All jobs", href="/jobs")


def form_example() -> Component:
    from hedron import Button, Field, Form, Input

    return Form(
        Field("Email", Input("email", type="email", required=True)),
        Button("Subscribe", type="submit"),
        action="/subscribe",
    )


def field_example() -> Component:
    from hedron import Field, Input, Stack

    return Stack(
        Field("Email", Input("email", type="email"), help="We never share it."),
        Field("Name", Input("name", value=""), error="Please enter your name."),
    )


def input_example() -> Component:
    from hedron import Field, Input, Stack

    # an Input inside a Field gets its label (a bare one has no accessible name)
    return Stack(
        Field("Email", Input("email", type="email", placeholder="you@example.org", required=True)),
        Field("Send me the newsletter", Input("newsletter", type="checkbox", checked=True)),
        gap="sm",
    )


def select_example() -> Component:
    from hedron import Field, Select

    return Field("Format", Select("format", [("csv", "CSV"), ("xlsx", "Excel")], value="csv"))


def textarea_example() -> Component:
    from hedron import Field, Textarea

    return Field("Notes", Textarea("notes", value="First line", rows=3))


def table_example() -> Component:
    from hedron import Badge, Table

    return Table(
        ["Job", "State", "Rows"],
        [
            ["import-7", Badge("succeeded", tone="success"), 1024],
            ["import-8", Badge("running", tone="info"), None],
        ],
        caption="Recent imports",
    )


def component_ref_example() -> Component:
    from hedron import ComponentRef

    # Rendered on its own: an empty element that loads /jobs/7/status once.
    return ComponentRef("job-status", "/jobs/7/status")


def poll_example() -> Component:
    from hedron import ComponentRef, Poll, Status

    ref = ComponentRef("job-status", "/jobs/7/status")
    return Poll(ref=ref, interval_ms=2000, content=Status("Queued…"))


def lazy_example() -> Component:
    from hedron import ComponentRef, Lazy

    return Lazy(ref=ComponentRef("report", "/report"), trigger="revealed")


def refresh_button_example() -> Component:
    from hedron import ComponentRef, RefreshButton

    return RefreshButton(ref=ComponentRef("stats", "/stats"), label="Refresh the numbers")


def function_name(component: str) -> str:
    """The name of ``component``'s example function (``ProgressBar`` → ``progress_bar_example``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", component).lower() + "_example"


def example_for(component: str) -> Callable[[], Component] | None:
    """``component``'s example function, or ``None`` when this module has none."""
    found = globals().get(function_name(component))
    return found if callable(found) else None
