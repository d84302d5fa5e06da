"""Clocks for backends and runners: the context's current clock and a virtual clock.

Every backend and the :class:`~hedron_core.jobs.SteppingRunner` read "now" from the clock
given to them (``clock=``) or, without one, from the **current clock**: ``time.time``
unless a block of code chose another with :func:`use_clock` (a context variable, so it
follows asyncio tasks and the threads anyio starts for plain ``def`` endpoints). A demo
sets one :class:`VirtualClock` there, and every job timestamp, lease and wake-up of the
code inside the block follows it, without passing it around.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ._checks import check_number

__all__ = ["VirtualClock", "current_clock", "use_clock"]

Clock = Callable[[], float]

_current: contextvars.ContextVar[Clock] = contextvars.ContextVar(
    "hedron_jobs_clock", default=time.time
)


def current_clock() -> Clock:
    """The clock used where no ``clock=`` was given: ``time.time`` unless :func:`use_clock`
    set another.

    Example:
        >>> import time
        >>> current_clock() is time.time
        True
    """
    return _current.get()


def now() -> float:
    """The current clock's reading, in seconds."""
    return _current.get()()


def check_clock(clock: object, where: str) -> Clock | None:
    """``None`` or a callable returning "now" in seconds; else a ``TypeError`` naming it."""
    if clock is not None and (isinstance(clock, type) or not callable(clock)):
        got = repr(clock) if isinstance(clock, type) else type(clock).__name__
        raise TypeError(
            f"{where}: clock must be a callable returning seconds (time.time, a VirtualClock) "
            f"or None, got {got}"
        )
    return clock


def clock_or_current(clock: object, where: str) -> Clock:
    """``clock`` when given, else a reader of the current clock (checked when it is read)."""
    checked = check_clock(clock, where)
    return checked if checked is not None else now


@contextmanager
def use_clock(clock: Clock) -> Iterator[Clock]:
    """Make ``clock`` the current clock inside the ``with`` block.

    Backends and stepping runners created without ``clock=`` read it, wherever they were
    created: a recipe's module-level ``InMemoryJobBackend()`` stamps its jobs with the demo's
    virtual time while the demo runs, and with ``time.time`` under uvicorn.

    Args:
        clock: A callable returning seconds (for example a :class:`VirtualClock`).

    Yields:
        The same clock.

    Raises:
        TypeError: ``clock`` is not callable.

    Example:
        >>> from hedron_core.jobs import InMemoryJobBackend
        >>> backend = InMemoryJobBackend()
        >>> with use_clock(VirtualClock(start=5.0)):
        ...     job = backend.submit("demo", {}, auth_subject="u", tenant_id="t")
        >>> job.created_at
        5.0
    """
    checked = check_clock(clock, "use_clock()")
    if checked is None:
        raise TypeError("use_clock(): clock must be a callable returning seconds, got None")
    token = _current.set(checked)
    try:
        yield checked
    finally:
        _current.reset(token)


class VirtualClock:
    """A clock that only moves when told to; pass it wherever a ``clock`` callable is taken.

    Calling the clock returns "now" in seconds, so the same object serves a backend
    (timestamps) and a :class:`~hedron_core.jobs.SteppingRunner` (when sleeping tasks wake up).

    Args:
        start: The initial time in seconds.

    Example:
        >>> clock = VirtualClock(start=100.0)
        >>> clock.advance(2.5)
        102.5
        >>> clock()
        102.5
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = check_number(start, "start", "VirtualClock", negative=True)
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self._now

    def now(self) -> float:
        """The current virtual time in seconds."""
        return self._now

    def advance(self, seconds: float) -> float:
        """Move forward by ``seconds`` (``>= 0``) and return the new time."""
        step = check_number(seconds, "seconds", "VirtualClock.advance", negative=True)
        if step < 0:
            raise ValueError("VirtualClock.advance: seconds must be >= 0 (time never goes back)")
        with self._lock:
            self._now += step
            return self._now

    def advance_to(self, when: float) -> float:
        """Move forward to ``when`` if it lies ahead (never backwards); return the new time."""
        target = check_number(when, "when", "VirtualClock.advance_to", negative=True)
        with self._lock:
            self._now = max(self._now, target)
            return self._now
