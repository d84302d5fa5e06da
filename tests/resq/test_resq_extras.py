"""The opt-in extras: until, max_attempts, backoff, retry_after, raise_on_timeout, on_attempt."""

from __future__ import annotations

import dataclasses

import pytest

from resq import Requests
from resq.clock import VirtualClock, use_clock
from resq.http import Attempt, PollTimeout, poll

pytestmark = pytest.mark.anyio


@pytest.fixture
def client(base_url):
    with Requests(base_url, adapter="requests", timeout=5) as c:
        yield c


def test_until_polls_until_the_predicate_holds(client, key, calls):
    clock = VirtualClock()
    r = client.get(
        f"/state/{key}?n=2", timeout=30, delay=1, clock=clock,
        until=lambda r: r.json()["state"] == "done",
    )  # fmt: skip
    assert r.json() == {"state": "done", "attempt": 3}
    assert len(calls(key)) == 3


def test_until_is_not_consulted_on_a_bad_status(client, key):
    seen: list[int] = []

    def until(r):
        seen.append(r.status_code)
        return True

    client.get(f"/job/{key}?n=2", timeout=30, delay=1, clock=VirtualClock(), until=until)
    assert seen == [200]


def test_max_attempts(client, key, calls):
    r = client.get(f"/job/{key}?n=9", timeout=30, delay=1, max_attempts=2, clock=VirtualClock())
    assert r.status_code == 503
    assert len(calls(key)) == 2


def test_backoff_and_max_delay(client, key):
    clock = VirtualClock()
    client.get(f"/job/{key}?n=6", timeout=100, delay=1, backoff=2, max_delay=5, clock=clock)
    assert clock.sleeps == [1, 2, 4, 5, 5, 5]


def test_jitter_stays_within_its_fraction(client, key):
    clock = VirtualClock()
    client.get(f"/job/{key}?n=5", timeout=100, delay=4, jitter=0.25, clock=clock)
    assert len(clock.sleeps) == 5
    assert all(3 <= s <= 4 for s in clock.sleeps)


def test_retry_after_waits_what_the_server_asks(client, key, calls):
    clock = VirtualClock()
    r = client.get(f"/ra/{key}?n=2&after=3", timeout=30, delay=1, retry_after=True, clock=clock)
    assert r.status_code == 200
    assert clock.sleeps == [3, 3]


def test_retry_after_past_the_window_stops_at_once(client, key, calls):
    clock = VirtualClock()
    r = client.get(f"/ra/{key}?n=2&after=60", timeout=30, delay=1, retry_after=True, clock=clock)
    assert r.status_code == 503
    assert clock.sleeps == []
    assert len(calls(key)) == 1


def test_retry_after_is_ignored_by_default(client, key):
    clock = VirtualClock()
    client.get(f"/ra/{key}?n=2&after=3", timeout=30, delay=1, clock=clock)
    assert clock.sleeps == [1, 1]


def test_raise_on_timeout(client, key):
    clock = VirtualClock()
    with pytest.raises(PollTimeout, match="window of 3s elapsed; last status 404") as info:
        client.get(
            f"/job/{key}?n=9&fail=404", timeout=3, delay=1, clock=clock, raise_on_timeout=True
        )
    assert info.value.response.status_code == 404
    assert info.value.attempts == 4
    assert isinstance(info.value, TimeoutError)


def test_raise_on_timeout_after_max_attempts(client, key):
    r = client.get(f"/job/{key}?n=9", timeout=None)
    with pytest.raises(PollTimeout, match="max_attempts=2") as info:
        poll(r, 30, 1, max_attempts=2, raise_on_timeout=True, clock=VirtualClock())
    assert info.value.response is r


def test_on_attempt_reports_every_attempt(client, key, base_url):
    clock = VirtualClock()
    seen: list[Attempt] = []
    client.get(f"/job/{key}?n=3", timeout=30, delay=2, clock=clock, on_attempt=seen.append)
    url = f"{base_url}/job/{key}?n=3"
    assert seen == [
        Attempt(1, 503, 0.0, 2.0, "GET", url, False),
        Attempt(2, 503, 2.0, 2.0, "GET", url, False),
        Attempt(3, 503, 4.0, 2.0, "GET", url, False),
        Attempt(4, 200, 6.0, None, "GET", url, True),
    ]
    assert [a.done for a in seen] == [False, False, False, True]
    with pytest.raises(dataclasses.FrozenInstanceError):
        seen[0].number = 9  # type: ignore[misc]


def test_use_clock_reaches_recipe_code_unchanged(client, key):
    clock = VirtualClock()
    with use_clock(clock):
        r = client.get(f"/job/{key}?n=2", timeout=60, delay=30)  # would take 60 s of real time
    assert r.status_code == 200
    assert clock.sleeps == [30, 30]


async def test_use_clock_reaches_async_code(base_url, key):
    clock = VirtualClock()
    with use_clock(clock):
        async with Requests(base_url, adapter="httpx") as c:
            r = await c.get(f"/job/{key}?n=2", timeout=60, delay=30)
    assert r.status_code == 200
    assert clock.sleeps == [30, 30]


async def test_async_extras(base_url, key):
    clock = VirtualClock()
    seen: list[Attempt] = []
    async with Requests(base_url, adapter="httpx") as c:
        r = await c.get(
            f"/state/{key}?n=3", timeout=30, delay=1, backoff=2, clock=clock,
            until=lambda r: r.json()["state"] == "done", on_attempt=seen.append,
        )  # fmt: skip
        with pytest.raises(PollTimeout):
            await c.get(f"/job/{key}x?n=9", timeout=2, delay=1, clock=clock, raise_on_timeout=True)
    assert r.json()["attempt"] == 4
    assert clock.sleeps[:3] == [1, 2, 4]
    assert [a.next_delay for a in seen] == [1, 2, 4, None]
