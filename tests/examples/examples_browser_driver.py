"""Drive a running hedron app in headless Chromium, with the htmx the app serves, to its end.

Used by the end-to-end example test for an app the README serves instead of the run block's
(``advanced.py``): open ``/``, submit the page's form when it has one, and let the page's own
htmx poll until the status endpoint answers ``HTTP 286`` (hedron's stop rule); then check that
no poll follows it. Nothing here knows how htmx works: the browser does the work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docsite.testing.browser import chromium_browser

STOP_POLLING_STATUS = 286
QUIET_AFTER_STOP_MS = 2500  # longer than any example's poll interval (2 s)


@dataclass
class Outcome:
    """What the browser did: each response it got, and the final polled answer."""

    steps: list[str] = field(default_factory=list)
    final_status: int | None = None
    final_state: str | None = None  # the job's state, from the status URL's JSON answer


def drive(base_url: str, *, window_s: float = 30.0) -> Outcome:
    """Open ``base_url`` in Chromium and let the page run to its terminal state.

    Raises:
        AssertionError: the page did not load, no ``HTTP 286`` came within ``window_s``, or
            the page polled again after it.
    """
    outcome = Outcome()
    with chromium_browser() as browser:
        context = browser.new_context()
        try:
            page = context.new_page()
            responses: list[Any] = []

            def seen(response: Any) -> None:
                responses.append(response)
                path = response.url.removeprefix(base_url.rstrip("/"))
                outcome.steps.append(f"{response.request.method} {path} -> {response.status}")

            page.on("response", seen)
            first = page.goto(base_url)
            assert first is not None, "the page did not load"
            assert first.status == 200, outcome.steps
            submit = page.locator("form button[type=submit]")
            stop = STOP_POLLING_STATUS
            with page.expect_response(lambda r: r.status == stop, timeout=window_s * 1000) as info:
                if submit.count():
                    submit.first.click()
            final = info.value
            outcome.final_status = final.status
            before = len(responses)
            page.wait_for_timeout(QUIET_AFTER_STOP_MS)  # the absence of a poll takes time to see
            again = [r.url for r in responses[before:] if r.url == final.url]
            assert not again, f"polled again after {stop}: {outcome.steps}"
            answer = context.request.get(final.url, headers={"Accept": "application/json"})
            if answer.headers.get("content-type", "").startswith("application/json"):
                outcome.final_state = str(answer.json().get("state"))
            return outcome
        finally:
            context.close()
