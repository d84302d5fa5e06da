"""Bad input: clear TypeError/ValueError naming the component and prop, raised at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hedron import (
    Alert,
    Button,
    Card,
    ComponentRef,
    Field,
    Form,
    Heading,
    Input,
    Lazy,
    Link,
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
    render,
)

REF = ComponentRef("status", "/status")
BAD: list[tuple[Callable[[], Any], type[Exception], str]] = [
    (lambda: Text(3), TypeError, "Text.text must be a str"),
    (lambda: Heading("x", level=7), ValueError, "Heading.level"),
    (lambda: Heading("x", level=True), TypeError, "Heading.level must be an int"),
    (lambda: Status("x", tone="loud"), ValueError, "Status.tone must be one of"),
    (lambda: Status(""), ValueError, "Status.text must not be empty"),
    (lambda: Alert("x", tone="red"), ValueError, "Alert.tone"),
    (lambda: Page(Text("a"), 42), TypeError, r"Page.children\[1\] must be a Component or str"),
    (lambda: Stack(gap="huge"), ValueError, "Stack.gap"),
    (lambda: Row(None), TypeError, r"Row.children\[0\]"),
    (lambda: Card(title=""), ValueError, "Card.title must not be empty"),
    (lambda: Region(id=None), TypeError, "Region.id is required"),
    (lambda: Text("x", id="1abc"), ValueError, "Text.id must start with a letter"),
    (lambda: Text("x", id="a b"), ValueError, "Text.id"),
    (lambda: Poll(ref=REF, interval_ms=0), ValueError, "Poll.interval_ms must be >= 1"),
    (lambda: Poll(ref=REF, interval_ms=-5), ValueError, "Poll.interval_ms"),
    (lambda: Poll(ref=REF, interval_ms=1.5), TypeError, "Poll.interval_ms must be an int"),
    (lambda: Poll(ref=REF, interval_ms="100"), TypeError, "Poll.interval_ms must be an int"),
    (lambda: Poll(ref=REF, interval_ms=True), TypeError, "Poll.interval_ms must be an int"),
    (lambda: Poll(ref="/status", interval_ms=100), TypeError, "Poll.ref must be a ComponentRef"),
    (lambda: Poll(ref=REF, interval_ms=100, content=1), TypeError, "Poll.content"),
    (lambda: Lazy(ref=REF, trigger="click"), ValueError, "Lazy.trigger"),
    (lambda: RefreshButton(ref=None), TypeError, "RefreshButton.ref"),
    (lambda: ComponentRef("x", "/x", method="TRACE"), ValueError, "ComponentRef.method"),
    (lambda: ComponentRef("x y", "/x"), ValueError, "ComponentRef.logical_id"),
    (lambda: ComponentRef("x", "/x", target="#a b"), ValueError, "ComponentRef.target"),
    (lambda: ComponentRef("x", "/x", target="body > div"), ValueError, "ComponentRef.target"),
    (lambda: ComponentRef("x", "/x", target="#x[onclick]"), ValueError, "ComponentRef.target"),
    (lambda: ComponentRef("x", "/x", swap="morph"), ValueError, "ComponentRef.swap"),
    (lambda: ComponentRef("x", "/x", vals={"a": [1]}), TypeError, r"ComponentRef.vals\['a'\]"),
    (lambda: Button("x", type="image"), ValueError, "Button.type"),
    (lambda: Button("x", ref="/go"), TypeError, "Button.ref must be a ComponentRef"),
    (lambda: Link("x", href="https://evil.example"), ValueError, "Link.href"),
    (lambda: Form(action="/x", method="DELETE"), ValueError, "Form.method"),
    (lambda: Form(action="javascript:x"), ValueError, "Form.action"),
    (lambda: Input("bad name"), ValueError, "Input.name"),
    (lambda: Input("q", type="file"), ValueError, "Input.type"),
    (lambda: Textarea("t", rows=0), ValueError, "Textarea.rows"),
    (lambda: Select("s", "abc"), TypeError, "Select.options"),
    (lambda: Select("s", ["a", "a"]), ValueError, "Select.options has duplicate values"),
    (lambda: Select("s", ["a"], value="b"), ValueError, "Select.value"),
    (lambda: Select("s", [("a",)]), TypeError, r"Select.options\[0\]"),
    (lambda: Field("x", Text("y")), TypeError, "Field.control"),
    (lambda: ProgressBar(5, max=0), ValueError, "ProgressBar.max"),
    (lambda: ProgressBar(11, max=10), ValueError, "ProgressBar.value"),
    (lambda: ProgressBar(float("nan")), ValueError, "ProgressBar.value must be finite"),
    (lambda: ProgressBar("1"), TypeError, "ProgressBar.value"),
    (lambda: Table([], []), ValueError, "Table.columns must not be empty"),
    (lambda: Table(["a"], [["x", "y"]]), ValueError, r"Table.rows\[0\] has 2 cells"),
    (lambda: Table(["a"], [[{"x": 1}]]), TypeError, r"Table.rows\[0\]\[0\]"),
    (lambda: Table("ab", []), TypeError, "Table.columns"),
    (lambda: render("<p>"), TypeError, "render\\(\\) expects a Component"),
]


@pytest.mark.parametrize(("make", "exc", "message"), BAD, ids=[m for _, _, m in BAD])
def test_bad_props_raise_clear_errors(
    make: Callable[[], Any], exc: type[Exception], message: str
) -> None:
    with pytest.raises(exc, match=message):
        make()


def test_duplicate_ids_in_one_page_are_refused() -> None:
    page = Page(Text("a", id="dup"), Status("b", id="dup"))
    with pytest.raises(ValueError, match=r"Status\.id: duplicate id 'dup'"):
        render(page)
    ref = ComponentRef("status", "/s")
    twice = Page(Poll(ref=ref, interval_ms=10), Lazy(ref=ref))
    with pytest.raises(ValueError, match=r"Lazy\.ref\.logical_id: duplicate id 'status'"):
        render(twice)
