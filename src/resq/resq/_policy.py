"""The polling policy: one pure decision function that the sync and async loops both consult.

Nothing here does I/O or reads a clock: the loops pass in the elapsed time, whether the attempt
succeeded, the parsed ``Retry-After`` and a random number, and get back what to do next.
"""

from __future__ import annotations

import email.utils
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from resq import _validate


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one polling attempt saw (passed to ``on_attempt=`` and returned by ``step()``).

    Attributes:
        number: 1 for the first response (the one you passed to ``poll``, or the verb's first
            request), then 2, 3, ...
        status_code: the HTTP status of this attempt's response.
        elapsed: seconds since the window started (the start of the call), after this attempt.
        next_delay: seconds the poller will wait before the next attempt, or ``None`` when
            polling stops after this attempt.
        method: the request method, e.g. ``"GET"``.
        url: the full URL being polled (the request URL).
        ok: whether this attempt ended polling successfully (good status and ``until``).

    Example:
        >>> a = Attempt(number=1, status_code=503, elapsed=0.0, next_delay=2.0,
        ...             method="GET", url="http://127.0.0.1:8000/job/42", ok=False)
        >>> a.done
        False
    """

    number: int
    status_code: int
    elapsed: float
    next_delay: float | None
    method: str
    url: str
    ok: bool = False

    @property
    def done(self) -> bool:
        """True when this was the last attempt (success or exhaustion)."""
        return self.next_delay is None


@dataclass(frozen=True, slots=True)
class PollOptions:
    """Validated polling options (internal)."""

    timeout: float | None
    delay: float
    until: Callable[[Any], object] | None = None
    max_attempts: int | None = None
    backoff: float = 1.0
    max_delay: float | None = None
    jitter: float = 0.0
    retry_after: bool = False
    raise_on_timeout: bool = False
    on_attempt: Callable[[Attempt], object] | None = None


def make_options(
    where: str,
    timeout: Any,
    delay: Any,
    *,
    until: Any = None,
    max_attempts: Any = None,
    backoff: Any = 1.0,
    max_delay: Any = None,
    jitter: Any = 0.0,
    retry_after: Any = False,
    raise_on_timeout: Any = False,
    on_attempt: Any = None,
) -> PollOptions:
    """Validate every polling argument; raise ``TypeError``/``ValueError`` naming the bad one."""
    v = _validate
    options = PollOptions(
        timeout=v.optional_seconds(where, "timeout", timeout),
        delay=v.seconds(where, "delay", delay),
        until=v.callable_or_none(where, "until", until),
        max_attempts=None
        if max_attempts is None
        else v.integer(where, "max_attempts", max_attempts, minimum=1),
        backoff=v.number(where, "backoff", backoff, kind="a number"),
        max_delay=v.optional_seconds(where, "max_delay", max_delay),
        jitter=v.number(where, "jitter", jitter, kind="a number"),
        retry_after=v.flag(where, "retry_after", retry_after),
        raise_on_timeout=v.flag(where, "raise_on_timeout", raise_on_timeout),
        on_attempt=v.callable_or_none(where, "on_attempt", on_attempt),
    )
    if options.backoff < 1.0:
        raise ValueError(
            f"{where}: backoff must be >= 1 (1 keeps the delay constant), got {backoff!r}"
        )
    if options.jitter > 1.0:
        raise ValueError(f"{where}: jitter must be between 0 and 1, got {jitter!r}")
    return options


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do after an attempt: stop (``wait is None``) or wait ``wait`` seconds and retry."""

    wait: float | None
    success: bool
    reason: str = ""


def scheduled_delay(options: PollOptions, attempt: int, rand: float) -> float:
    """The pause after failed attempt ``attempt`` before the window cap and ``Retry-After``."""
    try:
        base = options.delay * options.backoff ** (attempt - 1)
    except OverflowError:
        base = math.inf
    if options.max_delay is not None:
        base = min(base, options.max_delay)
    if options.jitter:
        base *= 1.0 - options.jitter * rand
    return base


def decide(
    options: PollOptions,
    *,
    attempt: int,
    elapsed: float,
    success: bool,
    retry_after: float | None = None,
    rand: float = 0.0,
) -> Decision:
    """Decide what follows attempt number ``attempt`` (1-based), evaluated ``elapsed`` s in.

    The rules, in order: success stops; ``max_attempts`` reached stops; an elapsed window
    stops (no request starts after the deadline); otherwise wait ``min(delay, remaining)``,
    where ``delay`` includes backoff/max_delay/jitter and, with ``retry_after=True``, is at
    least the server's ``Retry-After``; a ``Retry-After`` beyond the window stops at once.
    """
    if success:
        return Decision(None, True, "success")
    if options.max_attempts is not None and attempt >= options.max_attempts:
        return Decision(None, False, f"max_attempts={options.max_attempts} reached")
    assert options.timeout is not None  # a poll without a window never reaches a decision
    remaining = options.timeout - elapsed
    if remaining <= 0:
        return Decision(None, False, f"window of {options.timeout:g}s elapsed")
    delay = scheduled_delay(options, attempt, rand)
    if options.retry_after and retry_after is not None:
        if retry_after > remaining:
            return Decision(None, False, "Retry-After asks to wait past the window")
        delay = max(delay, retry_after)
    return Decision(min(delay, remaining), False)


def parse_retry_after(value: str | None, wall_now: float) -> float | None:
    """Parse a ``Retry-After`` header (delta-seconds or HTTP-date) into seconds from now.

    ``wall_now`` is the current wall-clock time (``time.time()``) used for HTTP-dates.
    Returns ``None`` for a missing or unparseable header.
    """
    if value is None:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():  # "²".isdigit() is True too
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - wall_now)
