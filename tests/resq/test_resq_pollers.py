"""Poller / AsyncPoller: one attempt per step, identical to poll(); clocks called once per wait."""

from __future__ import annotations

import anyio
import httpx
import pytest

from resq import Requests
from resq.clock import VirtualClock, use_clock
from resq.http import AsyncPoller, Attempt, Poller, poll

pytestmark = pytest.mark.anyio


class CountingClock(VirtualClock):
    """Records every call: a gating clock's sleep may block, so it must be called once per wait."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, float]] = []

    def sleep(self, seconds: float) -> None:
        self.calls.append(("sleep", seconds))
        super().sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        self.calls.append(("asleep", seconds))
        await super().asleep(seconds)


def _scenario(client, key, run):
    """Poll /job/<key>?n=4 through ``run`` with a fresh clock; return (attempts, sleeps, status)."""
    seen: list[Attempt] = []
    clock = VirtualClock()
    r = client.get(f"/job/{key}?n=4&fail=404")
    result = run(r, clock, seen)
    assert result is r
    return [dataclasses_without_url(a) for a in seen], clock.sleeps, r.status_code


def dataclasses_without_url(a: Attempt) -> tuple:
    return (a.number, a.status_code, a.elapsed, a.next_delay, a.method, a.ok)


@pytest.mark.parametrize("timeout", [3, 7, 30])
def test_stepping_is_identical_to_poll(base_url, key, timeout):
    def with_poll(r, clock, seen):
        return poll(r, timeout, 2, clock=clock, on_attempt=seen.append)

    def with_steps(r, clock, seen):
        poller = Poller(r, timeout, 2, clock=clock)
        while not poller.done:
            seen.append(poller.step())
        return poller.response

    def with_iter(r, clock, seen):
        poller = Poller(r, timeout, 2, clock=clock)
        seen.extend(poller)
        return poller.response

    with Requests(base_url, adapter="requests") as c:
        a = _scenario(c, key + "a", with_poll)
        b = _scenario(c, key + "b", with_steps)
        d = _scenario(c, key + "d", with_iter)
    assert a == b == d
    assert len(a[0]) == min(5, timeout // 2 + 1 + (timeout % 2 > 0))


def test_each_step_is_exactly_one_attempt(base_url, key, calls):
    clock = CountingClock()
    with Requests(base_url, adapter="requests") as c:
        poller = Poller(c.get(f"/job/{key}?n=2"), 30, 2, clock=clock)
        assert poller.attempts == 0
        assert poller.last is None
        first = poller.step()  # evaluates the given response: no request, no sleep
        assert (first.number, first.status_code, first.next_delay) == (1, 503, 2)
        assert len(calls(key)) == 1
        assert clock.calls == []
        second = poller.step()
        assert len(calls(key)) == 2
        assert clock.calls == [("sleep", 2)]
        assert second.number == 2
        third = poller.step()
        assert third.ok
        assert third.done
        assert poller.done
        assert poller.last is third
        assert poller.next_delay is None
        assert poller.deadline == 30
        with pytest.raises(RuntimeError, match="finished"):
            poller.step()
    assert clock.calls == [("sleep", 2), ("sleep", 2)]
    assert len(calls(key)) == 3


def test_clock_sleep_is_called_once_per_wait_with_min_delay_remaining(base_url, key):
    clock = CountingClock()
    with Requests(base_url, adapter="requests") as c:
        c.get(f"/job/{key}?n=99", timeout=5, delay=2, clock=clock)
    assert clock.calls == [("sleep", 2), ("sleep", 2), ("sleep", 1)]


def test_timeout_none_poller_is_done_from_the_start(base_url, key):
    with Requests(base_url, adapter="requests") as c:
        poller = Poller(c.get(f"/job/{key}?n=2"), None, 2)
        assert poller.done
        assert poller.run().status_code == 503


def test_started_at_puts_the_window_start_in_the_past(base_url, key, calls):
    clock = VirtualClock(start=50)
    with Requests(base_url, adapter="requests") as c:
        r = c.get(f"/job/{key}?n=9")
        Poller(r, 10, 3, clock=clock, started_at=45).run()
    assert clock.sleeps == [3, 2]  # 5 s of the window were already used


async def test_async_stepping_is_identical_to_poll(base_url, key, calls):
    async def scenario(k: str, stepping: bool):
        clock = CountingClock()
        seen: list[Attempt] = []
        async with Requests(base_url, adapter="httpx") as c:
            r = await c.get(f"/job/{k}?n=3&fail=304")
            if stepping:
                poller = AsyncPoller(r, 5, 2, clock=clock)
                async for attempt in poller:
                    seen.append(attempt)
                assert poller.response is r
                with pytest.raises(RuntimeError):
                    await poller.step()
            else:
                assert await poll(r, 5, 2, clock=clock, on_attempt=seen.append) is r
        return [dataclasses_without_url(a) for a in seen], clock.calls, r.status_code

    polled = await scenario(key + "p", False)
    stepped = await scenario(key + "s", True)
    assert polled == stepped
    assert polled[1] == [("asleep", 2), ("asleep", 2), ("asleep", 1)]
    assert polled[2] == 200


async def test_async_poller_step_by_step(base_url, key, calls):
    transport = httpx.AsyncHTTPTransport()
    async with Requests(base_url, adapter="httpx", transport=transport) as c:
        poller = AsyncPoller(await c.get(f"/job/{key}?n=1"), 30, 1, clock=VirtualClock())
        assert (await poller.step()).status_code == 503
        assert (await poller.step()).status_code == 200
        assert poller.done
    assert len(calls(key)) == 2


class GatingClock(VirtualClock):
    """Like the docs' demo clock: every pause blocks until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting: list[float] = []
        self.arrived = anyio.Event()
        self.gate = anyio.Event()

    async def asleep(self, seconds: float) -> None:
        self.waiting.append(seconds)
        self.arrived.set()
        await self.gate.wait()
        self.gate = anyio.Event()
        await super().asleep(seconds)


async def test_a_gating_clock_holds_each_pause_until_released(base_url, key, calls):
    clock = GatingClock()
    result: list[int] = []
    async with Requests(base_url, adapter="httpx") as c:

        async def run() -> None:
            with use_clock(clock):  # recipe code below is unchanged
                r = await c.get(f"/job/{key}?n=2", timeout=10, delay=3)
            result.append(r.status_code)

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            for expected_calls in (1, 2):
                with anyio.fail_after(5):
                    await clock.arrived.wait()
                clock.arrived = anyio.Event()
                assert len(calls(key)) == expected_calls  # nothing more is sent while waiting
                clock.gate.set()
    assert result == [200]
    assert clock.waiting == [3, 3]
    assert clock.sleeps == [3, 3]
