"""The order of the "Try it" downloads (``docs/assets/tryit/worker.mjs``, ``fetcher.mjs``).

CPython's start needs the wasm, the standard library and pydantic-core's shared library, which
the build serves as a file of its own (``docsite/runtime/bundle.py``); only the imports need the
bundle of the other files, which a second worker downloads meanwhile. In headless Chromium
against the built site, with the bundle's download held: Python starts all the same (the
worker says "Installing packages", which it says once CPython runs), and once the bundle is
let through, the recipe steps to its committed transcript.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from docsite.testing.static_server import StaticServer
from tests._support.tryit_visit import IDLE, LOAD_MS, Visit, committed

pytestmark = pytest.mark.browser

RECIPE = "resq-async-poll"
SAYS = "(text) => document.querySelector('.tryit .tryit__status').textContent.startsWith(text)"


def test_python_starts_before_the_bundle_has_arrived(
    chromium: Any, site_server: StaticServer, built_site: Path
) -> None:
    held: list[Any] = []
    with Visit(chromium, site_server.url) as visit:
        visit.context.route(
            "**/_tryit/pyodide/site-packages.bin*", lambda route: held.append(route)
        )
        visit.goto(f"recipes/{RECIPE}/")
        visit.widget().locator("button[data-action='step']").click()
        visit.page.wait_for_function(SAYS, arg="Installing packages", timeout=LOAD_MS)
        assert held, "the bundle was not asked for"
        names = [url.rsplit("/", 1)[1] for url in visit.requests]
        # the shared library came as a file of its own, the bundle was asked for after it
        library = [i for i, name in enumerate(names) if name.endswith(".so.gz")]
        bundle = [i for i, name in enumerate(names) if name.startswith("site-packages.bin")]
        assert library, names
        assert bundle, names
        assert library[0] < bundle[0], names
        assert not [name for name in names if name.endswith(".whl")]
        for route in held:
            route.continue_()
        visit.page.wait_for_function(f"() => ({IDLE})(document.querySelector('.tryit'))")
        assert visit.transcript() == committed(RECIPE)[:1]
        assert visit.errors == []


def test_without_the_bundles_own_worker_the_first_one_downloads_it(
    chromium: Any, site_server: StaticServer, built_site: Path
) -> None:
    with Visit(chromium, site_server.url) as visit:
        visit.context.route(
            "**/assets/tryit/fetcher.mjs",
            lambda route: route.fulfill(
                status=200, body="throw new Error('broken');", content_type="text/javascript"
            ),
        )
        visit.goto(f"recipes/{RECIPE}/")
        visit.click("step", timeout=LOAD_MS)
        assert visit.transcript() == committed(RECIPE)[:1]
        names = [url.rsplit("/", 1)[1] for url in visit.requests]
        assert "fetcher.mjs" in names
        assert names.count("site-packages.bin.gz") == 1
        assert not [name for name in names if name.endswith(".whl")]  # the bundle was used
        assert visit.errors == []
