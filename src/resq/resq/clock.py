"""Clocks: where polling reads the time and how it waits.

Every poll (``poll()``, the verbs with a ``timeout``, :class:`~resq.http.Poller` and
:class:`~resq.http.AsyncPoller`) reads the time with ``clock.now()`` and waits exactly once per
pause with ``clock.sleep(seconds)`` (sync) or ``await clock.asleep(seconds)`` (async), where
``seconds`` is ``min(delay, remaining window)``. Pass ``clock=`` to one call, or make a clock the
default for a block of code with :func:`use_clock` (a context variable, so it also follows
asyncio/trio tasks started inside the block).

Example:
    >>> from resq.clock import VirtualClock, use_clock
    >>> clock = VirtualClock()
    >>> with use_clock(clock):
    ...     pass  # every poll in here waits in virtual time
    >>> clock.now()
    0.0
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

import anyio
import anyio.lowlevel

from resq import _validate

__all__ = ["Clock", "SystemClock", "VirtualClock", "current_clock", "use_clock"]


@runtime_checkable
class Clock(Protocol):
    """What polling needs from a clock.

    A clock's ``sleep``/``asleep`` may block for as long as it likes (a demo can wait for a
    click there); polling calls it exactly once per pause and then reads ``now()`` again.

    Example:
        >>> class Frozen:
        ...     def now(self) -> float: return 0.0
        ...     def sleep(self, seconds: float) -> None: pass
        ...     async def asleep(self, seconds: float) -> None: pass
        >>> isinstance(Frozen(), Clock)
        True
    """

    def now(self) -> float:
        """Return the current time in seconds (only differences are used)."""
        ...

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (sync polling)."""
        ...

    async def asleep(self, seconds: float) -> None:
        """Wait ``seconds`` (async polling, any anyio backend)."""
        ...


class SystemClock:
    """Real time: ``time.monotonic``, ``time.sleep`` and ``anyio.sleep`` (asyncio or trio).

    Example:
        >>> SystemClock().now() > 0
        True
    """

    def now(self) -> float:
        """Return ``time.monotonic()``."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        """Block the thread for ``seconds`` (a zero pause returns at once)."""
        if seconds > 0:
            time.sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        """Suspend the task for ``seconds`` through anyio (works on asyncio and trio)."""
        await anyio.sleep(seconds)

    def __repr__(self) -> str:
        return "SystemClock()"


class VirtualClock:
    """A clock that only moves when told to: sleeping advances it instantly.

    Use it in tests and demos to get exact, instant timings. Every pause is recorded in
    :attr:`sleeps`. Subclass it (or write any :class:`Clock`) to gate pauses on an event.

    Args:
        start: the initial reading of :meth:`now`.

    Example:
        >>> clock = VirtualClock()
        >>> clock.sleep(1.5)
        >>> clock.advance(0.5)
        >>> clock.now(), clock.sleeps
        (2.0, [1.5])
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = _validate.number("VirtualClock()", "start", start)
        self.sleeps: list[float] = []

    def now(self) -> float:
        """Return the virtual time."""
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the time forward by ``seconds`` without recording a pause."""
        self._now += _validate.number("VirtualClock.advance()", "seconds", seconds)

    def _pass(self, where: str, seconds: float) -> None:
        seconds = _validate.number(where, "seconds", seconds)
        self.sleeps.append(seconds)
        self._now += seconds

    def sleep(self, seconds: float) -> None:
        """Record the pause and advance the time by ``seconds`` (returns at once)."""
        self._pass("VirtualClock.sleep()", seconds)

    async def asleep(self, seconds: float) -> None:
        """Record the pause, advance the time, then yield once to the event loop.

        It does not call :meth:`sleep`, so a subclass may override the two independently.
        """
        self._pass("VirtualClock.asleep()", seconds)
        await anyio.lowlevel.checkpoint()

    def __repr__(self) -> str:
        return f"VirtualClock(now={self._now!r})"


_DEFAULT: Clock = SystemClock()
_current: contextvars.ContextVar[Clock] = contextvars.ContextVar("resq_clock", default=_DEFAULT)


def current_clock() -> Clock:
    """Return the clock used when no ``clock=`` is passed (``SystemClock`` unless overridden).

    Example:
        >>> isinstance(current_clock(), Clock)
        True
    """
    return _current.get()


def check_clock(where: str, clock: object) -> Clock:
    """Return ``clock`` if it implements :class:`Clock`, else raise ``TypeError``."""
    if not isinstance(clock, Clock):
        raise TypeError(
            f"{where}: clock must provide now(), sleep(seconds) and async asleep(seconds), "
            f"got {type(clock).__name__}"
        )
    return clock


@contextmanager
def use_clock(clock: Clock) -> Iterator[Clock]:
    """Make ``clock`` the default clock inside the ``with`` block (a context variable).

    Code that polls inside the block needs no change: ``poll()``, the verbs and the pollers
    pick the clock up when they are called without ``clock=``.

    Args:
        clock: any object implementing :class:`Clock`.

    Yields:
        The same clock.

    Raises:
        TypeError: ``clock`` does not implement :class:`Clock`.

    Example:
        >>> with use_clock(VirtualClock(start=10.0)) as clock:
        ...     current_clock() is clock
        True
    """
    token = _current.set(check_clock("use_clock()", clock))
    try:
        yield clock
    finally:
        _current.reset(token)
