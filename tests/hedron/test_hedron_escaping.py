"""Fuzzing the serializer: nothing unescaped ever reaches the output."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hedron import (
    Alert,
    Badge,
    Card,
    Code,
    ComponentRef,
    Field,
    Input,
    Link,
    Page,
    Poll,
    Select,
    Status,
    Table,
    Text,
    Textarea,
    TrustedURL,
    render,
)
from hedron_core._html import URL_ATTRIBUTES, check_url, element, escape_attr, escape_text

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Text that likes to break HTML: markup characters mixed with everything else.
_PIECES = st.one_of(
    st.sampled_from(
        [
            *list("<>&\"'`=/ \t\n;:!-"),
            "<script>",
            "</p>",
            "&amp;",
            "&#60;",
            "javascript:",
            "onerror=",
            '"><img src=x>',
        ]
    ),
    st.text(min_size=1, max_size=3),
)
nasty = (
    st.lists(_PIECES, min_size=1, max_size=12)
    .map("".join)
    .filter(lambda s: s.strip() and _CONTROL.sub("", s).strip())
)


class Collector(HTMLParser):
    """Collects tags, attributes and text (entities decoded) as a browser tokenizer would."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(html: str) -> Collector:
    collector = Collector()
    collector.feed(html)
    collector.close()
    return collector


def assert_safe(html: str, allowed_tags: set[str]) -> Collector:
    parsed = parse(html)
    assert set(parsed.tags) <= allowed_tags, html
    for name, value in parsed.attrs:
        assert not name.startswith("on"), html
        if name in URL_ATTRIBUTES and value is not None:
            assert value.startswith("/"), html
            assert not value.startswith("//"), html
    return parsed


@settings(max_examples=100, deadline=None)
@given(nasty)
def test_text_props_come_back_verbatim_and_add_no_markup(value: str) -> None:
    clean = _CONTROL.sub("", value)
    for component, tags in [
        (Text(value), {"p"}),
        (Status(value), {"div"}),
        (Badge(value), {"span"}),
        (Code(value), {"pre", "code"}),
        (Alert(value), {"div", "p"}),
    ]:
        parsed = assert_safe(render(component), tags)
        assert "".join(parsed.text) == clean


@settings(max_examples=100, deadline=None)
@given(nasty, nasty)
def test_attribute_values_stay_inside_their_attribute(value: str, label: str) -> None:
    clean = _CONTROL.sub("", value)
    html = render(Field(label, Input("q", value=value, placeholder=value)))
    parsed = assert_safe(html, {"div", "label", "input", "p"})
    assert ("value", clean) in parsed.attrs
    assert ("placeholder", clean) in parsed.attrs
    assert len(parsed.tags) == 3  # div, label, input: nothing injected


@settings(max_examples=100, deadline=None)
@given(nasty, nasty)
def test_select_table_card_textarea(value: str, other: str) -> None:
    html = render(
        Page(
            Card(Textarea("t", value=value), title=other),
            Select("s", [(value, other)], value=value),
            Table([other], [[value]], caption=value),
            title=value,
        )
    )
    parsed = assert_safe(
        html,
        {
            "main",
            "h1",
            "section",
            "h2",
            "textarea",
            "select",
            "option",
            "table",
            "caption",
            "thead",
            "tbody",
            "tr",
            "th",
            "td",
        },
    )
    assert _CONTROL.sub("", value) in "".join(parsed.text)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=30))
def test_check_url_accepts_only_root_relative(value: str) -> None:
    try:
        result = check_url(value, where="X.href")
    except ValueError:
        return
    assert result == value
    assert value.strip().startswith("/")
    assert not value.strip().startswith("//")
    assert "\\" not in value


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "//evil.example/x",
        "https://evil.example/",
        "data:text/html,x",
        "/\\evil",
        "jobs/1",
        "",
        " /x",
        "/a b",
        "\\\\host/x",
    ],
)
def test_unsafe_urls_are_refused_everywhere(url: str) -> None:
    with pytest.raises(ValueError, match=r"Link\.href"):
        Link("x", href=url)
    with pytest.raises(ValueError, match=r"ComponentRef\.path"):
        ComponentRef("x", url)


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "JavaScript:x", "data:text/html,x", "vbscript:x"]
)
def test_trusted_url_still_refuses_script_schemes(url: str) -> None:
    with pytest.raises(ValueError, match="forbidden URL scheme"):
        Link("x", href=TrustedURL(url))


def test_trusted_url_allows_absolute_links() -> None:
    html = render(Link("Docs", href=TrustedURL("https://example.org/a?b=1&c=2")))
    assert html == '<a class="h-link" href="https://example.org/a?b=1&amp;c=2">Docs</a>'


@pytest.mark.parametrize(
    "name", ["onclick", "onload", "style", "hx-on:click", "hx-on--load", "a b", 'x"y', "1a", ""]
)
def test_forbidden_attribute_names(name: str) -> None:
    with pytest.raises(ValueError, match="attribute"):
        element("div", {name: "x"})


@pytest.mark.parametrize("tag", ["script", "style", "iframe", "object", "base", "a b", "DIV"])
def test_forbidden_tags(tag: str) -> None:
    with pytest.raises(ValueError, match="tag"):
        element(tag)


def test_escape_functions() -> None:
    assert escape_text("<a href='x'>&</a>") == "&lt;a href='x'&gt;&amp;&lt;/a&gt;"
    assert escape_attr("\"'<>&`") == "&quot;&#x27;&lt;&gt;&amp;&#x60;"
    assert escape_text("a\x00b\x1fc") == "abc"


def test_poll_content_string_is_escaped() -> None:
    html = render(Poll(ref=ComponentRef("p", "/p"), interval_ms=5, content="<b>x</b>"))
    assert "&lt;b&gt;x&lt;/b&gt;" in html
    assert "<b>" not in html
