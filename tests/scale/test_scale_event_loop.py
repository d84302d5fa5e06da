"""A stalled Redis does not stall the app (issue 19, finding 1).

``redis-server`` is paused (SIGSTOP) for 3 s while TaskFlow's status, cancel and submit and
an ``async def`` SSE route wait inside the Redis backend. Meanwhile an unrelated
``async def /ping`` must answer within 300 ms (it took 2,637 ms when those routes called
Redis on the event loop).
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

import pytest

from docsite.testing.redis_server import RedisServer
from hedron_core.jobs import JobState
from hedron_core.jobs.redis_backend import RedisJobBackend
from tests.jobs.loop_probe import (
    OWNER,
    Browser,
    Probe,
    assert_ping_answers_while_blocked,
    assert_submitted_and_cancelled,
    flow_app,
)

PAUSE_S = 3.0

pytestmark = pytest.mark.slow


def test_an_unrelated_route_answers_while_redis_is_paused(live_server: Any) -> None:
    with RedisServer() as server:
        backend = RedisJobBackend(server.url, prefix="loop:")
        try:
            watched = backend.submit("demo", {}, **OWNER)
            doomed = backend.submit("demo", {}, **OWNER)
            backend.mark(watched.id, JobState.RUNNING)
            probe = Probe(backend)
            base = live_server(flow_app(probe))
            browser = Browser(base)
            pid = server._proc.pid  # type: ignore[union-attr]
            os.kill(pid, signal.SIGSTOP)
            resume = threading.Timer(PAUSE_S, os.kill, (pid, signal.SIGCONT))
            resume.start()
            try:
                answers = assert_ping_answers_while_blocked(
                    base,
                    probe,
                    {
                        "status": ("get", lambda: browser.status(watched.id)),
                        "events": ("get", lambda: browser.events(watched.id)),
                        "cancel": ("request_cancel", lambda: browser.cancel(doomed.id)),
                        "submit": ("submit", browser.submit),
                    },
                )
            finally:
                resume.join()
                os.kill(pid, signal.SIGCONT)  # in case the timer did not run
                browser.close()
            assert answers["status"].status_code == 200, answers["status"].text
            assert "Running…" in answers["status"].text
            assert answers["events"].status_code == 200
            assert "event: status" in answers["events"].text
            assert_submitted_and_cancelled(answers, backend, doomed.id)
        finally:
            backend.close()
