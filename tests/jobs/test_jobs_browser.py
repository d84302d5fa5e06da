"""Real Chromium: TaskFlow end to end (CSRF on submit, cancel) and polling that really stops."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest
from fastapi import Request
from jobs_support import JOBS_SECRET

from hedron import ComponentRef, Hedron, Page, Poll, Status
from hedron.jobs import JobScope, TaskFlow
from hedron.responses import fragment
from hedron_core.htmx import STOP_POLLING_STATUS
from hedron_core.jobs import InMemoryJobBackend, TaskContext, ThreadPoolRunner
from tryit.recipe import load_recipe

pytestmark = pytest.mark.browser

DEADLINE_MS = 15_000


@pytest.fixture
def taskflow_recipe() -> Iterator[ModuleType]:
    module = load_recipe("taskflow").load("app.py")
    try:
        yield module
    finally:
        module.runner.stop()


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    context = chromium.new_context()
    page = context.new_page()
    page.problems = []  # console errors and failed requests, checked by each test
    page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" else None)
    page.on("requestfailed", lambda r: page.problems.append(f"failed {r.url}"))
    try:
        yield page
    finally:
        context.close()


def test_taskflow_recipe_runs_to_its_result(
    live_server: Callable[..., str], taskflow_recipe: ModuleType, page: Any
) -> None:
    base = live_server(taskflow_recipe.app)
    posts: list[tuple[str, str | None]] = []
    page.on(
        "request",
        lambda r: (
            posts.append((r.url, r.headers.get("x-csrf-token"))) if r.method == "POST" else None
        ),
    )
    page.goto(base + "/")
    page.fill("input[name=steps]", "1")
    page.click("button[type=submit]")
    page.wait_for_selector("#resize-status .h-tone-success", timeout=DEADLINE_MS)
    text = page.inner_text("#resize-status")
    assert "Done." in text
    assert '"resized": 1' in text
    assert [url for url, _ in posts] == [base + "/tasks/resize"]
    assert posts[0][1], "htmx sent the CSRF header with the submit"
    # Start another: the form comes back, and a second job runs to its result too
    page.click("#resize-status button:has-text('Start another')")
    page.wait_for_selector("#resize-flow input[name=steps]", timeout=DEADLINE_MS)
    page.fill("input[name=steps]", "2")
    page.click("button[type=submit]")
    page.wait_for_selector("#resize-status .h-tone-success", timeout=DEADLINE_MS)
    assert '"resized": 2' in page.inner_text("#resize-status")
    assert [url for url, _ in posts] == [base + "/tasks/resize"] * 2
    assert all(token for _, token in posts)
    assert page.problems == []


def test_taskflow_recipe_cancel(
    live_server: Callable[..., str], taskflow_recipe: ModuleType, page: Any
) -> None:
    base = live_server(taskflow_recipe.app)
    page.goto(base + "/")
    page.fill("input[name=steps]", "5")
    page.click("button[type=submit]")
    page.wait_for_selector("#resize-status progress", timeout=DEADLINE_MS)
    assert "Resizing image" in page.inner_text("#resize-status")
    page.click("#resize-status button[hx-post$='/cancel']")
    page.wait_for_selector("#resize-status >> text=Cancelled.", timeout=DEADLINE_MS)
    assert "Cancel" not in page.inner_text("#resize-status").replace("Cancelled.", "")
    assert page.problems == []


class Ticks:
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.count = 0

    def hit(self) -> int:
        with self.cond:
            self.count += 1
            self.cond.notify_all()
            return self.count

    def wait_for(self, at_least: int, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.count < at_least:
                left = deadline - time.monotonic()
                assert left > 0, f"only {self.count}/{at_least} ticks"
                self.cond.wait(left)


def test_no_status_request_after_the_job_succeeded(
    live_server: Callable[..., str], page: Any
) -> None:
    async def quick(ctx: TaskContext) -> dict[str, bool]:
        ctx.progress(0, 1, "working")
        await ctx.sleep(0.3)
        return {"ok": True}

    backend = InMemoryJobBackend()
    ticks = Ticks()
    app = Hedron(title="stop", session_secret=JOBS_SECRET, job_backend=backend)
    with ThreadPoolRunner(backend, {"quick": quick}) as runner:
        flow = TaskFlow(
            "quick",
            scope=lambda request: JobScope("alice", "acme"),
            runner=runner,
            poll_interval_ms=100,
        )
        flow.mount(app)

        @app.page("/")
        def home(request: Request) -> Page:
            clock = ComponentRef(logical_id="clock", path="/tick")
            return Page(flow.form(), Poll(ref=clock, interval_ms=100, content=Status("0")))

        @app.get("/tick")
        async def tick() -> Any:
            return fragment(Status(str(ticks.hit())))

        base = live_server(app)
        status_answers: list[int] = []
        page.on(
            "response",
            lambda r: status_answers.append(r.status) if r.url.endswith("/status") else None,
        )
        page.goto(base + "/")
        page.click("button[type=submit]")
        page.wait_for_selector("#quick-status .h-tone-success", timeout=DEADLINE_MS)
        assert status_answers[-1] == STOP_POLLING_STATUS
        assert status_answers.count(STOP_POLLING_STATUS) == 1
        seen = len(status_answers)
        # Ten more ticks of the page's own 100 ms clock poll: ten status intervals passed.
        ticks.wait_for(ticks.count + 10)
        assert len(status_answers) == seen, "the browser kept polling after 286"
        assert all(code == 200 for code in status_answers[:-1])
        assert page.problems == []
