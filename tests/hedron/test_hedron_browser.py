"""Real browser: Poll stops after the 286 answer; no off-origin request; no CSP violation."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import Request
from hedron_support import SECRET

from hedron import ComponentRef, Hedron, Page, Poll, Status, Text
from hedron.responses import fragment
from hedron_core.htmx import STOP_POLLING_STATUS
from hedron_core.security import csrf_key, csrf_token_for

pytestmark = pytest.mark.browser

INTERVAL_MS = 100
STEPS_BEFORE_DONE = 3
DEADLINE_S = 15.0


class Counters:
    """Request counts per path, with a condition the test thread can wait on."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.counts: dict[str, int] = {"job": 0, "clock": 0}

    def hit(self, name: str) -> int:
        with self.cond:
            self.counts[name] += 1
            self.cond.notify_all()
            return self.counts[name]

    def get(self, name: str) -> int:
        with self.cond:
            return self.counts[name]

    def wait_for(self, name: str, at_least: int) -> None:
        deadline = time.monotonic() + DEADLINE_S
        with self.cond:
            while self.counts[name] < at_least:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{name} reached only {self.counts[name]}/{at_least}")
                self.cond.wait(left)


def build_app(counters: Counters, answer: Callable[[int], Any]) -> Hedron:
    """A page with two polls: ``/job`` answers ``answer(n)`` for its n-th request, and
    ``/clock`` never stops (the test's clock, counted on the server)."""
    app = Hedron(title="Poll test", security="standard", session_secret=SECRET)

    @app.page("/")
    def home(request: Request) -> Page:
        job = ComponentRef(logical_id="job-status", path="/job", method="GET")
        clock = ComponentRef(logical_id="clock", path="/clock", method="GET")
        return Page(
            Text("Polling test"),
            Poll(ref=job, interval_ms=INTERVAL_MS, content=Status("Queued…")),
            Poll(ref=clock, interval_ms=INTERVAL_MS, content=Status("tick 0")),
            title="Poll test",
        )

    @app.get("/job")
    async def job() -> Any:
        return answer(counters.hit("job"))

    @app.get("/clock")
    async def clock() -> Any:
        return fragment(Status(f"tick {counters.hit('clock')}"))

    return app


def until_done(n: int) -> Any:
    """Steps, then the 286 answer."""
    if n > STEPS_BEFORE_DONE:
        return fragment(Status("Done", tone="success"), status_code=STOP_POLLING_STATUS)
    return fragment(Status(f"Step {n}/{STEPS_BEFORE_DONE}"))


def test_poll_stops_after_286_with_no_offorigin_request_or_csp_violation(
    chromium: Any, live_server: Any
) -> None:
    counters = Counters()
    base = live_server(build_app(counters, until_done))
    context = chromium.new_context()
    page = context.new_page()
    requests_seen: list[str] = []
    console_errors: list[str] = []
    page.on("request", lambda req: requests_seen.append(req.url))
    page.on("console", lambda msg: msg.type == "error" and console_errors.append(msg.text))
    page.add_init_script(
        "window.__cspViolations = [];"
        "document.addEventListener('securitypolicyviolation',"
        " e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    try:
        page.goto(base + "/")
        # The terminal answer is swapped in ...
        page.wait_for_selector("#job-status >> text=Done", timeout=DEADLINE_S * 1000)
        assert counters.get("job") == STEPS_BEFORE_DONE + 1
        # ... and then nothing more: let the clock poll run 10 more intervals.
        clock_now = counters.get("clock")
        counters.wait_for("clock", clock_now + 10)
        assert counters.get("job") == STEPS_BEFORE_DONE + 1
        assert page.inner_text("#job-status") == "Done"

        # htmx came from our own origin and runs with the locked-down config.
        config = page.evaluate(
            "[htmx.version, htmx.config.allowEval, htmx.config.allowScriptTags,"
            " htmx.config.selfRequestsOnly, htmx.config.includeIndicatorStyles]"
        )
        assert config == ["2.0.11", False, False, True, False]
        assert page.evaluate("window.__cspViolations") == []
    finally:
        context.close()
    assert requests_seen, "the browser made no request at all"
    offorigin = [u for u in requests_seen if not u.startswith(base + "/")]
    assert offorigin == []
    assert f"{base}/_hedron/static/vendor/htmx.min.js" in requests_seen
    assert f"{base}/_hedron/static/hedron.js" in requests_seen
    assert console_errors == []


def gone_after(error_status: int, errors_before: int) -> Callable[[int], Any]:
    """Two 200 answers, then ``errors_before`` times 500, then ``error_status``."""

    def answer(n: int) -> Any:
        if n <= 2:
            return fragment(Status(f"Step {n}"))
        if n <= 2 + errors_before:
            return fragment(Status("oops"), status_code=500)
        return fragment(Status("gone"), status_code=error_status)

    return answer


@pytest.mark.parametrize(("status", "says"), [(404, "Not found."), (410, "No longer available.")])
def test_poll_stops_when_what_it_watches_is_gone(
    chromium: Any, live_server: Any, status: int, says: str
) -> None:
    # A 5xx (a server restarting) keeps polling; the 404/410 after it stops for good.
    counters = Counters()
    base = live_server(build_app(counters, gone_after(status, errors_before=2)))
    context = chromium.new_context()
    page = context.new_page()
    try:
        page.goto(base + "/")
        stopped = page.wait_for_selector(
            f"#job-status[data-hedron-stopped='{status}'] .h-poll-gone", timeout=DEADLINE_S * 1000
        )
        assert stopped.inner_text() == says
        stopped = page.query_selector("#job-status")
        assert counters.get("job") == 2 + 2 + 1  # two answers, two 500s polled through, the end
        assert stopped.get_attribute("hx-get") is None
        assert stopped.get_attribute("aria-live") == "polite"
        clock_now = counters.get("clock")
        counters.wait_for("clock", clock_now + 10)  # ten more intervals: no request
        assert counters.get("job") == 5
    finally:
        context.close()


def test_htmx_form_post_carries_csrf_and_explorer_is_csp_clean(
    chromium: Any, live_server: Any
) -> None:
    from hedron import Button, Field, Form, Input

    app = Hedron(title="Forms", explorer="development", session_secret=SECRET)
    seen_tokens: list[str | None] = []

    @app.page("/")
    def home() -> Page:
        return Page(
            Form(
                Field("Name", Input("name", value="Ada")),
                Button("Send", type="submit", id="send"),
                action="/hello",
            )
        )

    @app.action("/hello")
    async def hello(request: Request) -> Status:
        seen_tokens.append(request.headers.get("x-csrf-token"))
        form = await request.form()
        return Status(f"Hello {form['name']}", tone="success", id="greeting")

    base = live_server(app)
    context = chromium.new_context()
    page = context.new_page()
    page.add_init_script(
        "window.__cspViolations = [];"
        "document.addEventListener('securitypolicyviolation',"
        " e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    try:
        page.goto(base + "/")
        page.click("#send")
        page.wait_for_selector("#greeting", timeout=DEADLINE_S * 1000)
        assert page.inner_text("#greeting") == "Hello Ada"
        cookie = next(c["value"] for c in context.cookies() if c["name"] == "hedron_csrf")
        assert seen_tokens == [csrf_token_for(cookie, csrf_key(SECRET))]  # bound to the cookie
        assert page.evaluate("window.__cspViolations") == []

        page.goto(base + "/_hedron/explorer")
        page.wait_for_selector("#component-poll")
        assert page.locator(".h-preview").count() >= 20
        assert page.evaluate("window.__cspViolations") == []
    finally:
        context.close()
