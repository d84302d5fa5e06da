"""Does a slow job backend stall the event loop? An app, a probe backend and the measurement.

:func:`flow_app` builds a Hedron app with a :class:`TaskFlow` on ``backend``, an
``async def`` SSE route on it and an unrelated ``async def /ping``. :class:`Probe` wraps the
backend and sets an event when a call reaches it, so the test knows the request it sent is
now waiting inside the backend (no sleep). :func:`assert_ping_answers_while_blocked` then
times ``GET /ping`` while those requests still wait: with the backend called on the event
loop the ping waits as long as the backend does (seconds); with it on a worker thread the
ping answers in milliseconds.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from typing import Any

import requests
from fastapi import Request

from hedron import Hedron, Page, Text
from hedron.jobs import JobScope, TaskFlow, job_status_events
from hedron_core.jobs import JobState
from tests.jobs.jobs_support import JOBS_SECRET

#: The bound the ping must answer within (it takes about 2 ms on an idle machine).
PING_LIMIT_S = 0.3
OWNER = {"auth_subject": "alice", "tenant_id": "acme"}


class Probe:
    """A job backend wrapper that counts the calls of ``submit``/``get``/``request_cancel``
    that arrived (before they run), so a test can wait until its requests got that far."""

    _WATCHED = ("submit", "get", "request_cancel")

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self._arrived = dict.fromkeys(self._WATCHED, 0)
        self._changed = threading.Condition()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._backend, name)
        if name not in self._WATCHED:
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            with self._changed:
                self._arrived[name] += 1
                self._changed.notify_all()
            return attr(*args, **kwargs)

        return call

    def wait_for(self, counts: dict[str, int], timeout: float) -> bool:
        """Wait until at least ``counts[name]`` calls of each ``name`` arrived."""
        with self._changed:
            return self._changed.wait_for(
                lambda: all(self._arrived[n] >= c for n, c in counts.items()), timeout
            )


def flow_app(backend: Any) -> Hedron:
    """TaskFlow (``/tasks/demo``), ``async def`` SSE (``/events/{id}``) and ``/ping``."""
    app = Hedron(title="loop", session_secret=JOBS_SECRET, job_backend=backend)
    flow = TaskFlow("demo", scope=lambda request: JobScope("alice", "acme"))
    flow.mount(app)

    @app.page("/")
    def home() -> Page:
        return Page(Text("loop"), flow.form())

    @app.get("/events/{job_id}")
    async def events(job_id: str, request: Request) -> Any:
        return job_status_events(backend, job_id, **OWNER, interval_s=0.05, max_duration_s=0.2)

    @app.get("/ping")
    async def ping() -> dict[str, bool]:
        return {"pong": True}

    return app


class Browser:
    """A requests session holding the page's CSRF cookie and token."""

    def __init__(self, base_url: str) -> None:
        self.base = base_url
        self.http = requests.Session()
        page = self.http.get(base_url + "/", timeout=10)
        match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert match, page.text
        self.token = match.group(1)

    def submit(self) -> requests.Response:
        return self.http.post(
            self.base + "/tasks/demo", data={"csrf_token": self.token}, timeout=20
        )

    def cancel(self, job_id: str) -> requests.Response:
        return self.http.post(
            f"{self.base}/tasks/demo/{job_id}/cancel",
            headers={"X-CSRF-Token": self.token, "HX-Request": "true"},
            timeout=20,
        )

    def status(self, job_id: str) -> requests.Response:
        url = f"{self.base}/tasks/demo/{job_id}/status"
        return self.http.get(url, headers={"HX-Request": "true"}, timeout=20)

    def events(self, job_id: str) -> requests.Response:
        return self.http.get(f"{self.base}/events/{job_id}", timeout=20)

    def close(self) -> None:
        self.http.close()


def assert_ping_answers_while_blocked(
    base_url: str,
    probe: Probe,
    calls: dict[str, tuple[str, Callable[[], requests.Response]]],
    *,
    arrive_within_s: float = 1.5,
) -> dict[str, requests.Response]:
    """Send every call (name -> (backend method it reaches, request)) at once, wait until
    each reached the backend (they all do at once, unless one of them holds the event loop),
    then time ``GET /ping`` while they are still waiting there. The backend must stay
    blocked for longer than ``arrive_within_s`` plus the ping.

    Returns the answers of the calls, once the backend let them through.
    """
    answers: dict[str, requests.Response] = {}
    done = threading.Event()
    threads = []
    for name, (_, send) in calls.items():

        def run(name: str = name, send: Callable[[], requests.Response] = send) -> None:
            answers[name] = send()
            done.set()

        threads.append(threading.Thread(target=run, name=f"blocked-{name}", daemon=True))
    for thread in threads:
        thread.start()
    expected: dict[str, int] = {}
    for method, _ in calls.values():
        expected[method] = expected.get(method, 0) + 1
    try:
        arrived = probe.wait_for(expected, timeout=arrive_within_s)
        started = time.monotonic()
        ping = requests.get(base_url + "/ping", timeout=10)
        took = time.monotonic() - started
        still_waiting = not done.is_set()
    finally:
        for thread in threads:
            thread.join(20)
    assert ping.json() == {"pong": True}
    assert took < PING_LIMIT_S, (
        f"GET /ping took {took * 1000:.0f} ms while the backend was blocked: "
        "a backend call ran on the event loop"
    )
    assert arrived, f"not every call reached the backend within {arrive_within_s}s: {expected}"
    assert still_waiting, "the backend let the calls through before the ping was timed"
    return answers


def assert_submitted_and_cancelled(
    answers: dict[str, requests.Response], backend: Any, job_id: str
) -> None:
    """Once let through, the submit answered the new job's Poll and the cancel its final 286,
    and the job is CANCELLED."""
    assert answers["submit"].status_code == 200, answers["submit"].text
    assert "/status" in answers["submit"].text
    assert answers["cancel"].status_code == 286, answers["cancel"].text
    cancelled = backend.get(job_id, **OWNER)
    assert cancelled is not None
    assert cancelled.state is JobState.CANCELLED
