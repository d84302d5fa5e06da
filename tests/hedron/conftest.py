"""Fixtures for the hedron tests: real uvicorn servers and a headless Chromium."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hedron_support import ROOT

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests._support.live_server import live_server, serve  # noqa: F401

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Every host but loopback fails to resolve: an off-origin request cannot succeed.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright (never downloads a browser).

    Module-scoped on purpose: Playwright's sync API keeps an event loop marked as running in
    the main thread while it is open, which would break later asyncio-based tests.
    """
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("/usr/bin/chromium is not installed (scripts/bootstrap installs it)")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            browser.close()
