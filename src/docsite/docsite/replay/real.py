"""Every recipe for real, recorded in its transcript's own format.

The recipe's app runs under uvicorn on 127.0.0.1, in a process of its own, with the real clock
and ``local_runner``'s worker threads, wrapped by the same recorder as the demo
(``tryit._record.RecordingApp``; :mod:`replay.stack`):

- hedron recipes: headless Chromium opens ``[demo] page`` with the htmx the app serves,
  clicks ``[demo] click`` as soon as htmx has started, and the replay waits on the recorded
  answers until the page has sent nothing for one and a half poll intervals (after its 286),
  or the window is over;
- resq recipes: ``python client.py`` with ``BASE_URL`` pointing at the server; what it prints
  becomes ``> `` lines, in their place between the requests.

Nothing here sleeps to synchronise: it waits on the recorder's answers and on the client's
exit, each bounded by the recipe's window.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

from docsite.paths import DOCS
from docsite.replay.recording_server import printed_lines
from docsite.replay.stack import Served, real_stack
from tryit._record import Recorder
from tryit._server import engine_verdict
from tryit.recipe import Recipe

QUIET_INTERVALS = 1.5  # a page that sent nothing for this many poll intervals has stopped
SLACK_S = 15.0  # beyond the window: a slow machine's start-up


@contextlib.contextmanager
def served(
    recipe: Recipe, recorder: Recorder, client_output: int | None = None
) -> Iterator[Served]:
    """The recipe's app, answering for real in a process of its own, beside the services and
    workers of its ``[real]`` table if it has one (:func:`replay.stack.real_stack`)."""
    with real_stack(recipe, recorder, client_output) as stack:
        yield stack


def _recorder(recipe: Recipe, **kwargs: Any) -> Recorder:
    demo = recipe.demo
    # wall-clock seconds: the browser says when its page loaded in the same time
    return Recorder(clock=time.time, interval=demo.interval, window=demo.window, **kwargs)


# --- hedron: the page in Chromium -------------------------------------------------------------


def _scripted_until(recipe: Recipe) -> float:
    """Seconds from the time origin until the run's last scripted event (a timed click, the
    app's restart): a page that is quiet before it has not stopped."""
    times = [a.at for a in recipe.demo.scripted]
    if recipe.real is not None and recipe.real.restart is not None:
        times.append(recipe.real.restart.start)
    return max(times, default=0.0)


def _wait_until_quiet(recorder: Recorder, recipe: Recipe) -> str:
    """Block until the page has stopped (``"idle"``) or the window is over (``"window"``)."""
    quiet = QUIET_INTERVALS * recipe.demo.interval
    scripted = _scripted_until(recipe)
    while True:
        left = recipe.demo.window - recorder.elapsed()
        if left <= 0:
            return "window"
        more = _more_than(recorder, recorder.count())
        if not recorder.wait(more, timeout=min(quiet, left)) and (
            recorder.elapsed() - quiet >= scripted  # quiet since the last scripted event
        ):
            return "idle" if quiet <= left else "window"


def _more_than(recorder: Recorder, count: int) -> Callable[[], bool]:
    return lambda: recorder.count() > count


FRAME_DRIVER = DOCS / "assets" / "tryit" / "frame.js"

# When htmx has started (DOMContentLoaded: its polls' timers start then) the page notes the
# instant in wall-clock milliseconds and sets the reader's scripted clicks on its own (real)
# timers with the demo panel's own scheduleActions (from its frame's driver). The listener is
# on the window, so htmx's own (on the document) runs first, as in the demo.
# Each htmx request carries the instant the page sent it (``tryit._record.SENT_HEADER``): the
# recorder times it then, on the page's clock, as the demo times its requests.
# (The function's source is part of the script: the page's CSP would refuse an eval.)
_ON_READY = """(actions) => {
  const now = () => String(performance.timeOrigin + performance.now());
  document.addEventListener("htmx:configRequest", (event) => {
    event.detail.headers["X-Tryit-Sent"] = now();
  });
  addEventListener("DOMContentLoaded", () => {
    window.__tryitReady = Number(now());
    window.__tryitNotes = [];
    (SCHEDULE)(window, actions, (text) => window.__tryitNotes.push(text));
  });
}"""

_sources: dict[str, str] = {}


