"""``max_in_flight``: the per-client gate, over real loopback sockets (uvicorn in a thread).

The server is a raw ASGI app that records every request it receives (arrival order, how many
are in progress at once, the client's port) and can hold requests until the test releases
them, so "this request is in flight" and "that one waits at the gate" are observed, never
guessed from the passage of time.
"""

from __future__ import annotations

import contextlib
import threading
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import httpx
import pytest

from docsite.testing.live_server import serve
from resq import Requests, Session
from resq._gate import AsyncGate, ThreadGate
from resq.clock import VirtualClock
from resq.http import Attempt, PollTimeout, poll

WAIT_S = 10.0  # the longest any test waits for the server to reach a state it must reach


class HoldApp:
    """``/hold/{name}`` answers 200 once :attr:`opened` is set; ``/job/{name}?n=K`` answers
    503 for its first K calls, then 200. Every request is recorded on arrival."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.active = 0
        self.max_active = 0
        self.arrivals: list[str] = []
        self.ports: set[int] = set()
        self.counts: defaultdict[str, int] = defaultdict(int)
        self.opened = threading.Event()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        path: str = scope["path"]
        with self.changed:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
            self.arrivals.append(path)
            self.ports.add(scope["client"][1])
            self.counts[path] += 1
            count = self.counts[path]
            self.changed.notify_all()
        try:
            if path.startswith("/hold/"):
                await anyio.to_thread.run_sync(self.opened.wait)
            query = dict(p.split("=") for p in scope["query_string"].decode().split("&") if p)
            status = 503 if count <= int(query.get("n", 0)) else 200
        finally:
            with self.changed:
                self.active -= 1
                self.changed.notify_all()
        headers = [(b"content-type", b"text/plain"), (b"content-length", b"2")]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"ok"})

    def wait_for(self, predicate: Callable[[], bool]) -> None:
        """Block until ``predicate()`` holds for the server's state (fail after WAIT_S)."""
        with self.changed:
            assert self.changed.wait_for(predicate, WAIT_S), "the server never got there"

    async def await_for(self, predicate: Callable[[], bool]) -> None:
        await anyio.to_thread.run_sync(self.wait_for, predicate)


@pytest.fixture
def server() -> Iterator[tuple[HoldApp, str]]:
    app = HoldApp()
    with serve(app, lifespan="off") as base:
        try:
            yield app, base
        finally:
            app.opened.set()  # free any request still held, so the server can stop


def gate_of(client: Any) -> Any:
    return client._engine._gate


class PausingClock(VirtualClock):
    """Virtual time whose pauses wait until the test lets them go: ``paused`` is set when a
    pause starts; after ``resume`` is set the time moves on by ``seconds - keep`` (``keep``
    seconds of the window are then left, as real seconds, for the wait for a slot)."""

    def __init__(self, keep: float = 0.0) -> None:
        super().__init__()
        self.keep = keep
        self.paused = threading.Event()
        self.resume = threading.Event()

    async def asleep(self, seconds: float) -> None:
        self.paused.set()
        await anyio.to_thread.run_sync(self.resume.wait)
        self.advance(max(0.0, seconds - self.keep))

    def sleep(self, seconds: float) -> None:
        self.paused.set()
        self.resume.wait(WAIT_S)
        self.advance(max(0.0, seconds - self.keep))


# -- httpx: the async gate -----------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("limit", [3, None])
async def test_in_flight_never_above_the_limit(server, limit):
    app, base = server
    statuses: list[int] = []
    async with Requests(base, adapter="httpx", max_in_flight=limit) as client:

        async def one(i: int) -> None:
            statuses.append((await client.get(f"/hold/{i}", timeout=30, delay=0.01)).status_code)

        with anyio.fail_after(WAIT_S * 2):
            async with anyio.create_task_group() as tg:
                for i in range(12):
                    tg.start_soon(one, i)
                await app.await_for(lambda: app.active == (limit or 12))
                await anyio.wait_all_tasks_blocked()
                if limit is not None:  # the other nine wait at the gate, not in the pool
                    assert gate_of(client).waiting == 9
                    assert gate_of(client).in_flight == 3
                assert app.active == (limit or 12)
                app.opened.set()
    assert statuses == [200] * 12
    assert app.max_active == (limit or 12)


@contextlib.asynccontextmanager
async def only_slot_held(app: HoldApp, base: str) -> AsyncIterator[tuple[Any, Any]]:
    """A one-slot client whose slot ``/hold/a`` holds (at the server) until the test opens
    it; yields the client and the task group, which the block may start more requests in."""
    async with Requests(base, adapter="httpx", max_in_flight=1) as client:
        with anyio.fail_after(WAIT_S * 2):
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.get, "/hold/a")
                await app.await_for(lambda: app.active == 1)
                yield client, tg


