"""Exact rendering (snapshot-like strings), stable ids, immutability, the registry."""

from __future__ import annotations

import doctest
import importlib
import re

import pytest

import hedron_core
from hedron import (
    Alert,
    Button,
    ComponentRef,
    Field,
    Form,
    Input,
    Lazy,
    Page,
    Poll,
    ProgressBar,
    RefreshButton,
    Select,
    Stack,
    Status,
    Table,
    Text,
    render,
)
from hedron_core.components import COMPONENTS, registry
from hedron_core.document import render_document
from hedron_core.htmx import HTMX_CONFIG, STOP_POLLING_STATUS

STATUS_QUEUED = '<div class="h-status h-tone-info" role="status" aria-live="polite">Queued…</div>'


def test_stop_polling_status_is_286() -> None:
    assert STOP_POLLING_STATUS == 286


def test_seed_page_renders_exactly() -> None:
    ref = ComponentRef(logical_id="job-status", path="/jobs/abc/status", method="GET")
    page = Page(
        Text("Job abc"), Poll(ref=ref, interval_ms=2000, content=Status("Queued…")), title="Jobs"
    )
    assert render(page) == (
        '<main class="h-page" id="hedron-main"><h1 class="h-page-title">Jobs</h1>'
        '<p class="h-text">Job abc</p>'
        '<div id="job-status" class="h-poll" hx-get="/jobs/abc/status" hx-target="this" '
        'hx-swap="innerHTML" hx-trigger="every 2000ms" hx-sync="this:drop">'
        f"{STATUS_QUEUED}</div></main>"
    )


@pytest.mark.parametrize(
    ("component", "expected"),
    [
        (
            Status("Failed", tone="error"),
            '<div class="h-status h-tone-error" role="status" aria-live="polite">Failed</div>',
        ),
        (
            Alert("Careful", tone="warning", title="Heads up"),
            '<div class="h-alert h-tone-warning" '
            'role="alert"><strong class="h-alert-title">Heads up</strong><p>Careful</p></div>',
        ),
        (
            ProgressBar(None, label="Wait"),
            '<div class="h-progress"><label for="h-progress-1">'
            'Wait</label><progress id="h-progress-1" max="100">…</progress></div>',
        ),
        (
            ProgressBar(0.5, max=2),
            '<div class="h-progress"><label for="h-progress-1">Progress'
            '</label><progress id="h-progress-1" max="2" value="0.5">0.5/2</progress></div>',
        ),
        (
            Button("Go", ref=ComponentRef("out", "/go", method="post"), variant="danger"),
            '<button type="button" class="h-button h-danger" hx-post="/go" hx-target="#out" '
            'hx-swap="innerHTML">Go</button>',
        ),
        (
            Button("Off", disabled=True),
            '<button type="button" class="h-button h-primary" disabled>Off</button>',
        ),
        (
            Lazy(ref=ComponentRef("r", "/r", swap="outerHTML"), trigger="revealed"),
            '<div id="r" class="h-lazy" hx-get="/r" hx-target="this" hx-swap="outerHTML" '
            'hx-trigger="revealed"><div class="h-loading" role="status" aria-busy="true">'
            '<span class="h-spinner" aria-hidden="true"></span>Loading…</div></div>',
        ),
        (
            RefreshButton(ref=ComponentRef("s", "/s", target="closest .h-card")),
            '<button type="button" class="h-button h-secondary" hx-get="/s" '
            'hx-target="closest .h-card" hx-swap="innerHTML">Refresh</button>',
        ),
        (
            ComponentRef("w", "/w", vals={"b": 2, "a": "x"}),
            '<div id="w" class="h-ref" hx-get="/w" hx-target="this" hx-swap="innerHTML" '
            'hx-vals="{&quot;a&quot;:&quot;x&quot;,&quot;b&quot;:2}" hx-trigger="load"></div>',
        ),
        (
            Field("Size", Select("size", ["S", "M"]), error="Pick one"),
            '<div class="h-field"><label for="h-field-1">Size</label><select class="h-select" '
            'id="h-field-1" name="size" aria-describedby="h-field-1-note" aria-invalid="true">'
            '<option value="S">S</option><option value="M">M</option></select>'
            '<p class="h-field-error" id="h-field-1-note">Pick one</p></div>',
        ),
        (
            Table(["a", "b"], [[1, None], [Text("t"), 2.5]]),
            '<table class="h-table"><thead><tr><th scope="col">a</th><th scope="col">b</th></tr>'
            '</thead><tbody><tr><td>1</td><td></td></tr><tr><td><p class="h-text">t</p></td>'
            "<td>2.5</td></tr></tbody></table>",
        ),
    ],
)
def test_component_snapshots(component: hedron_core.Component, expected: str) -> None:
    assert render(component) == expected


