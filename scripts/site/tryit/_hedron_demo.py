"""hedron recipes: open the page, submit its form if it has one, then follow its ``Poll``.

Every step is one request through the in-process app (``httpx.ASGITransport``, with
``HX-Request: true`` like htmx): first the page, then (if the page shows a form and no poll)
the form with its default values, then one poll request per step. Before each poll request
the virtual time moves on by the poll's interval and the recipe's stepping job runner (the
module attribute named by ``[demo] runner``) runs the work that became due. The run stops
when the app answers **HTTP 286** (the stop rule: htmx swaps that answer and stops polling)
or when the window (``[demo] window``, seconds, default 30) has elapsed.

Opaque ids (job ids) differ on every run: transcript lines show them as ``<id>``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

from hedron_core.htmx import STOP_POLLING_STATUS as STOP_POLLING
from tryit._apps import advance_jobs, demo_environment
from tryit._htmx_scan import FormSpec, PollSpec, scan
from tryit._recipes import Recipe
from tryit._record import Recorder, fmt_time, reason_of, seen

if TYPE_CHECKING:
    from tryit._stepper import Stepper

DEFAULT_WINDOW = 30.0
HX = {"HX-Request": "true"}


class _Browser:
    """What the demo's "browser" does: send htmx-style requests, record them, queue swaps."""

    def __init__(self, client: httpx.AsyncClient, stepper: Stepper, recorder: Recorder):
        self.client, self.stepper, self.recorder = client, stepper, recorder
        self.now = 0.0

    async def send(
        self, method: str, url: str, data: dict[str, str] | None = None
    ) -> httpx.Response:
        await self.stepper.checkpoint()
        response = await self.client.request(method, url, headers=HX, data=data)
        line = f"{fmt_time(self.now)} {method} {url} -> {response.status_code}"
        line += f" {reason_of(response.status_code)}"
        what = seen(response.text, response.headers.get("content-type", ""))
        self.recorder.line(f"{line} | {what}" if what else line)
        return response


async def scenario(recipe: Recipe, stepper: Stepper, recorder: Recorder) -> None:
    """Open the recipe's page, submit its form if any, then poll until 286 or the window."""
    with demo_environment():
        module = recipe.load("app.py")
    runner = getattr(module, str(recipe.demo["runner"])) if "runner" in recipe.demo else None
    window = float(recipe.demo.get("window", DEFAULT_WINDOW))
    transport = httpx.ASGITransport(app=module.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://recipe.localhost") as c:
        browser = _Browser(c, stepper, recorder)
        page = await browser.send("GET", str(recipe.demo.get("page", "/")))
        recorder.swap("", "innerHTML", page.text)
        poll, form = scan(page.text)
        if poll is None and form is not None:
            poll = await _submit(browser, form)
        if poll is None:
            recorder.stop("terminal", "done: the page has nothing to poll")
            return
        await _follow(browser, poll, runner, window)


async def _submit(browser: _Browser, form: FormSpec) -> PollSpec | None:
    response = await browser.send("POST", form.url, data=form.fields)
    browser.recorder.swap(form.target, form.swap, response.text)
    return scan(response.text)[0]


async def _follow(browser: _Browser, poll: PollSpec, runner: Any, window: float) -> None:
    recorder = browser.recorder
    while True:
        if browser.now + poll.interval_s > window + 1e-9:
            recorder.stop(
                "window", f"done: window elapsed ({window:g}s) before the app answered 286"
            )
            return
        # Virtual time passes and due work runs; the request itself opens the next step.
        browser.now += poll.interval_s
        advance_jobs(runner, poll.interval_s)
        response = await browser.send("GET", poll.url)
        if 200 <= response.status_code < 400 and response.status_code != 204:
            # htmx's default response handling: 204 and 4xx/5xx answers are not swapped.
            recorder.swap(poll.target, poll.swap, response.text)
        if response.status_code == STOP_POLLING:
            recorder.stop(
                "terminal",
                f"done: terminal state, the app answered {STOP_POLLING} at {fmt_time(browser.now)}"
                " (htmx swaps it and stops polling)",
            )
            return
        poll = scan(response.text)[0] or poll
