"""Transcripts of many recipes at once: as the demo runs them, and for real.

Example:
    >>> demo = demo_transcripts(["taskflow", "resq-sync-poll"])  # doctest: +SKIP
    >>> real = real_transcripts(["taskflow", "resq-sync-poll"])  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from docsite.replay._loop import BrowserLoop
from docsite.replay.panel import panel_site, run_panel
from docsite.replay.real import replay_all
from docsite.testing.static_server import StaticServer
from tryit import Recipe, load_recipe, run_to_end
from tryit._record import Recorder


@contextlib.contextmanager
def panel_server() -> Iterator[str]:
    """A static server for the demo panel's test page; its URL."""
    with (
        tempfile.TemporaryDirectory(prefix="tryit-panel-") as tmp,
        StaticServer(panel_site(Path(tmp))) as site,
    ):
        yield site.url


def demo_transcripts(names: list[str], loop: BrowserLoop | None = None) -> dict[str, list[str]]:
    """What the demo produces for each recipe: resq on CPython (the driver the worker runs),
    hedron through ``panel.mjs`` in Chromium with the app answering on CPython."""
    hedron = [n for n in names if load_recipe(n).driver == "page"]
    out = {n: run_to_end(n) for n in names if n not in hedron}
    if hedron:
        with contextlib.ExitStack() as stack:
            browser = loop or stack.enter_context(BrowserLoop())
            url = stack.enter_context(panel_server())
            for name in hedron:
                steps = browser.run(run_panel(browser.browser, url, name), timeout=120)
                out[name] = [line for step in steps for line in step]
    return {n: out[n] for n in names}


def replay_bound(recipes: list[Recipe]) -> float:
    """How long :func:`real_transcripts` may take, in seconds: each run is bounded by its
    window; the clients run side by side, the pages in turn (``replay.real.replay_all``)."""
    clients = [r.demo.window for r in recipes if r.driver != "page"]
    pages = [r.demo.window for r in recipes if r.driver == "page"]
    return max([*clients, sum(pages)]) + 60


def real_transcripts(
    names: list[str], loop: BrowserLoop | None = None
) -> dict[str, Recorder | BaseException]:
    """Each recipe run for real (``replay.real``), all side by side: its recorder."""
    recipes = [load_recipe(n) for n in names]
    timeout = replay_bound(recipes)
    with contextlib.ExitStack() as stack:
        browser = loop or stack.enter_context(BrowserLoop())
        return browser.run(replay_all(browser.browser, recipes), timeout=timeout)