@pytest.mark.anyio
async def test_waiters_go_first_come_first_served(server):
    app, base = server
    async with only_slot_held(app, base) as (client, tg):
        for name in "bcde":
            tg.start_soon(client.get, f"/hold/{name}")
            await anyio.wait_all_tasks_blocked()  # it has joined the line
        assert gate_of(client).waiting == 4
        app.opened.set()
    assert app.arrivals == ["/hold/a", "/hold/b", "/hold/c", "/hold/d", "/hold/e"]
    assert app.max_active == 1


@pytest.mark.anyio
async def test_a_first_request_that_never_gets_a_slot_is_not_sent(server):
    app, base = server
    async with only_slot_held(app, base) as (client, _):
        started = anyio.current_time()
        with pytest.raises(PollTimeout) as caught:
            await client.get("/job/b", timeout=0.3, delay=0.1)
        waited = anyio.current_time() - started
        assert app.arrivals == ["/hold/a"]  # b was never sent
        app.opened.set()
    assert caught.value.attempts == 0
    assert caught.value.response is None
    assert "max_in_flight" in str(caught.value)
    assert "nothing was sent" in str(caught.value)
    assert 0.3 <= waited < WAIT_S  # it waited for its window, and no longer


async def _retry_after_the_slot_is_taken(
    app: HoldApp, client: Any, clock: PausingClock, then: Callable[[], object], **kwargs: Any
) -> Any:
    """b polls /job/b: its first attempt gets a 503, then, during its pause, c takes the only
    slot and keeps it; b's pause ends, ``then()`` runs, and b's outcome is returned."""
    outcome: list[Any] = []
    done = anyio.Event()

    async def b() -> None:
        try:
            outcome.append(await client.get("/job/b?n=1", clock=clock, **kwargs))
        except PollTimeout as exc:
            outcome.append(exc)
        done.set()

    with anyio.fail_after(WAIT_S * 2):
        async with anyio.create_task_group() as tg:
            tg.start_soon(b)
            await anyio.to_thread.run_sync(clock.paused.wait)  # b's first attempt is done
            tg.start_soon(client.get, "/hold/c")
            await app.await_for(lambda: app.active == 1)
            clock.resume.set()
            then()
            await done.wait()
            app.opened.set()
    return outcome[0]


@pytest.mark.anyio
@pytest.mark.parametrize("raise_on_timeout", [False, True])
async def test_a_retry_waiting_for_a_slot_stops_at_the_deadline(server, raise_on_timeout):
    """b's pause ends at its deadline while c holds the slot: the retry is not sent, and the
    poll ends with its last response (or PollTimeout) while c still holds the slot."""
    app, base = server
    seen: list[Attempt] = []
    async with Requests(base, adapter="httpx", max_in_flight=1) as client:
        outcome = await _retry_after_the_slot_is_taken(
            app, client, PausingClock(keep=0), lambda: None, timeout=10, delay=10,
            on_attempt=seen.append, raise_on_timeout=raise_on_timeout,
        )  # fmt: skip
        assert app.active == 0  # c was only let go after b had returned
    assert app.counts["/job/b"] == 1  # the retry was never sent
    assert [a.number for a in seen] == [1, 1]
    assert [a.next_delay for a in seen] == [10, None]
    assert seen[-1].status_code == 503
    assert seen[-1].done
    if raise_on_timeout:
        assert isinstance(outcome, PollTimeout)
        assert outcome.attempts == 1
        assert outcome.response.status_code == 503
        assert "max_in_flight" in str(outcome)
    else:
        assert outcome.status_code == 503
        assert not outcome.ok


@pytest.mark.anyio
async def test_a_retry_gets_a_slot_that_frees_up_within_its_window(server):
    app, base = server
    seen: list[Attempt] = []
    async with Requests(base, adapter="httpx", max_in_flight=1) as client:
        outcome = await _retry_after_the_slot_is_taken(
            app, client, PausingClock(keep=WAIT_S), app.opened.set, timeout=30, delay=10,
            on_attempt=seen.append,
        )  # fmt: skip
    assert outcome.status_code == 200
    assert [a.number for a in seen] == [1, 2]
    assert app.arrivals == ["/job/b", "/hold/c", "/job/b"]


@pytest.mark.anyio
async def test_poll_and_the_pollers_wait_for_the_slot_within_the_window_too(server):
    app, base = server
    clock = PausingClock(keep=0)
    async with Requests(base, adapter="httpx", max_in_flight=1) as client:
        first = await client.get("/job/b?n=5")
        with anyio.fail_after(WAIT_S * 2):
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.get, "/hold/c")
                await app.await_for(lambda: app.active == 1)
                clock.resume.set()
                r = await poll(first, timeout=5, delay=5, clock=clock)
                app.opened.set()
    assert r is first
    assert r.status_code == 503
    assert app.counts["/job/b"] == 1


