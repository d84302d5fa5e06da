"""The hedron demo panel in Chromium, with the recipe's app answering on CPython.

A tiny page loads ``docs/assets/tryit/panel.mjs`` and gives it a transport that calls a
Playwright-exposed Python function, which hands each message to ``tryit.browser.handle`` (the
worker's own entry point) on this loop. So the same panel code (its sandboxed frame and the
frame's driver too) and the same server code as on the site run here, without Pyodide, in
well under a second per recipe. The test site is laid out as the built site is: the page at
its root, ``assets/tryit/`` and the frame's scripts under ``_tryit/``.

Example:
    >>> with BrowserLoop() as loop:  # doctest: +SKIP
    ...     with StaticServer(panel_site(tmp)) as site:
    ...         lines = loop.run(run_panel(loop.browser, site.url, "taskflow"))
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path
from typing import Any

from docsite.paths import DOCS
from docsite.runtime.build import FRAME_SCRIPTS
from tryit import browser as worker

ASSETS = DOCS / "assets" / "tryit"

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>demo panel</title></head>
<body><div class="tryit__panel" hidden></div>
<script type="module">
import { DemoPanel, workerTransport } from "./assets/tryit/panel.mjs";
const send = async (message) => ({
  result: JSON.parse(await window.tryitServe(JSON.stringify(message))),
});
window.notes = [];
window.openPanel = (recipe, session) => {
  window.panel = new DemoPanel({
    container: document.querySelector(".tryit__panel"),
    transport: workerTransport(send, recipe, session),
    onNote: (text) => window.notes.push(text),
  });
};
window.panelReady = true;
</script></body></html>
"""

_sessions = itertools.count(1)


def panel_site(folder: Path) -> Path:
    """Write the test page, a copy of the widget's files and the frame's scripts into
    ``folder`` (served as the site)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.html").write_text(_PAGE, encoding="utf-8")
    shutil.copytree(ASSETS, folder / "assets" / "tryit", dirs_exist_ok=True)
    (folder / "_tryit").mkdir(exist_ok=True)
    for script in FRAME_SCRIPTS:
        shutil.copy2(script, folder / "_tryit" / script.name)
    return folder


async def _serve(message: str) -> str:
    return await worker.handle(message)


class PanelPage:
    """One page with one demo panel (like one widget on the site)."""

    def __init__(self, page: Any, name: str) -> None:
        self.page, self.name = page, name
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    @classmethod
    async def open(cls, browser: Any, url: str, name: str) -> PanelPage:
        """A new page at ``url`` (the panel site) with a panel for recipe ``name``."""
        page = await browser.new_page()
        panel = cls(page, name)
        await page.expose_function("tryitServe", _serve)
        await page.goto(url)
        await page.wait_for_function("() => window.panelReady === true")
        await panel._new()
        return panel

    async def _new(self) -> None:
        session = f"{self.name}#panel{next(_sessions)}"
        await self.page.evaluate("([r, s]) => window.openPanel(r, s)", [self.name, session])

    async def step(self) -> dict[str, Any]:
        """One Step (what the widget's Step button does)."""
        return dict(await self.page.evaluate("() => window.panel.step()"))

    async def run(self) -> dict[str, Any]:
        """Run to end."""
        return dict(await self.page.evaluate("() => window.panel.run()"))

    async def reset(self) -> None:
        """Reset: a fresh panel, and a fresh app on the next Step."""
        await self.page.evaluate("() => window.panel.reset()")
        await self._new()

    async def notes(self) -> list[str]:
        """What the panel told the reader (its status notes)."""
        return list(await self.page.evaluate("() => window.notes"))

    async def frame_text(self) -> str:
        """The visible text of the app's page in the panel."""
        frame = self.page.frame_locator(".tryit__frame")
        return str(await frame.locator("body").inner_text())

    async def close(self) -> None:
        await self.page.close()


async def run_panel(browser: Any, url: str, name: str) -> list[list[str]]:
    """Step recipe ``name`` to its end in a fresh panel; the lines of each step."""
    panel = await PanelPage.open(browser, url, name)
    try:
        steps: list[list[str]] = []
        while True:
            result = await panel.step()
            steps.append(list(result["lines"]))
            if result["done"]:
                break
            if len(steps) > 500:
                raise RuntimeError(f"{name}: the panel did not end within 500 steps")
        if panel.errors:
            raise RuntimeError(f"{name}: the page raised {panel.errors}")
        return steps
    finally:
        await panel.close()
