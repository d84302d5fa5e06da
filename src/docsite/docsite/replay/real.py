"""Every recipe for real, recorded in its transcript's own format.

The recipe's app runs under uvicorn on 127.0.0.1 with the real clock and ``local_runner``'s
worker threads, wrapped by the same recorder as the demo (``tryit._record.RecordingApp``):

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
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from docsite.paths import DOCS
from docsite.replay._environ import copied, job_runner
from docsite.replay.stack import Served, real_stack
from docsite.testing.live_server import serve
from tryit._record import Recorder, RecordingApp
from tryit._server import engine_verdict, runner_of, static_prefix
from tryit.recipe import Recipe

QUIET_INTERVALS = 1.5  # a page that sent nothing for this many poll intervals has stopped
SLACK_S = 15.0  # beyond the window: a slow machine's start-up


@contextlib.contextmanager
def real_app(recipe: Recipe, recorder: Recorder) -> Iterator[str]:
    """The recipe's app, freshly imported, under uvicorn behind ``recorder``; its base URL."""
    with job_runner("threads"):  # as under uvicorn: local_runner's threads
        module = recipe.load(recipe.app_file)
    runner = runner_of(recipe, module)
    try:
        app = RecordingApp(module.app, recorder, skip=static_prefix(module.app))
        with serve(app) as base_url:
            yield base_url
    finally:
        stop = getattr(runner, "stop", None)
        if callable(stop):
            stop()


@contextlib.contextmanager
def served(recipe: Recipe, recorder: Recorder) -> Iterator[Served]:
    """The recipe's app, answering for real: in this process (:func:`real_app`), or, for a
    recipe with a ``[real]`` table, in processes of its own beside its services and workers
    (:func:`replay.stack.real_stack`)."""
    if recipe.real is not None:
        with real_stack(recipe, recorder) as stack:
            yield stack
        return
    with real_app(recipe, recorder) as base_url:
        yield Served(base_url, recipe.folder, copied())


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


class _Output:
    """What the client printed so far, read without blocking (as each request arrives)."""

    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder
        self._fd: int | None = None
        self._pending = b""
        self._lock = threading.Lock()

    def attach(self, fd: int) -> None:
        os.set_blocking(fd, False)
        self._fd = fd

    def drain(self, *, final: bool = False) -> None:
        with self._lock:
            if self._fd is None:
                return
            while True:
                try:
                    chunk = os.read(self._fd, 65536)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                self._pending += chunk
            *lines, self._pending = self._pending.split(b"\n")
            if final and self._pending:
                lines.append(self._pending)
            for line in lines:
                self._recorder.printed(line.decode("utf-8", "replace").rstrip("\r"))


_RAISED = re.compile(r"^(?P<kind>[A-Za-z_][\w.]*): ?(?P<text>.*)$")


def replay_client(recipe: Recipe) -> Recorder:
    """Run the app (``server.py`` or ``app.py``) for real and ``python client.py`` against
    it."""
    output: _Output
    recorder = _recorder(
        recipe, ok=engine_verdict(recipe.demo.adapter), before_request=lambda: output.drain()
    )
    output = _Output(recorder)
    with served(recipe, recorder) as app, tempfile.TemporaryFile() as errors:
        env = {**app.env, "BASE_URL": app.base_url, "PYTHONUNBUFFERED": "1"}
        env.pop("HEDRON_JOB_RUNNER", None)
        with subprocess.Popen(
            [sys.executable, "client.py"],
            cwd=app.folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=errors,
        ) as client:
            assert client.stdout is not None
            output.attach(client.stdout.fileno())
            try:
                client.wait(timeout=recipe.demo.window + SLACK_S)
            except subprocess.TimeoutExpired:
                client.kill()
                raise
            output.drain(final=True)
        errors.seek(0)
        stderr = errors.read().decode("utf-8", "replace")
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
