"""The demo's server: a recipe's app in-process, answering one request at a time at virtual time.

Python only plays the server. Who sends the requests is the recipe's own client (resq recipes)
or the real htmx in the page's demo panel (hedron recipes, ``docs/assets/tryit/panel.mjs``).

One :class:`DemoClock` is the demo's only clock: resq's polling reads and sleeps on it
(``resq.clock.use_clock``), and the app's job backend and stepping runner read it through
``hedron_core.jobs.use_clock``. The rule for a request at virtual time ``t``: run the job work
due up to ``t``, answer the request, run the work due at ``t`` again. So a job submitted at
``t`` starts at ``t`` (as ``local_runner``'s threads start it under uvicorn) and its
``await ctx.sleep(d)`` ends at ``t + d``; at equal times the job's work comes first, as a
worker thread starts before the answer is even sent.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import anyio.lowlevel
import httpx

from hedron_core.jobs import VirtualClock, use_clock
from tryit._apps import demo_environment
from tryit._record import Recorder, RecordingApp, reason_of
from tryit.recipe import Recipe

BASE_URL = "http://recipe.localhost"
#: An edited run shows its times as they are, not rounded to the recipe's interval (to which
#: a real run's times are rounded): that would hide the very change the reader made
#: (``delay=1`` instead of 2, a poll every second instead of every two). A client's virtual
#: times are exact to the millisecond. A hedron page's are shown to a tenth of a second: htmx
#: starts a region's polling once the answer that made the region has settled (20 ms after
#: the swap), so its polls come at 2.02 s, 4.02 s, …, as in a browser; a tenth of a second
#: shows that truthfully as t=2s, t=4s (and a drift that grows, as it would in a browser).
CLIENT_PRECISION = 0.001
PAGE_PRECISION = 0.1
# What a browser never shows to a page's script (XMLHttpRequest hides them too).
_HIDDEN_HEADERS = {"set-cookie", "set-cookie2"}


class DemoClock(VirtualClock):
    """The demo's virtual clock: hedron's (call it) and resq's (``now``/``sleep``/``asleep``).

    Waiting moves the time on through :meth:`run_until`, so the app's stepping job runner
    runs every wake-up in between, at its own time.
    """

    def __init__(self, runner: Any = None) -> None:
        super().__init__()
        self.runner = runner

    def run_until(self, when: float) -> None:
        """Move to ``when``, running the job work due on the way (at its own times)."""
        with use_clock(self):
            if self.runner is not None:
                self.runner.run_until(max(when, self()))
            else:
                self.advance_to(when)

    def sleep(self, seconds: float) -> None:
        self.run_until(self() + seconds)

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)
        await anyio.lowlevel.checkpoint()


class VirtualTimeApp:
    """ASGI middleware: every request is answered at the clock's time (the rule above)."""

    def __init__(self, app: Any, clock: DemoClock) -> None:
        self.app, self.clock = app, clock

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.clock.run_until(self.clock())
        try:
            with use_clock(self.clock):
                await self.app(scope, receive, send)
        finally:
            self.clock.run_until(self.clock())


def engine_verdict(adapter: str) -> Callable[[int], bool]:
    """Whether the client's engine calls a status a success (its ``raise_for_status`` rule):
    requests' ``Response.ok`` or httpx's ``Response.is_success``, asked of the engine itself."""
    if adapter == "httpx":
        return lambda status: httpx.Response(status).is_success
    import requests

    def ok(status: int) -> bool:
        response = requests.Response()
        response.status_code = status
        return response.ok

    return ok


def runner_of(recipe: Recipe, module: Any) -> Any:
    """The module attribute ``[demo] runner`` names (``None`` when it names none)."""
    if recipe.demo.runner is None:
        return None
    runner = getattr(module, recipe.demo.runner, None)
    if runner is None:
        raise ValueError(
            f"recipe {recipe.name}: [demo] runner = {recipe.demo.runner!r} names no attribute "
            f"of {recipe.app_file}"
        )
    return runner


def static_prefix(app: Any) -> str | None:
    """Where a hedron app serves its own static files (not transcript lines)."""
    prefix = getattr(app, "static_prefix", None)
    return prefix if isinstance(prefix, str) else None


