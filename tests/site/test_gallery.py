"""The component gallery: each page carries the Python that built its preview, the preview is
styled by hedron's own (scoped) stylesheet and inert, the hand-written guide keeps its URL."""

from __future__ import annotations

import html
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

import hedron_core
from docsite.pages import components as component_pages
from docsite.pages import gallery as component_gallery
from docsite.pages import preview_css
from docsite.testing.static_server import StaticServer
from hedron_core import render
from hedron_core.explorer import Preview

INFOS = hedron_core.registry()
NAMES = [info.name for info in INFOS]


def _page(built_site: Path, name: str) -> str:
    return (built_site / "hedron" / "components" / name.lower() / "index.html").read_text("utf-8")


def _code_text(block: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", block))


def test_every_component_has_an_example_function_that_builds_it() -> None:
    for info in INFOS:
        function = component_gallery.example_for(info.name)
        assert function is not None, component_gallery.function_name(info.name)
        source = inspect.getsource(function)
        assert f"{info.name}(" in source, info.name
        assert isinstance(function(), hedron_core.Component)
    assert component_gallery.function_name("ProgressBar") == "progress_bar_example"


@pytest.mark.parametrize("name", NAMES)
def test_each_component_page_carries_its_python_and_what_it_renders(
    built_site: Path, name: str
) -> None:
    page = _page(built_site, name)
    function = component_gallery.example_for(name)
    assert function is not None
    blocks = re.findall(
        r'<span class="filename">The Python that builds it</span>\s*<pre>(.*?)</pre>', page, re.S
    )
    assert len(blocks) == 1, name
    assert _code_text(blocks[0]).rstrip("\n") == inspect.getsource(function).rstrip("\n")
    # the preview beside it is what that very function returns, inert in its HTML
    assert component_pages.inert(render(Preview(function(), name=name))) in page
    start = page.index('<div class="hedron-preview"')
    preview = page[start : page.index("The Python that builds it", start)]
    assert not re.search(r'\s(href|action|formaction|hx-(get|post|put|patch|delete))="', preview)
    assert not re.search(r'<form\b(?![^>]*method="dialog")', preview)
    article = page.split("<article", 1)[1]
    assert article.index('class="hedron-preview"') < article.index("The Python that builds it")


def test_props_tables_show_text_escaped_once(built_site: Path) -> None:
    page = _page(built_site, "Heading")
    assert "&amp;lt;" not in page
    assert "<code>&lt;h1&gt;</code>" in page  # the docstring's ``<h1>`` … ``<h6>``
    status = _page(built_site, "Status")
    assert (
        "<code>role=&quot;status&quot;</code>" in status or '<code>role="status"</code>' in status
    )
    markdown = component_pages.component_page(next(i for i in INFOS if i.name == "Page"))
    assert "`<h1>`" in markdown.split("## Props", 1)[1]  # code spans are left to Markdown


def test_the_guide_keeps_its_own_url_and_lists_every_component(built_site: Path) -> None:
    guide = (built_site / "hedron" / "components" / "index.html").read_text("utf-8")
    assert "A hedron page is a tree of" in guide
    assert "The model" in guide
    for name in NAMES:
        assert f'href="{name.lower()}/"' in guide, name
    # listed once in the nav, apart from the gallery (a section of its own, by group)
    home = (built_site / "index.html").read_text("utf-8")
    nav = home.split("md-nav--primary", 1)[1].split("md-sidebar--secondary", 1)[0]
    labels = [
        re.sub(r"\s+", " ", label).strip()
        for label in re.findall(r'<span class="md-ellipsis">(.*?)</span>', nav, re.S)
    ]
    assert labels.count("Components") == 1
    assert labels.count("Component gallery") == 1
    gallery = labels[labels.index("Component gallery") + 1 :]
    assert gallery[0] == "Layout"  # the 26 entries are grouped, each group collapsed


def test_the_scoped_stylesheet_applies_only_inside_a_preview() -> None:
    css = preview_css.stylesheet()
    body = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    selectors = []
    for head in re.findall(r"([^{}]+)\{", body):
        head = head.strip()
        if head.startswith(("@media", "@keyframes")) or head in ("to", "from"):
            continue
        selectors += preview_css._split_selectors(head)
    assert selectors
    for selector in selectors:
        assert selector.startswith(preview_css.SCOPE), selector
    assert not re.search(r"\drem\b", body)  # lengths of a 16 px root, not the docs' root
    assert preview_css.scope_selector(".h-body", ".p") == ".p"
    assert preview_css.scope_selector(".h-body-x", ".p") == ".p .h-body-x"
    assert preview_css.scope_selector("[aria-invalid='true']", ".p") == ".p [aria-invalid='true']"


# Each interactive element hedron rendered in a preview: clicked, Enter pressed in the inputs.
INTERACTIVE = ".hedron-preview :is(a.h-link, button.h-button, input.h-input)"
STEP_MS = 20_000


@pytest.mark.browser
@pytest.mark.parametrize("javascript", [True, False], ids=["with-js", "without-js"])
def test_previews_are_styled_by_hedron_and_make_no_request_when_clicked(
    chromium: Any, built_site: Path, site_server: StaticServer, javascript: bool
) -> None:
    """Inert with the page's JavaScript, and in the HTML itself (a click before the scripts
    ran, or a reader without JavaScript)."""
    context = chromium.new_context(java_script_enabled=javascript)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    try:
        clicked = 0
        for name in NAMES:
            url = f"{site_server.url}hedron/components/{name.lower()}/"
            page.goto(url)
            page.wait_for_load_state("networkidle")
            requests.clear()
            elements = page.locator(INTERACTIVE)
            for i in range(elements.count()):
                # a bounded wait per element: one that navigated away fails fast
                element = elements.nth(i)
                if element.is_disabled(timeout=STEP_MS):
                    continue
                center = "e => e.scrollIntoView({block: 'center'})"  # clear of the header
                element.evaluate(center, timeout=STEP_MS)
                element.click(timeout=STEP_MS)
                clicked += 1
                assert page.url == url, name
                text_input = "e => e.matches('input:not([type=checkbox])')"
                if element.evaluate(text_input, timeout=STEP_MS):
                    element.press("Enter", timeout=STEP_MS)
            page.wait_for_timeout(200)  # let anything a click might have started go out
            # the page's own icon, which Chromium fetches when it gets round to it (under load,
            # after the page went idle), is no click's doing
            icon = page.evaluate("document.querySelector('link[rel~=icon]')?.href ?? ''")
            requests[:] = [url for url in requests if url != icon]
            assert requests == [], (name, requests)
            assert page.url == url, name
        assert clicked >= 12  # links, buttons (a POST one too), a submit, text inputs

        page.goto(f"{site_server.url}hedron/components/button/")
        styles = page.evaluate(
            """() => {
                const style = (sel) => getComputedStyle(document.querySelector(sel));
                return {
                    primary: style(".hedron-preview .h-primary").backgroundColor,
                    preview: style(".hedron-preview").backgroundColor,
                    heading: style("article h1").fontFamily,
                };
            }"""
        )
        assert styles["primary"] == "rgb(52, 81, 178)"  # hedron.css --h-accent
        assert styles["preview"] == "rgb(255, 255, 255)"
        assert "system-ui" not in styles["heading"]  # the docs keep their own typography
        # focus stays visible: keyboard focus on a preview button draws hedron's ring
        button = page.locator(".hedron-preview .h-primary").first
        button.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        outline = button.evaluate(
            "e => [document.activeElement === e, getComputedStyle(e).outlineStyle]"
        )
        assert outline == [True, "solid"]
    finally:
        context.close()