async def driver_function(browser: Any, name: str) -> str:
    """The source of the function ``name`` of the panel frame's driver (``frame.js``, a plain
    script), read by the browser itself (the script run in a blank page, where it does nothing
    else), so a real page runs the very code the demo runs."""
    if name not in _sources:
        page = await browser.new_page()
        try:
            await page.add_script_tag(content=FRAME_DRIVER.read_text(encoding="utf-8"))
            _sources[name] = await page.evaluate("(name) => String(window[name])", name)
        finally:
            await page.close()
    return _sources[name]


async def replay_hedron(browser: Any, recipe: Recipe) -> Recorder:
    """Open the recipe's page for real, do its click, record until it stops."""
    recorder = _recorder(recipe, origin_from_page=True)
    errors: list[str] = []
    with served(recipe, recorder) as app:
        context = await browser.new_context()
        try:
            page = await context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            actions = [a.as_dict() for a in recipe.demo.scripted]
            schedule = await driver_function(browser, "scheduleActions")
            script = _ON_READY.replace("SCHEDULE", schedule, 1)
            await page.add_init_script(f"({script})({json.dumps(actions)})")
            await page.goto(app.base_url + recipe.demo.page)  # returns once the page loaded
            recorder.page_ready(await page.evaluate("window.__tryitReady") / 1000)
            how = await asyncio.to_thread(_wait_until_quiet, recorder, recipe)
            errors += await page.evaluate("window.__tryitNotes")
        finally:
            await context.close()
    if errors:
        raise RuntimeError(f"{recipe.name}: the page raised {errors}")
    recorder.page_ended(how)
    return recorder


# --- resq: python client.py -------------------------------------------------------------------


_RAISED = re.compile(r"^(?P<kind>[A-Za-z_][\w.]*): ?(?P<text>.*)$")


def replay_client(recipe: Recipe) -> Recorder:
    """Run the app (``server.py`` or ``app.py``) for real and ``python client.py`` against
    it."""
    recorder = _recorder(recipe, ok=engine_verdict(recipe.demo.adapter))
    # what the client prints: the app's process reads it as each request arrives
    # (replay.recording_server), this one what is left once the app has stopped
    output, printing = os.pipe()
    try:
        with served(recipe, recorder, output) as app, tempfile.TemporaryFile() as errors:
            env = {**app.env, "BASE_URL": app.base_url}
            argv = [sys.executable, "client.py"]
            with subprocess.Popen(
                argv, cwd=app.folder, env=env, stdout=printing, stderr=errors
            ) as client:
                os.close(printing)
                printing = -1
                try:
                    client.wait(timeout=recipe.demo.window + SLACK_S)
                except subprocess.TimeoutExpired:
                    client.kill()
                    raise
            errors.seek(0)
            stderr = errors.read().decode("utf-8", "replace")
        for line in printed_lines(output):  # the app has stopped and told all it read
            recorder.printed(line)
    finally:
        os.close(output)
        if printing != -1:
            os.close(printing)
    if client.returncode == 0:
        recorder.returned()
    else:
        last = (stderr.strip().splitlines() or ["?"])[-1]
        raised = _RAISED.match(last)
        kind, text = (raised["kind"].rsplit(".", 1)[-1], raised["text"]) if raised else ("", last)
        recorder.failed(kind or "Error", text)
    return recorder


async def replay_all(browser: Any, recipes: list[Recipe]) -> dict[str, Recorder | BaseException]:
    """Replay every recipe; each run's recorder (``lines``, and ``timeline()`` with the
    unrounded times), or what it raised.

    The resq runs (a client process each, mostly asleep) go side by side with the hedron runs,
    which take turns: a browser page competing with others for the CPU would send its
    requests late, and the transcript would show that rather than the recipe. So the whole
    costs about the longest resq window, or the sum of the hedron runs.
    """

    async def pages() -> list[Recorder | BaseException]:
        done: list[Recorder | BaseException] = []
        for recipe in hedron:
            try:
                done.append(await replay_hedron(browser, recipe))
            except Exception as exc:  # reported with the recipe's name by the caller
                done.append(exc)
        return done

    hedron = [r for r in recipes if r.driver == "page"]
    clients = [r for r in recipes if r.driver == "client"]
    results = await asyncio.gather(
        pages(),
        *(asyncio.to_thread(replay_client, r) for r in clients),
        return_exceptions=True,
    )
    first, *rest = results
    if isinstance(first, BaseException):
        raise first
    by_name = dict(zip([r.name for r in hedron], first, strict=True))
    by_name.update(zip([r.name for r in clients], rest, strict=True))
    return {r.name: by_name[r.name] for r in recipes}
