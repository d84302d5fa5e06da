"""Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by Playwright.

Never downloads a browser (no ``playwright install``). Every host but 127.0.0.1 fails to
resolve, so an off-origin request can never succeed silently.

Playwright's sync API keeps an asyncio loop marked as running in the main thread while it is
open, which breaks any later ``asyncio.run``/anyio test in the same process. So a browser is
opened per test module (see the ``chromium`` fixture in ``tests/conftest.py``), never per session.
"""

from __future__ import annotations

from collections.abc import Iterator
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


@contextmanager
def chromium_browser() -> Iterator[Any]:
    """Yield a launched Playwright ``Browser``; closes it and Playwright on exit."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: scripts/bootstrap installs Debian's chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            browser.close()
