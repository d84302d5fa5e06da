"""The pure policy, and window timing in virtual time with requests that take time."""

from __future__ import annotations

import email.utils

import pytest
import requests.adapters

from resq import Requests
from resq._policy import decide, make_options, parse_retry_after, scheduled_delay
from resq.clock import VirtualClock


def opts(**kw):
    kw.setdefault("timeout", 10)
    kw.setdefault("delay", 2)
    return make_options("t", kw.pop("timeout"), kw.pop("delay"), **kw)


def test_success_stops():
    d = decide(opts(), attempt=1, elapsed=0, success=True)
    assert (d.wait, d.success) == (None, True)


def test_wait_is_min_of_delay_and_remaining():
    assert decide(opts(), attempt=1, elapsed=0, success=False).wait == 2
    assert decide(opts(), attempt=5, elapsed=9.5, success=False).wait == 0.5


@pytest.mark.parametrize("elapsed", [10, 10.01, 99])
def test_no_request_after_the_deadline(elapsed):
    d = decide(opts(), attempt=3, elapsed=elapsed, success=False)
    assert d.wait is None
    assert not d.success


def test_max_attempts_counts_the_first_response():
    o = opts(max_attempts=2)
    assert decide(o, attempt=1, elapsed=0, success=False).wait == 2
    assert decide(o, attempt=2, elapsed=0, success=False).wait is None


def test_backoff_max_delay_and_jitter():
    o = opts(timeout=1000, delay=1, backoff=2, max_delay=5)
    assert [scheduled_delay(o, n, 0.0) for n in range(1, 7)] == [1, 2, 4, 5, 5, 5]
    j = opts(delay=4, jitter=0.5)
    assert scheduled_delay(j, 1, 0.0) == 4
    assert scheduled_delay(j, 1, 0.999) == pytest.approx(2.002)
    huge = opts(timeout=1000, delay=1, backoff=10)
    assert scheduled_delay(huge, 5000, 0.0) == float("inf")
    assert decide(huge, attempt=5000, elapsed=1, success=False).wait == 999


def test_retry_after_is_honoured_within_the_window():
    o = opts(retry_after=True)
    assert decide(o, attempt=1, elapsed=0, success=False, retry_after=5).wait == 5
    assert decide(o, attempt=1, elapsed=0, success=False, retry_after=1).wait == 2  # never sooner
    assert decide(o, attempt=1, elapsed=8, success=False, retry_after=5).wait is None
    off = opts()
    assert decide(off, attempt=1, elapsed=0, success=False, retry_after=5).wait == 2


def test_parse_retry_after():
    assert parse_retry_after("7", 0) == 7
    assert parse_retry_after(None, 0) is None
    assert parse_retry_after("soon", 0) is None
    assert parse_retry_after("²", 0) is None  # str.isdigit() says yes; float() would raise
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert parse_retry_after(date, 1_000_000) == 30
    assert parse_retry_after(date, 2_000_000) == 0


class Costly(requests.adapters.HTTPAdapter):
    """A real HTTP adapter whose requests take ``cost`` seconds of virtual time."""

    def __init__(self, clock: VirtualClock, cost: float | list[float]) -> None:
        super().__init__()
        self.clock = clock
        self.costs = cost if isinstance(cost, list) else None
        self.cost = cost
        self.starts: list[float] = []

    def send(self, request, **kwargs):
        self.starts.append(self.clock.now())
        cost = self.costs.pop(0) if self.costs else self.cost
        self.clock.advance(cost)  # type: ignore[arg-type]
        return super().send(request, **kwargs)


def _client(base_url, adapter):
    return Requests(base_url, adapter="requests", transport=adapter)


def test_window_timing_with_slow_requests(base_url, key):
    clock = VirtualClock(start=100)
    adapter = Costly(clock, 1.0)
    with _client(base_url, adapter) as c:
        r = c.get(f"/job/{key}?n=99", timeout=10, delay=3, clock=clock)
    assert r.status_code == 503
    assert adapter.starts == [100, 104, 108, 110]  # no request starts after 110
    assert clock.sleeps == [3, 3, 1]  # min(delay, remaining)
    assert clock.now() - 100 <= 10 + 1  # total <= timeout + one request


def test_window_starts_before_the_first_request(base_url, key):
    clock = VirtualClock()
    adapter = Costly(clock, 4.0)
    with _client(base_url, adapter) as c:
        c.get(f"/job/{key}?n=99", timeout=5, delay=2, clock=clock)
    assert adapter.starts == [0, 5]
    assert clock.sleeps == [1]


def test_a_request_longer_than_the_window_is_the_only_one(base_url, key, calls):
    clock = VirtualClock()
    with _client(base_url, Costly(clock, 6.0)) as c:
        r = c.get(f"/job/{key}?n=99", timeout=5, delay=1, clock=clock)
    assert r.status_code == 503
    assert clock.sleeps == []
    assert len(calls(key)) == 1


def test_timeout_zero_checks_once(base_url, key, calls):
    clock = VirtualClock()
    with _client(base_url, Costly(clock, 0.0)) as c:
        r = c.get(f"/job/{key}?n=99", timeout=0, delay=1, clock=clock)
    assert r.status_code == 503
    assert len(calls(key)) == 1