class AppServer:
    """A recipe's app (``server.py`` or ``app.py``) loaded fresh, on its own virtual time.

    Attributes:
        module: The recipe's module.
        clock: The demo's clock.
        recorder: The run's transcript.
        app: The app wrapped for the demo (virtual time, then the recorder).
    """

    def __init__(self, recipe: Recipe) -> None:
        with demo_environment():
            self.module = recipe.load(recipe.app_file)
        runner = runner_of(recipe, self.module)
        if runner is not None and not callable(getattr(runner, "run_until", None)):
            raise TypeError(
                f"recipe {recipe.name}: the demo needs a stepping runner in `{recipe.demo.runner}`"
                " (local_runner under HEDRON_JOB_RUNNER=stepping)"
            )
        self.recipe = recipe
        self.clock = DemoClock(runner)
        self.recorder = Recorder(
            clock=self.clock,
            interval=recipe.demo.interval,
            precision=(
                (CLIENT_PRECISION if recipe.driver == "client" else PAGE_PRECISION)
                if recipe.sources
                else None
            ),
            window=recipe.demo.window,
            ok=engine_verdict(recipe.demo.adapter) if recipe.driver == "client" else None,
        )
        recorded = RecordingApp(self.module.app, self.recorder, skip=static_prefix(self.module.app))
        self.app = VirtualTimeApp(recorded, self.clock)
        self._reported = 0

    def new_lines(self) -> list[str]:
        """Transcript lines not handed out yet."""
        lines = self.recorder.lines
        self._reported, new = len(lines), lines[self._reported :]
        return new


class PageServer(AppServer):
    """hedron: the server side of the demo panel. The page's htmx sends every request; this
    answers it at the virtual time the page says, with the browser's cookies (the client's
    jar) and redirects followed, as an ``XMLHttpRequest`` does."""

    def __init__(self, recipe: Recipe) -> None:
        super().__init__(recipe)
        # An app that raises answers 500, as its server would: htmx does not swap it and
        # polls on (the transcript line names the error: tryit._record.RecordingApp).
        transport = httpx.ASGITransport(app=self.app, raise_app_exceptions=False)
        self.client = httpx.AsyncClient(
            transport=transport, base_url=BASE_URL, follow_redirects=True
        )

    def settings(self) -> dict[str, Any]:
        """What the panel needs: the page to open, the reader's clicks, interval, window."""
        return {**self.recipe.demo.as_dict(), "title": self.recipe.title}

    async def request(
        self,
        method: str,
        url: Any,
        headers: list[list[str]],
        body: Any,
        at: Any,
    ) -> dict[str, Any]:
        """Answer one request the page sent at virtual time ``at`` (seconds).

        ``url`` is root-relative (path and query), ``body`` base64 (or ``None``); the answer's
        body is base64 too, with its final URL, and the new transcript lines.
        """
        if not isinstance(url, str) or not url.startswith("/"):
            raise ValueError(f"request: url must be root-relative (path and query), got {url!r}")
        if isinstance(at, bool) or not isinstance(at, int | float):
            raise ValueError(f"request: at must be the virtual time in seconds, got {at!r}")
        self.clock.run_until(float(at))
        content = base64.b64decode(body) if body else None
        response = await self.client.request(
            method, url, headers=[(k, v) for k, v in headers], content=content
        )
        raw = response.url.raw_path.decode("ascii")
        return {
            "status": response.status_code,
            "reason": reason_of(response.status_code),
            "headers": [
                [k, v] for k, v in response.headers.multi_items() if k not in _HIDDEN_HEADERS
            ],
            "body": base64.b64encode(response.content).decode("ascii"),
            "url": raw,
            "lines": self.new_lines(),
        }

    def end(self, how: str) -> dict[str, Any]:
        """The page has stopped (``"idle"``) or would poll past the window (``"window"``)."""
        if how not in ("idle", "window"):
            raise ValueError(f"end: how must be 'idle' or 'window', got {how!r}")
        self.recorder.page_ended(how)
        return {
            "lines": self.new_lines(),
            "outcome": self.recorder.outcome,
            "message": self.recorder.message,
        }

    async def aclose(self) -> None:
        """Close the client (Reset)."""
        await self.client.aclose()