@pytest.mark.anyio
async def test_cancelling_a_waiter_or_a_request_frees_its_place(server):
    app, base = server
    async with Requests(base, adapter="httpx", max_in_flight=1) as client:
        gate = gate_of(client)
        scopes = {name: anyio.CancelScope() for name in "ab"}

        async def run(name: str) -> None:
            with scopes[name]:
                await client.get(f"/hold/{name}")

        with anyio.fail_after(WAIT_S * 2):
            async with anyio.create_task_group() as tg:
                tg.start_soon(run, "a")
                await app.await_for(lambda: app.active == 1)
                tg.start_soon(run, "b")
                await anyio.wait_all_tasks_blocked()
                assert (gate.in_flight, gate.waiting) == (1, 1)
                scopes["b"].cancel()  # a waiter leaves the line
                await anyio.wait_all_tasks_blocked()
                assert (gate.in_flight, gate.waiting) == (1, 0)
                scopes["a"].cancel()  # a request in flight gives its slot back
            assert (gate.in_flight, gate.waiting) == (0, 0)
            r = await client.get("/job/c")  # the slot is free: this goes straight through
    assert r.status_code == 200
    assert app.arrivals == ["/hold/a", "/job/c"]


@pytest.mark.anyio
async def test_a_slot_handed_to_a_waiter_as_it_is_cancelled_is_passed_on():
    gate = AsyncGate(1)
    assert await gate.acquire(None)
    got: list[str] = []
    scopes = {name: anyio.CancelScope() for name in "bc"}

    async def use_a_slot(name: str) -> None:  # what the engines do around a request
        with scopes[name]:
            if await gate.acquire(None):
                try:
                    got.append(name)
                    await anyio.sleep_forever()
                finally:
                    gate.release()

    with anyio.fail_after(WAIT_S):
        async with anyio.create_task_group() as tg:
            for name in "bc":
                tg.start_soon(use_a_slot, name)
                await anyio.wait_all_tasks_blocked()
            assert (gate.in_flight, gate.waiting) == (1, 2)
            scopes["b"].cancel()  # b is cancelled, and before it wakes up ...
            gate.release()  # ... the slot is handed to it: b must pass it on to c
            await anyio.wait_all_tasks_blocked()
            assert (gate.in_flight, gate.waiting) == (1, 0)
            assert got == ["c"]
            scopes["c"].cancel()
    assert (gate.in_flight, gate.waiting) == (0, 0)


@pytest.mark.anyio
async def test_a_single_request_waits_for_the_pool_timeout_then_raises_pool_timeout(server):
    app, base = server
    async with Requests(base, adapter="httpx", timeout=0.3, max_in_flight=1) as client:
        assert await gate_of(client).acquire(None)  # the only slot is taken
        with pytest.raises(httpx.PoolTimeout, match="max_in_flight=1"):
            await client.get("/job/b")
        gate_of(client).release()
        assert (await client.get("/job/b")).status_code == 200
    assert app.arrivals == ["/job/b"]


@pytest.mark.anyio
async def test_the_pool_is_sized_to_the_gate_and_kept_alive(server):
    """25 requests in flight at once, twice over: 25 connections, all reused (httpx alone
    keeps only 20 idle connections alive and would open new ones)."""
    app, base = server
    async with Requests(base, adapter="httpx", max_in_flight=25) as client:
        for _ in range(2):
            app.opened.clear()
            with anyio.fail_after(WAIT_S * 2):
                async with anyio.create_task_group() as tg:
                    for i in range(40):
                        tg.start_soon(client.get, f"/hold/{i}")
                    await app.await_for(lambda: app.active == 25)
                    app.opened.set()
    assert app.max_active == 25
    assert len(app.ports) == 25


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_many_polls_over_real_sockets_all_succeed(server, anyio_backend):
    app, base = server
    oks: list[bool] = []
    async with Requests(base, adapter="httpx") as client:

        async def one(i: int) -> None:
            oks.append((await client.get(f"/job/{i}?n=1", timeout=60, delay=0.05)).ok)

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                for i in range(500):
                    tg.start_soon(one, i)
    assert oks == [True] * 500
    assert app.max_active <= 10  # the default max_in_flight
    assert sum(app.counts.values()) == 1000


