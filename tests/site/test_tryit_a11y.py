"""The "Try it" widget for every reader: without JavaScript, with a screen reader, with a
keyboard, in both palettes. Headless Chromium against the built site; axe-core (pinned,
fetched from npm into the cache, injected from that file: ``tests/_support/axe.py``) on every
page that has a widget or a component preview, light and dark, idle and at work."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docsite.testing.static_server import StaticServer
from tests._support import axe, tryit_visit
from tests._support.tryit_visit import IDLE, LOAD_MS, Visit, committed
from tryit.recipe import load_recipes

pytestmark = pytest.mark.browser

SCHEMES = ["light", "dark"]
# The recipes with a widget (a [real] recipe's page shows a real run instead).
TITLES = {r.name: r.title for r in load_recipes() if r.in_browser}

# Live regions (not turned off) in a document, or in part of it.
LIVE = (
    '[aria-live]:not([aria-live="off"]), [role="status"]:not([aria-live="off"]),'
    ' [role="alert"]:not([aria-live="off"]), [role="log"]:not([aria-live="off"])'
)
LIVE_REGIONS = f"""(root) => [...root.querySelectorAll('{LIVE}')]
  .map((el) => el.className || el.tagName)"""
# `main` landmarks of the page's own document, and any inside a widget outside frames.
MAINS = """() => [document.querySelectorAll("main, [role=main]").length,
  document.querySelectorAll(".tryit main, .tryit [role=main]").length]"""


def _pages(site: Path) -> list[str]:
    """Every page with a widget or a component preview."""
    pages = []
    for path in sorted(site.rglob("index.html")):
        text = path.read_text(encoding="utf-8")
        if 'class="tryit"' in text or 'class="hedron-preview"' in text:
            pages.append(path.parent.relative_to(site).as_posix() + "/")
    return pages


@pytest.fixture(scope="module")
def visit(chromium: Any, site_server: StaticServer, built_site: Path) -> Iterator[Visit]:
    with Visit(chromium, site_server.url) as v:
        yield v


def _idle(visit: Visit) -> None:
    visit.page.wait_for_function(
        f"() => ({IDLE})(document.querySelector('.tryit'))", timeout=LOAD_MS
    )


def test_without_javascript_the_widget_says_so_and_shows_the_record(
    chromium: Any, site_server: StaticServer, built_site: Path
) -> None:
    name = "resq-async-poll"
    with Visit(chromium, site_server.url, java_script_enabled=False) as visit:
        visit.page.goto(f"{site_server.url}recipes/{name}/")
        widget = visit.widget()
        assert "needs JavaScript" in widget.locator(".tryit__status").inner_text()
        assert "loads on the first click" not in widget.inner_text()  # no promise it can't keep
        assert widget.locator("button").count() == 5
        assert not [b for b in widget.locator("button").all() if b.is_visible()]
        recorded = visit.page.locator("details.tryit-recorded")
        assert recorded.get_attribute("open") is not None
        assert recorded.locator("code").inner_text().splitlines() == committed(name)
        assert recorded.locator("code").is_visible()
    # with JavaScript: the buttons, the promise, the record folded away
    with Visit(chromium, site_server.url) as visit:
        visit.goto(f"recipes/{name}/")
        widget = visit.widget()
        assert "loads on the first click" in widget.locator(".tryit__status").inner_text()
        visible = [b.inner_text() for b in widget.locator("button").all() if b.is_visible()]
        assert visible == ["Step", "Run to end", "Reset", "Edit"]
        assert visit.page.locator("details.tryit-recorded").get_attribute("open") is None


def test_every_widget_is_a_region_named_after_its_recipe(visit: Visit) -> None:
    """Every recipe's page loaded afresh (the axe checks below reach most pages by following
    a link)."""
    for name, title in TITLES.items():
        visit.goto(f"recipes/{name}/")
        region = visit.page.get_by_role("region", name=f"Try it: {title}")
        assert region.count() == 1, name
        assert region.get_attribute("data-tryit") == name


def test_one_live_region_announces_each_step_once(visit: Visit) -> None:
    name = "resq-async-poll"
    expected = committed(name)
    visit.goto(f"recipes/{name}/")
    assert visit.page.evaluate(LIVE_REGIONS, visit.widget().element_handle()) == ["tryit__live"]
    visit.page.evaluate(tryit_visit.RECORD_ANNOUNCEMENTS)
    visit.click("step", timeout=LOAD_MS)
    said = visit.page.evaluate("globalThis.__said")
    assert said == ["Loading the Python runtime…", f"{expected[0]} Paused after request 1."]
    visit.click("step")
    said = visit.page.evaluate("globalThis.__said")
    assert said[2:] == [f"{expected[1]} Paused after request 2."]  # once
    # Run to end: a summary, not every line
    visit.click("run")
    said = visit.page.evaluate("globalThis.__said")[3:]
    assert len(said) == 1
    assert said[0].startswith("Ran to the end: 4 requests. Stopped (done: terminal state")
    assert expected[3] not in said[0]
    visit.click("reset")
    assert visit.page.evaluate("globalThis.__said")[4:] == ["Reset."]


def test_a_hedron_demo_adds_no_live_region_and_no_main_landmark(visit: Visit) -> None:
    visit.goto("recipes/jobs-poll/")
    visit.click("run", timeout=LOAD_MS)
    assert visit.transcript() == committed("jobs-poll")
    app = visit.widget().frame_locator(".tryit__panel iframe")
    assert "Done." in app.locator("body").inner_text()  # the app's own page, finished ...
    # ... without announcing each step a second time (its frame: another origin, seen through
    # the browser's debugger), and without a second `main`
    assert visit.page.evaluate(LIVE_REGIONS, visit.widget().element_handle()) == ["tryit__live"]
    assert app.locator('[role="status"]').count() > 0  # hedron's status regions are there ...
    assert app.locator(LIVE).count() == 0  # ... and quiet
    assert visit.page.evaluate(MAINS) == [1, 0]


def test_a_long_transcript_scrolls_and_is_reached_by_keyboard(visit: Visit) -> None:
    name = "resq-exhaustion"
    visit.goto(f"recipes/{name}/")
    visit.click("run", timeout=LOAD_MS)
    assert visit.transcript() == committed(name)
    listing = visit.widget().locator(".tryit__transcript")
    assert listing.evaluate("el => el.scrollHeight > el.clientHeight + 10")
    # the newest line is scrolled into view, smoothly: wait until the list is at its end
    # (within its bottom padding, less than a line)
    visit.page.wait_for_function(
        "el => el.scrollTop > 0 && el.scrollHeight - el.clientHeight - el.scrollTop < 8",
        arg=listing.element_handle(),
    )
    visit.button("edit").focus()  # the bar's last button (the editor is folded away)
    visit.page.keyboard.press("Tab")
    assert listing.evaluate("el => el === document.activeElement")
    assert listing.evaluate("el => el.matches(':focus-visible')")
    before = listing.evaluate("el => el.scrollTop")
    visit.page.keyboard.press("Home")
    visit.page.wait_for_function(
        "() => document.querySelector('.tryit__transcript').scrollTop === 0"
    )
    assert before > 0


def _rgb(css: str) -> tuple[float, float, float, float]:
    values = [float(v) for v in re.findall(r"[\d.]+", css)]
    return values[0], values[1], values[2], values[3] if len(values) > 3 else 1.0


def _over(top: str, below: str) -> tuple[float, float, float]:
    r, g, b, a = _rgb(top)
    br, bg, bb, _ = _rgb(below)
    return r * a + br * (1 - a), g * a + bg * (1 - a), b * a + bb * (1 - a)


def _contrast(one: tuple[float, ...], two: tuple[float, ...]) -> float:
    def luminance(rgb: tuple[float, ...]) -> float:
        channels = [c / 255 for c in rgb[:3]]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(one), luminance(two)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


COLOURS = """() => {
  const widget = document.querySelector(".tryit");
  const style = (el, pseudo) => getComputedStyle(el, pseudo);
  const step = document.activeElement;
  return {
    scheme: document.body.getAttribute("data-md-color-scheme"),
    page: style(document.body).backgroundColor,
    widget: style(widget).backgroundColor,
    focusVisible: step.matches(":focus-visible"),
    outline: style(step).outlineColor,
    outlineWidth: style(step).outlineWidth,
    marker: style(widget.querySelector(".tryit__transcript li"), "::marker").color,
    markerType: style(widget.querySelector(".tryit__transcript")).listStyleType,
    indent: parseFloat(style(widget.querySelector(".tryit__transcript")).paddingLeft)
      / parseFloat(style(widget.querySelector(".tryit__transcript")).fontSize),
  };
}"""


@pytest.mark.parametrize("scheme", SCHEMES)
def test_focus_ring_and_list_numbers_are_visible_in_both_palettes(
    chromium: Any, site_server: StaticServer, built_site: Path, scheme: str
) -> None:
    with Visit(chromium, site_server.url, color_scheme=scheme) as visit:
        visit.context.route("**/pyodide.mjs", lambda route: route.abort())  # the record is shown
        visit.goto("recipes/resq-exhaustion/")
        visit.click("step")
        assert visit.state() == "fallback"
        visit.button("retry").focus()
        visit.page.keyboard.press("Tab")  # to Reset, by keyboard: the focus ring shows
        assert visit.page.evaluate("document.activeElement.dataset.action") == "reset"
        colours = visit.page.evaluate(COLOURS)
        assert colours["scheme"] == ("slate" if scheme == "dark" else "default")
        background = _over(colours["widget"], colours["page"])
        assert colours["focusVisible"]
        assert colours["outlineWidth"] == "2px"
        assert _contrast(_over(colours["outline"], colours["widget"]), background) >= 3
        assert colours["markerType"] == "decimal"
        assert colours["indent"] >= 3  # room for "21."
        assert _contrast(_over(colours["marker"], colours["widget"]), background) >= 4.5


# The theme's header, navigation and footer are the same on every page: checked whole on one
# page of each kind, in the palette the reader's system asks for.
WHOLE_PAGES = ["recipes/taskflow/", "hedron/components/poll/", "resq/polling/"]


def _open(visit: Visit, path: str) -> None:
    visit.goto(path)
    if visit.page.locator(".tryit").count():
        visit.page.wait_for_selector(".tryit[data-state='idle']")


PALETTE = "document.body.dataset.mdColorScheme"


def _switch_palette(visit: Visit) -> str:
    """The theme's own toggle, clicked as a reader does: it restyles the page in place (and
    the theme keeps the choice for the next page). The palette now shown."""
    before = visit.page.evaluate(PALETTE)
    visit.page.locator("[data-md-component=palette] label:visible").click()
    visit.page.wait_for_function(f"(before) => {PALETTE} !== before", arg=before)
    return str(visit.page.evaluate(PALETTE))


def _check_content(visit: Visit, paths: list[str], found: dict[Any, Any]) -> Iterator[None]:
    """One tab's share of the pages: each page's content, in the palette it arrives in and in
    the other one. The first page is loaded, the others are reached by following a link (the
    theme's instant navigation: axe, already in the page, checks each one warm). Pauses
    (yields) while axe runs, so that the other tab can go on."""
    for index, path in enumerate(paths):
        if index:
            visit.navigate(path)
        else:
            _open(visit, path)
        palettes = []
        for turn in range(2):
            palettes.append(_switch_palette(visit) if turn else visit.page.evaluate(PALETTE))
            axe.start(visit.page, within=".md-content")
            yield
            if violations := axe.result(visit.page):
                found[path, palettes[-1]] = violations
        assert sorted(palettes) == ["default", "slate"], path


# The pages are checked in parts, each a test of its own (and so within its own time bound:
# on a busy two-core machine all of them in one test took over five minutes).
PARTS = 4


def test_the_axe_parts_cover_every_page_with_a_widget_or_a_component_preview(
    built_site: Path,
) -> None:
    pages = _pages(built_site)
    assert {p for p in pages if p.startswith("recipes/")} == {f"recipes/{n}/" for n in TITLES}
    assert [p for p in pages if p.startswith("hedron/components/")]
    assert set(WHOLE_PAGES) <= set(pages)
    parts = [pages[part::PARTS] for part in range(PARTS)]
    assert sorted(p for part in parts for p in part) == pages
    assert all(parts)


@pytest.mark.parametrize("part", range(PARTS))
def test_axe_on_every_page_with_a_widget_or_a_component_preview(
    chromium: Any, site_server: StaticServer, built_site: Path, part: int
) -> None:
    """Each page's content, widgets and previews (their frames too), in both palettes: as the
    page arrives, and again after the theme's toggle (so the tab's next page arrives in the
    other one). Two tabs take turns, each checking while the other loads or is checked."""
    pages = _pages(built_site)[part::PARTS]
    found: dict[Any, Any] = {}
    with (
        Visit(chromium, site_server.url, color_scheme="light") as one,
        Visit(chromium, site_server.url, color_scheme="dark") as two,
    ):
        tabs = [
            _check_content(one, pages[0::2], found),
            _check_content(two, pages[1::2], found),
        ]
        while tabs:
            tabs = [tab for tab in tabs if next(tab, StopIteration) is not StopIteration]
    assert found == {}


@pytest.mark.parametrize("scheme", SCHEMES)
def test_axe_on_whole_pages(
    chromium: Any, site_server: StaticServer, built_site: Path, scheme: str
) -> None:
    found = {}
    with Visit(chromium, site_server.url, color_scheme=scheme) as visit:
        for path in WHOLE_PAGES:
            _open(visit, path)
            assert visit.page.evaluate(PALETTE) == ("slate" if scheme == "dark" else "default")
            if violations := axe.violations(visit.page):
                found[path] = violations
    assert found == {}


def _in_both_palettes(visit: Visit, state: str, found: dict[Any, Any], focus: str = "") -> None:
    """axe on the page as it is, in its palette and then in the other one (the theme's toggle
    takes the focus: ``focus``, a widget button's action, gets it back)."""
    for turn in range(2):
        palette = _switch_palette(visit) if turn else visit.page.evaluate(PALETTE)
        if focus:
            visit.button(focus).focus()
        found[state, palette] = axe.violations(visit.page)


def test_axe_on_the_widget_at_work(
    chromium: Any, site_server: StaticServer, built_site: Path
) -> None:
    found: dict[Any, Any] = {}
    with Visit(chromium, site_server.url) as visit:
        visit.goto("recipes/resq-exhaustion/")
        visit.click("step", timeout=LOAD_MS)
        _in_both_palettes(visit, "running", found)
        visit.click("run")
        _in_both_palettes(visit, "done", found)
        visit.navigate("recipes/jobs-poll/")
        visit.click("run")
        assert visit.state() == "done"
        _in_both_palettes(visit, "hedron done", found)
    with Visit(chromium, site_server.url) as visit:
        visit.context.route("**/pyodide.mjs", lambda route: route.abort())
        visit.goto("recipes/taskflow/")
        visit.click("step")
        assert visit.state() == "fallback"
        _in_both_palettes(visit, "failed", found, focus="retry")
    assert len(found) == 8
    assert {state: v for state, v in found.items() if v} == {}