def test_generated_ids_are_stable_and_distinct_within_a_render() -> None:
    page = Page(Field("A", Input("a")), Field("B", Input("b")), ProgressBar(1), ProgressBar(2))
    first = render(page)
    assert first == render(page)  # deterministic: same tree, same ids
    for expected in ('id="h-field-1"', 'id="h-field-2"', 'id="h-progress-3"', 'id="h-progress-4"'):
        assert expected in first


def test_generated_ids_skip_explicit_ones() -> None:
    html = render(Stack(Input("x", id="h-field-1"), Field("Y", Input("y"))))
    assert 'id="h-field-2"' in html


def test_form_embeds_csrf_token_only_for_post() -> None:
    post = Form(Input("q"), action="/find")
    get = Form(Input("q"), action="/find", method="get")
    assert 'name="csrf_token" value="tok"' in render(post, csrf_token="tok")
    assert "csrf_token" not in render(get, csrf_token="tok")
    assert "csrf_token" not in render(post)  # no token outside a request


def test_components_are_immutable_and_compare_by_props() -> None:
    text = Text("a")
    with pytest.raises(AttributeError, match="immutable"):
        text.text = "b"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        del text.text
    assert Text("a") == text
    assert Text("b") != text
    assert hash(Text("a")) == hash(text)
    assert repr(text) == "Text(text='a', muted=False, id=None)"


def test_document_shell_has_no_inline_script_or_style() -> None:
    html = render_document(Page(Text("x")), title="Doc", csrf_token="t" * 43)
    assert html.startswith('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">')
    assert "<title>Doc</title>" in html
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", html)
    assert scripts == ["", ""]  # both from files, no inline code
    assert '<script src="/_hedron/static/vendor/htmx.min.js" defer></script>' in html
    assert '<script src="/_hedron/static/hedron.js" defer></script>' in html
    assert "<style" not in html
    assert "style=" not in html
    assert 'hx-headers="{&quot;X-CSRF-Token&quot;:&quot;' + "t" * 43 in html
    assert HTMX_CONFIG["allowEval"] is False
    assert HTMX_CONFIG["selfRequestsOnly"] is True


def test_registry_lists_every_component_with_docs_props_and_example() -> None:
    infos = registry()
    assert len(infos) >= 20
    assert [i.cls for i in infos] == list(COMPONENTS)
    for info in infos:
        assert info.summary, info.name
        assert "Example:" in info.doc, info.name
        assert isinstance(info.example, info.cls)
        render(info.example)  # every example renders
        for prop in info.props:
            assert prop.description, f"{info.name}.{prop.name} has no Args: entry"
    poll = {i.name: i for i in infos}["Poll"]
    assert [(p.name, p.required) for p in poll.props] == [
        ("ref", True),
        ("interval_ms", True),
        ("content", False),
    ]


MODULES = [
    "_html",
    "_base",
    "htmx",
    "security",
    "document",
    "explorer",
    "components",
    "components._text",
    "components._layout",
    "components._feedback",
    "components._forms",
    "components._inputs",
    "components._live",
    "components._table",
    "components._registry",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(f"hedron_core.{name}")
    globs = {n: getattr(hedron_core, n) for n in hedron_core.__all__}
    result = doctest.testmod(module, extraglobs=globs, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
