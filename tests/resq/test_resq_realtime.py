"""The window in real time (small numbers): bounded, and no request starts after the deadline."""

from __future__ import annotations

import time

import pytest
import requests.adapters

from resq import Requests, Session
from resq.clock import SystemClock

TIMEOUT = 0.6
DELAY = 0.25
EPSILON = 1e-6  # float rounding in the client's own arithmetic


class Sleeps(SystemClock):
    """Real time, and a note of each pause the client asks for: (when, how long)."""

    def __init__(self) -> None:
        self.sleeps: list[tuple[float, float]] = []

    def sleep(self, seconds: float) -> None:
        self.sleeps.append((self.now(), seconds))
        super().sleep(seconds)


class Timed(requests.adapters.HTTPAdapter):
    def __init__(self) -> None:
        super().__init__()
        self.spans: list[tuple[float, float]] = []

    def send(self, request, **kwargs):
        start = time.monotonic()
        try:
            return super().send(request, **kwargs)
        finally:
            self.spans.append((start, time.monotonic()))


def test_real_time_window(base_url, key, calls):
    """The window holds in real time: the client waits it out, and no pause it asks for
    ends after its deadline. (How late the OS wakes it on a busy machine is not the client's:
    the pauses are checked as asked for, not as slept.)"""
    adapter, clock = Timed(), Sleeps()
    with Session(base_url, adapter="requests", transport=adapter) as c:
        t0 = time.monotonic()
        r = c.get(f"/job/{key}?n=999", timeout=TIMEOUT, delay=DELAY, clock=clock)
        total = time.monotonic() - t0
    assert r.status_code == 503
    assert total >= TIMEOUT
    first, last = adapter.spans[0][0], adapter.spans[-1][0]
    # one pause between two requests, none after the last; each at most the delay, and
    # ending by the deadline (the window counts from before the first request)
    assert len(clock.sleeps) == len(adapter.spans) - 1
    assert all(first <= at < last for at, _ in clock.sleeps)
    assert all(0 < seconds <= DELAY + EPSILON for _, seconds in clock.sleeps)
    assert all(at + seconds <= first + TIMEOUT + EPSILON for at, seconds in clock.sleeps)
    assert len(calls(key)) == len(adapter.spans)
    assert 1 <= len(adapter.spans) <= 4  # at most 0, 0.25, 0.5 and 0.6 (the deadline)


@pytest.mark.anyio
async def test_real_time_success_returns_early(base_url, key):
    async with Requests(base_url, adapter="httpx", timeout=5) as c:
        t0 = time.monotonic()
        r = await c.get(f"/job/{key}?n=1", timeout=5, delay=0.05)
        total = time.monotonic() - t0
    assert r.status_code == 200
    assert 0.05 <= total < 4  # well inside the 5 s window: it did not wait the window out
