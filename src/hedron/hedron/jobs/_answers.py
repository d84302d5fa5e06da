"""The last status answer of each polled job, reused while what the answer shows is unchanged.

A ``Poll`` asks for a job's status every few seconds and most answers are the same as the one
before (the job is still queued, or still at step 3 of 10). :class:`AnswerCache` keeps, per
job and caller, the bytes and headers of the last answer together with the fields of the job
they were made from (its *look*); the next poll whose job has the same look is answered with
those bytes instead of building and rendering the view again. It only stores: deciding what
is cacheable, and checking that the caller may see the job, is the caller's business, done on
every request before the cache is asked.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

__all__ = ["AnswerCache", "StatusAnswer"]


class StatusAnswer(NamedTuple):
    """The HTML variant of a status answer: ready to send, and immutable."""

    body: bytes
    status_code: int
    raw_headers: tuple[tuple[bytes, bytes], ...]


#: (job id, auth_subject, tenant_id, retry_after_s): one slot per job and caller.
Key = tuple[str, str, str, int]


class AnswerCache:
    """At most ``maxsize`` jobs' last answers, each with the look it was made from.

    Each job has one slot: a new look replaces the job's previous answer (so a running job
    does not fill the cache with its past steps). When the cache is full, the slot stored
    longest ago goes. Reads take no lock (a dict lookup is atomic); writes take one, so
    handlers running in threads cannot corrupt the eviction order.

    Args:
        maxsize: How many jobs' answers are kept (at least 1).

    Example:
        >>> cache = AnswerCache(2)
        >>> answer = StatusAnswer(b"<p>Queued</p>", 200, ())
        >>> cache.put(("j", "u", "t", 2), ("queued",), answer)
        >>> cache.get(("j", "u", "t", 2), ("queued",)) is answer
        True
        >>> cache.get(("j", "u", "t", 2), ("running",)) is None
        True
    """

    def __init__(self, maxsize: int) -> None:
        if isinstance(maxsize, bool) or not isinstance(maxsize, int):
            kind = type(maxsize).__name__
            raise TypeError(f"AnswerCache(maxsize=...) must be an int, got {kind}")
        if maxsize < 1:
            raise ValueError(f"AnswerCache(maxsize=...) must be >= 1, got {maxsize}")
        self.maxsize = maxsize
        self._slots: dict[Key, tuple[tuple[object, ...], StatusAnswer]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._slots)

    def get(self, key: Key, look: tuple[object, ...]) -> StatusAnswer | None:
        """The answer stored for ``key`` if it was made from an equal ``look``, else ``None``."""
        slot = self._slots.get(key)
        if slot is not None and slot[0] == look:
            return slot[1]
        return None

    def put(self, key: Key, look: tuple[object, ...], answer: StatusAnswer) -> None:
        """Store ``answer`` (made from ``look``) as ``key``'s, evicting the oldest when full."""
        with self._lock:
            self._slots.pop(key, None)
            self._slots[key] = (look, answer)
            while len(self._slots) > self.maxsize:
                del self._slots[next(iter(self._slots))]

    def discard(self, key: Key) -> None:
        """Forget ``key``'s answer (its job finished: it will not be polled again)."""
        if key in self._slots:
            with self._lock:
                self._slots.pop(key, None)

    def clear(self) -> None:
        """Forget every answer."""
        with self._lock:
            self._slots.clear()
