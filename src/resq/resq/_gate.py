"""The per-client gate: at most ``max_in_flight`` requests in flight, the others wait in line.

Why it exists: httpcore's connection pool rescans its whole waiting list every time a request
arrives or a connection frees up, so ten thousand requests queued in the pool cost O(n²) and
nothing completes. Requests queued here instead cost O(1) to join, to leave (cancelled, or
their window ended) and to be woken, first come first served, and the pool only ever sees as
many requests as it has connections.

A waiting request never outlives its poll's window: ``acquire(within)`` gives up after
``within`` seconds (at once if ``within <= 0`` and no slot is free), so no request starts after
its deadline. The gate holds a slot only while one request is being sent and its body read,
never during a poll's pause.

``AsyncGate`` serves one event loop (asyncio or trio, through anyio); ``ThreadGate`` serves
threads. Both keep their books in :class:`_Line`; they differ only in how a waiter waits.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from typing import Any, Protocol

import anyio

from resq._loops import running_asyncio_loop

DEFAULT_MAX_IN_FLIGHT = 10
"""The default ``max_in_flight``. A few connections keep a nearby server busy; each request
costs the same however many there are (the httpx pool behind the gate has no queue to rescan:
see :mod:`resq._pool`). A distant server needs more: each slot carries about one request per
round trip."""

MAX_IN_FLIGHT = 10_000
"""The largest ``max_in_flight`` accepted: each slot may hold an open connection, and more
connections than this from one client exceed common file-descriptor limits."""


class NoSlot(Exception):
    """Internal: the window ended before a slot was free; nothing was sent.

    Raised by an engine's ``send(..., within=seconds)`` and always caught by resq itself (a
    poller stops; a verb's first request becomes a :class:`~resq.http.PollTimeout`).
    """


def check_max_in_flight(where: str, value: Any) -> int | None:
    """Return ``value`` if it is ``None`` (no gate) or an ``int`` from 1 to ``MAX_IN_FLIGHT``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(
            f"{where}: max_in_flight must be an int (requests in flight at once) or None "
            f"(no limit), got {type(value).__name__}"
        )
    if not 1 <= value <= MAX_IN_FLIGHT:
        raise ValueError(
            f"{where}: max_in_flight must be between 1 and {MAX_IN_FLIGHT} (or None for no "
            f"limit), got {value!r}"
        )
    return value


class _Waker(Protocol):
    def set(self) -> None: ...


class _Line:
    """The books: how many slots are taken and who waits, in arrival order (no I/O, no lock)."""

    __slots__ = ("_waiters", "in_flight", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_flight = 0
        self._waiters: OrderedDict[_Waker, None] = OrderedDict()

    @property
    def waiting(self) -> int:
        """How many requests wait for a slot."""
        return len(self._waiters)

    def _enter(self) -> bool:
        """Take a free slot if there is one and nobody waits before us."""
        if self.in_flight < self.limit and not self._waiters:
            self.in_flight += 1
            return True
        return False

    def _join(self, waker: _Waker) -> None:
        self._waiters[waker] = None

    def _leave(self, waker: _Waker) -> bool:
        """Leave the line; False if ``waker`` was no longer in it (a slot was handed to it)."""
        if waker in self._waiters:
            del self._waiters[waker]
            return True
        return False

    def _pass_on(self) -> _Waker | None:
        """Free a slot: hand it to the first waiter (returned, to be woken) or give it back."""
        if self._waiters:
            return self._waiters.popitem(last=False)[0]
        self.in_flight -= 1
        return None


class AsyncGate(_Line):
    """The gate of an async client (one event loop)."""

    __slots__ = ()

    async def acquire(self, within: float | None) -> bool:
        """Take a slot, waiting at most ``within`` seconds (``None``: as long as it takes).

        Returns False, holding nothing, if no slot was free in time. A cancelled waiter leaves
        the line (and passes on a slot handed to it as it was cancelled).
        """
        if self._enter():
            return True
        if within is not None and within <= 0:
            return False
        loop = running_asyncio_loop()
        if loop is not None:
            return await self._wait_on_asyncio(loop, within)
        event = anyio.Event()
        self._join(event)
        try:
            with anyio.move_on_after(within):
                await event.wait()
        except BaseException:
            if not self._leave(event):
                self.release()
            raise
        return not self._leave(event)

    async def _wait_on_asyncio(self, loop: asyncio.AbstractEventLoop, within: float | None) -> bool:
        """:meth:`acquire`'s wait on asyncio: one future, and one timer if ``within`` is set
        (an anyio event and cancel scope cost some 80 µs a wait, and thousands of waiting
        polls make every garbage collection longer)."""
        waker = _FutureWaker(loop.create_future())
        self._join(waker)
        timer = None if within is None else loop.call_later(within, waker.set)
        try:
            await waker.future
        except BaseException:
            if not self._leave(waker):
                self.release()
            raise
        finally:
            if timer is not None:
                timer.cancel()
        return not self._leave(waker)

    def release(self) -> None:
        """Give the slot back (to the first waiter, if any)."""
        waker = self._pass_on()
        if waker is not None:
            waker.set()


class _FutureWaker:
    """Wakes an asyncio waiter (the slot was handed to it, or its wait is over)."""

    __slots__ = ("future",)

    def __init__(self, future: asyncio.Future[None]) -> None:
        self.future = future

    def set(self) -> None:
        if not self.future.done():
            self.future.set_result(None)


class ThreadGate(_Line):
    """The gate of a sync client (any number of threads)."""

    __slots__ = ("_lock",)

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self._lock = threading.Lock()

    def acquire(self, within: float | None) -> bool:
        """Take a slot, blocking at most ``within`` seconds (see :meth:`AsyncGate.acquire`)."""
        with self._lock:
            if self._enter():
                return True
            if within is not None and within <= 0:
                return False
            event = threading.Event()
            self._join(event)
        try:
            event.wait(within)
        except BaseException:
            with self._lock:
                handed = not self._leave(event)
            if handed:
                self.release()
            raise
        with self._lock:
            return not self._leave(event)

    def release(self) -> None:
        """Give the slot back (to the first waiter, if any)."""
        with self._lock:
            waker = self._pass_on()
        if waker is not None:
            waker.set()
