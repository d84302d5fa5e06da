"""An asyncio loop in a thread, with one headless Chromium (Playwright's async API).

Playwright's sync API would keep a loop marked as running in the caller's thread; keeping the
browser on a loop of its own lets sync callers (pytest, a script) run coroutines there.

The loop's thread runs at a raised priority where the user may raise one
(``docsite.testing.processes.raised_priority``), and so do Chromium and every app, worker,
Redis server and client a run starts from it: a real run is timed against real clocks, and on
a busy machine (the test suite's browsers and builds beside it) a worker that picks its job
up late, or a page's timer that fires late, makes it differ from what the code does.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from docsite.testing.browser import CHROMIUM, CHROMIUM_ARGS
from docsite.testing.processes import raised_priority

T = TypeVar("T")


class BrowserLoop:
    """``with BrowserLoop() as loop: loop.run(coro)``; ``loop.browser`` is a launched Chromium."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name="replay-loop")
        self._playwright: Any = None
        self.browser: Any = None

    def _serve(self) -> None:
        with raised_priority():
            self._loop.run_forever()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 300.0) -> T:
        """Run ``coro`` on the loop and wait (bounded) for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    async def _start(self) -> None:
        from playwright.async_api import async_playwright

        self._playwright = await async_playwright().start()
        self.browser = await self._playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )

    async def _stop(self) -> None:
        if self.browser is not None:
            await self.browser.close()
        if self._playwright is not None:
            await self._playwright.stop()

    def __enter__(self) -> BrowserLoop:
        self._thread.start()
        try:
            self.run(self._start(), timeout=60)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.run(self._stop(), timeout=60)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop.close()
