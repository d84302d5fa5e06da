"""Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by Playwright.

Never downloads a browser (no ``playwright install``). Every host but 127.0.0.1 fails to
resolve, so an off-origin request can never succeed silently.

Playwright's sync API keeps an asyncio loop marked as running in the main thread while it is
open, which breaks any later ``asyncio.run``/anyio test in the same process. So a browser is
opened per test module (see the ``chromium`` fixture in ``tests/conftest.py``), never per session.

The tests' Chromium compiles WebAssembly with V8's baseline compiler only (:data:`TEST_ARGS`):
the same results, a third less CPU for each start of Pyodide, which is most of what the suite
spends. What readers get, the optimizing compiler too, is measured by
``scripts/bench/bench_site.py``, which launches Chromium without it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]

#: Added for the tests: WebAssembly compiled by Liftoff, V8's baseline compiler, alone (a cold
#: start of Pyodide: about 4.8 -> 3.2 s of CPU).
TEST_ARGS = ("--js-flags=--liftoff-only",)


@contextmanager
def chromium_browser(extra_args: Sequence[str] = ()) -> Iterator[Any]:
    """Yield a launched Playwright ``Browser`` (with ``extra_args`` after
    :data:`CHROMIUM_ARGS`); closes it and Playwright on exit."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: scripts/bootstrap installs Debian's chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *extra_args], headless=True
        )
        try:
            yield browser
        finally:
            browser.close()
