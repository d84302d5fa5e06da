"""Clocks for the runners: the system clock and a deterministic virtual clock."""

from __future__ import annotations

import threading

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
        if isinstance(start, bool) or not isinstance(start, int | float):
            raise TypeError("VirtualClock: start must be a number")
        self._now = float(start)
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self._now

    def now(self) -> float:
        """The current virtual time in seconds."""
        return self._now

    def advance(self, seconds: float) -> float:
        """Move forward by ``seconds`` (``>= 0``) and return the new time."""
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise TypeError("VirtualClock.advance: seconds must be a number")
        if seconds < 0:
            raise ValueError("VirtualClock.advance: seconds must be >= 0 (time never goes back)")
        with self._lock:
            self._now += float(seconds)
            return self._now

    def advance_to(self, when: float) -> float:
        """Move forward to ``when`` if it lies ahead (never backwards); return the new time."""
        with self._lock:
            self._now = max(self._now, float(when))
            return self._now