# -- the knob ------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [Requests, Session])
@pytest.mark.parametrize("adapter", ["requests", "httpx"])
@pytest.mark.parametrize(
    ("value", "error"),
    [(0, ValueError), (-1, ValueError), (10_001, ValueError), (10**400, ValueError),
     ("4", TypeError), (2.0, TypeError), (True, TypeError), ([4], TypeError)],
)  # fmt: skip
def test_max_in_flight_is_checked_naming_it(cls, adapter, value, error):
    with pytest.raises(error, match=rf"{cls.__name__}\(\): max_in_flight must be"):
        cls("http://127.0.0.1:1", adapter=adapter, max_in_flight=value)


@pytest.mark.parametrize("adapter", ["requests", "httpx"])
def test_max_in_flight_defaults_to_10_and_none_turns_the_gate_off(adapter):
    assert Requests("http://127.0.0.1:1", adapter=adapter).max_in_flight == 10
    off = Session("http://127.0.0.1:1", adapter=adapter, max_in_flight=None)
    assert off.max_in_flight is None
    assert gate_of(off) is None
    assert gate_of(Session("http://127.0.0.1:1", adapter=adapter, max_in_flight=7)).limit == 7


# -- requests: the thread gate -------------------------------------------------------------------
class WatchedGate(ThreadGate):
    """A ThreadGate that tells the test when someone joins its line."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.joined = threading.Condition()

    def _join(self, waker: Any) -> None:
        super()._join(waker)
        with self.joined:
            self.joined.notify_all()

    def wait_until_waiting(self, n: int) -> None:
        with self.joined:
            assert self.joined.wait_for(lambda: self.waiting >= n, WAIT_S)


def watched(client: Any) -> WatchedGate:
    gate = WatchedGate(client.max_in_flight)
    client._engine._gate = gate
    return gate


@pytest.mark.parametrize("cls", [Requests, Session])
def test_threads_in_flight_never_above_the_limit(server, cls):
    app, base = server
    with cls(base, max_in_flight=2) as client, ThreadPoolExecutor(8) as pool:
        gate = watched(client)
        futures = [pool.submit(client.get, f"/hold/{i}", timeout=30, delay=0.01) for i in range(8)]
        app.wait_for(lambda: app.active == 2)
        gate.wait_until_waiting(6)
        assert app.active == 2
        app.opened.set()
        statuses = [f.result(WAIT_S).status_code for f in futures]
    assert statuses == [200] * 8
    assert app.max_active == 2


def test_threads_go_first_come_first_served(server):
    app, base = server
    with Session(base, max_in_flight=1) as client, ThreadPoolExecutor(5) as pool:
        gate = watched(client)
        futures = [pool.submit(client.get, "/hold/a")]
        app.wait_for(lambda: app.active == 1)
        for n, name in enumerate("bcde", 1):
            futures.append(pool.submit(client.get, f"/hold/{name}"))
            gate.wait_until_waiting(n)
        app.opened.set()
        for f in futures:
            f.result(WAIT_S)
    assert app.arrivals == ["/hold/a", "/hold/b", "/hold/c", "/hold/d", "/hold/e"]


def test_a_thread_waits_for_a_slot_no_longer_than_its_window(server):
    app, base = server
    clock = PausingClock(keep=0)
    with Session(base, max_in_flight=1) as client, ThreadPoolExecutor(2) as pool:
        held = pool.submit(client.get, "/hold/a")
        app.wait_for(lambda: app.active == 1)
        with pytest.raises(PollTimeout, match="nothing was sent") as caught:
            client.get("/job/b", timeout=0.3, delay=0.1)  # its first request
        assert caught.value.attempts == 0
        app.opened.set()
        held.result(WAIT_S)
        # a retry whose window ends while the slot is taken is not sent either
        r = client.get("/job/c?n=5")
        app.opened.clear()
        held = pool.submit(client.get, "/hold/d")
        app.wait_for(lambda: app.active == 1)
        clock.resume.set()
        polled = poll(r, timeout=5, delay=5, clock=clock)
        app.opened.set()
        held.result(WAIT_S)
    assert polled is r
    assert r.status_code == 503
    assert app.arrivals == ["/hold/a", "/job/c", "/hold/d"]


def test_a_session_keeps_one_connection_per_slot(server):
    """30 threads share a Session: 30 kept-alive connections (requests alone keeps 10 and
    throws the others away after each request)."""
    app, base = server
    with Session(base, max_in_flight=30) as client, ThreadPoolExecutor(30) as pool:
        for _ in range(2):
            app.opened.clear()
            futures = [pool.submit(client.get, f"/hold/{i}") for i in range(30)]
            app.wait_for(lambda: app.active == 30)
            app.opened.set()
            assert [f.result(WAIT_S).status_code for f in futures] == [200] * 30
    assert len(app.ports) == 30
