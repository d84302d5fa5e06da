"""How the site looks, in headless Chromium on the built site: hedron's previews and the demo
panel follow the site's palette (the theme's toggle, live), TaskFlow's Cancel is a secondary
button, and the install block's lines stay clear of the copy button."""

from __future__ import annotations

from typing import Any

import pytest

from docsite.testing.static_server import StaticServer
from tests._support.tryit_visit import LOAD_MS, Visit

pytestmark = pytest.mark.browser

PALETTE = "document.body.getAttribute('data-md-color-scheme')"
# The relative luminance of a computed "rgb(r, g, b)" colour (WCAG's formula).
LUMINANCE = """(colour) => {
  const [r, g, b] = colour.match(/[\\d.]+/g).slice(0, 3).map((c) => {
    const s = Number(c) / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}"""
BACKGROUND = "(sel) => getComputedStyle(document.querySelector(sel)).backgroundColor"


def _toggle(visit: Visit) -> str:
    """The theme's own palette toggle, clicked as a reader does; the palette now shown."""
    before = visit.page.evaluate(PALETTE)
    visit.page.locator("[data-md-component=palette] label:visible").click()
    visit.page.wait_for_function(f"(before) => {PALETTE} !== before", arg=before)
    return str(visit.page.evaluate(PALETTE))


def _luminance(visit: Visit, colour: str) -> float:
    return float(visit.page.evaluate(LUMINANCE, colour))


def test_a_component_preview_follows_the_palette(chromium: Any, site_server: StaticServer) -> None:
    with Visit(chromium, site_server.url, color_scheme="light") as visit:
        visit.page.goto(site_server.url + "hedron/components/button/")
        visit.page.wait_for_selector(".hedron-preview .h-primary")
        shown = {}
        for turn in range(3):
            palette = _toggle(visit) if turn else str(visit.page.evaluate(PALETTE))
            colours = {
                sel: str(visit.page.evaluate(BACKGROUND, sel))
                for sel in (".hedron-preview", ".hedron-preview .h-primary")
            }
            shown[turn] = palette, colours
        assert [palette for palette, _ in shown.values()] == ["default", "slate", "default"]
        light, dark, again = (colours for _, colours in shown.values())
        assert light[".hedron-preview"] == "rgb(255, 255, 255)"
        assert _luminance(visit, dark[".hedron-preview"]) < 0.05  # a dark page
        # hedron's accent is lighter on the dark page (and its text dark: axe checks that)
        primary = [_luminance(visit, c[".hedron-preview .h-primary"]) for c in (light, dark)]
        assert primary[1] > primary[0]
        assert again == light
        assert visit.errors == []


def _frame(visit: Visit) -> Any:
    """The demo panel's sandboxed frame (its document is the app's page once it is open)."""
    frames = [f for f in visit.page.frames if f.url.endswith("/frame.html")]
    assert len(frames) == 1
    return frames[0]


def test_the_demo_panel_follows_the_palette_and_its_cancel_is_secondary(
    chromium: Any, site_server: StaticServer
) -> None:
    with Visit(chromium, site_server.url, color_scheme="light") as visit:
        visit.goto("recipes/taskflow/")
        visit.click("step", timeout=LOAD_MS)  # the page
        visit.click("step")  # its form sent: the job's status, with Cancel
        frame = _frame(visit)
        frame.wait_for_selector("button.h-button:text('Cancel')")
        body = "() => getComputedStyle(document.body).backgroundColor"
        assert frame.evaluate(body) == "rgb(255, 255, 255)"
        # the reader toggles the palette while the demo runs: the app's page follows
        assert _toggle(visit) == "slate"
        frame.wait_for_function(f"() => ({LUMINANCE})(({body})()) < 0.05")
        assert frame.evaluate("document.documentElement.dataset.theme") == "dark"
        visit.click("step")  # the page goes on in the dark palette
        assert _luminance(visit, frame.evaluate(body)) < 0.05
        assert _toggle(visit) == "default"
        frame.wait_for_function(f"() => ({body})() === 'rgb(255, 255, 255)'")
        # Cancel: as wide as its label, no filled red, in a column as wide as the page
        cancel = frame.evaluate(
            """() => {
                const button = [...document.querySelectorAll("button.h-button")]
                    .find((b) => b.textContent.trim() === "Cancel");
                const style = getComputedStyle(button);
                return {
                    width: button.getBoundingClientRect().width,
                    column: button.parentElement.getBoundingClientRect().width,
                    background: style.backgroundColor,
                };
            }"""
        )
        assert cancel["width"] < cancel["column"] / 3, cancel
        assert cancel["background"] == "rgba(0, 0, 0, 0)", cancel  # hedron's secondary
        assert visit.errors == []


# The copy button's box, and the box of each line of the install block's code.
BOXES = """(block) => {
  const nav = block.querySelector(".md-code__nav, .md-clipboard");
  const code = block.querySelector("code");
  const range = document.createRange();
  range.selectNodeContents(code);
  const lines = [...range.getClientRects()].map((r) => ({ top: r.top, bottom: r.bottom }));
  const box = nav.getBoundingClientRect();
  return { nav: { top: box.top, bottom: box.bottom, left: box.left }, lines };
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_install_block_keeps_clear_of_its_copy_button(
    chromium: Any, site_server: StaticServer, width: int
) -> None:
    with Visit(chromium, site_server.url, viewport={"width": width, "height": 900}) as visit:
        for path in ("", "resq/getting-started/", "hedron/getting-started/"):
            visit.page.goto(site_server.url + path)
            block = visit.page.locator(".install").first
            block.locator(".md-code__nav, .md-clipboard").first.wait_for(state="attached")
            boxes = block.evaluate(BOXES)
            assert boxes["lines"], path
            # no text runs level with the button: the first line starts below it
            below = [line["top"] >= boxes["nav"]["bottom"] for line in boxes["lines"]]
            assert all(below), (path, width, boxes)
