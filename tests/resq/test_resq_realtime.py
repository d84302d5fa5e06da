"""The window in real time (small numbers): bounded, and no request starts after the deadline."""

from __future__ import annotations

import time

import pytest
import requests.adapters

from resq import Requests, Session

TIMEOUT = 0.6
DELAY = 0.25
SLEEP_PRECISION = 0.25  # how late an OS sleep may wake up on a heavily loaded machine


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
    adapter = Timed()
    with Session(base_url, adapter="requests", transport=adapter) as c:
        t0 = time.monotonic()
        r = c.get(f"/job/{key}?n=999", timeout=TIMEOUT, delay=DELAY)
        total = time.monotonic() - t0
    assert r.status_code == 503
    longest = max(end - start for start, end in adapter.spans)
    assert TIMEOUT <= total <= TIMEOUT + longest + SLEEP_PRECISION
    assert all(start - t0 <= TIMEOUT + SLEEP_PRECISION for start, _ in adapter.spans)
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
