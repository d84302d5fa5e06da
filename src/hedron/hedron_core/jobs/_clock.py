"""Clocks for the runners: the system clock and a deterministic virtual clock."""

from __future__ import annotations

import threading

from ._machine import check_number

__all__ = ["VirtualClock"]


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
