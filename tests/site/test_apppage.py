"""The app's page as the hedron demo panel writes it into its frame (``apppage.mjs``), prepared
in Chromium on the built site with an app that answers every address (as a catch-all route
would): what the page names is fetched from the app, and nothing else is."""

from __future__ import annotations

from typing import Any

import pytest

from docsite.testing.static_server import StaticServer

pytestmark = pytest.mark.browser

PREPARE = """async (html) => {
  const { preparePage } = await import("/assets/tryit/apppage.mjs");
  const asked = [];
  const fetchApp = async (path) => {
    asked.push(path);
    return { status: 200, type: "text/css", bytes: new TextEncoder().encode("p { color: red }") };
  };
  const base = new URL("/assets/tryit/frame.html", location.href);
  const { html: out } = await preparePage(new TextEncoder().encode(html), base, fetchApp);
  return { asked, out };
}"""


def test_only_the_stylesheets_a_page_names_are_fetched(
    chromium: Any, site_server: StaticServer
) -> None:
    page = chromium.new_page()
    try:
        page.goto(site_server.url)
        html = (
            '<html><head><link rel="stylesheet" href="/app.css">'
            '<link rel="stylesheet"></head><body><p>Hi</p></body></html>'
        )
        prepared = page.evaluate(PREPARE, html)
    finally:
        page.close()
    assert prepared["asked"] == ["/app.css"]  # the link without an address asks for nothing
    assert prepared["out"].count("<style>p { color: red }</style>") == 1
    assert "<link" not in prepared["out"]
