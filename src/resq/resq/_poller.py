"""The steppable pollers and ``poll()``: one attempt per ``step()``, the policy decides the rest.

``Poller`` (sync) and ``AsyncPoller`` (async) share everything except the two lines that wait
and reload; ``poll()`` and the client verbs are ``Poller(...).run()`` / ``AsyncPoller(...).run()``.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, Generic, TypeVar, cast, overload

from resq import _policy, _validate
from resq._engines import check_open
from resq._errors import PollTimeout
from resq._gate import NoSlot
from resq._policy import Attempt, PollOptions
from resq._responses import AsyncResponse, BaseResponse, Response
from resq.clock import Clock, check_clock, current_clock

W = TypeVar("W", Response, AsyncResponse)


class _PollerBase(Generic[W]):
    """State and bookkeeping shared by both pollers (no I/O here)."""

    _wrapper_type: type[BaseResponse[Any]]

    def __init__(
        self,
        response: W,
        timeout: float | None,
        delay: float,
        *,
        until: Callable[[W], object] | None = None,
        max_attempts: int | None = None,
        backoff: float = 1.0,
        max_delay: float | None = None,
        jitter: float = 0.0,
        retry_after: bool = False,
        raise_on_timeout: bool = False,
        on_attempt: Callable[[Attempt], object] | None = None,
        clock: Clock | None = None,
        started_at: float | None = None,
    ) -> None:
        where = f"{type(self).__name__}()"
        options = _policy.make_options(
            where, timeout, delay, until=until, max_attempts=max_attempts, backoff=backoff,
            max_delay=max_delay, jitter=jitter, retry_after=retry_after,
            raise_on_timeout=raise_on_timeout, on_attempt=on_attempt,
        )  # fmt: skip
        self._setup(
            where,
            response,
            options,
            None if clock is None else check_clock(where, clock),
            started_at,
        )

    @classmethod
    def _create(
        cls, where: str, response: Any, options: PollOptions, clock: Clock | None,
        started_at: float | None = None,
    ) -> Any:  # fmt: skip
        self = cls.__new__(cls)
        self._setup(where, response, options, clock, started_at)
        return self

    def _setup(
        self, where: str, response: Any, options: PollOptions, clock: Clock | None,
        started_at: float | None,
    ) -> None:  # fmt: skip
        if not isinstance(response, self._wrapper_type):
            raise TypeError(
                f"{where}: response must be a resq {self._wrapper_type.__name__}, "
                f"got {type(response).__name__}"
            )
        self._clock = current_clock() if clock is None else clock
        if started_at is not None and (
            isinstance(started_at, bool) or not isinstance(started_at, int | float)
        ):
            raise TypeError(f"{where}: started_at must be a clock reading (float) or None")
        start = (
            None
            if started_at is None
            else _validate.number(
                where, "started_at", started_at, signed=True, kind="a clock reading (float) or None"
            )
        )
        if options.timeout is not None:
            response._request.require_replayable(where)
        self._response: W = cast(W, response)
        self._options = options
        self._start = self._clock.now() if start is None else start
        self._count = 0
        self._wait: float | None = None
        self._done = options.timeout is None
        self._last: Attempt | None = None
        self._rand: Callable[[], float] = random.random

    @property
    def response(self) -> W:
        """The wrapper being polled (refreshed in place by every attempt after the first)."""
        return self._response

    @property
    def done(self) -> bool:
        """True once polling has stopped (or from the start when ``timeout`` is ``None``)."""
        return self._done

    @property
    def attempts(self) -> int:
        """How many attempts have been evaluated so far."""
        return self._count

    @property
    def last(self) -> Attempt | None:
        """The most recent :class:`Attempt`, or ``None`` before the first step."""
        return self._last

    @property
    def next_delay(self) -> float | None:
        """The pause the next ``step()`` will take before its request (``None`` if none)."""
        return self._wait

    @property
    def deadline(self) -> float | None:
        """The clock reading after which no request starts (``None`` without a window)."""
        return None if self._options.timeout is None else self._start + self._options.timeout

    def _begin(self) -> float | None:
        if self._done:
            raise RuntimeError(
                f"{type(self).__name__}.step(): polling has finished; read .response "
                "(or .last) instead of stepping again"
            )
        if self._wait is not None:
            # Fail before the pause, not after it: a closed client cannot reload.
            check_open(self._response._engine, "reload()")
        return self._wait

    def _left(self) -> float | None:
        """Seconds left in the window (a request waiting for a slot waits no longer)."""
        deadline = self.deadline
        return None if deadline is None else deadline - self._clock.now()

    def _expire(self) -> Attempt:
        """The window ended while the next request waited for a slot: stop without sending
        it, reporting the last attempt again as the final one."""
        assert self._last is not None  # a pause (hence a wait for a slot) follows an attempt
        self._wait = None
        self._done = True
        attempt = dataclasses.replace(
            self._last, elapsed=self._clock.now() - self._start, next_delay=None
        )
        self._last = attempt
        if self._options.on_attempt is not None:
            self._options.on_attempt(attempt)
        if self._options.raise_on_timeout:
            response = self._response
            raise PollTimeout(
                f"polling {response.method} {response.url} gave up after {self._count} "
                f"attempt(s): the window of {self._options.timeout:g}s ended while the next "
                f"request waited for a free slot (max_in_flight); last status "
                f"{response.status_code}",
                response=response, attempts=self._count,
            )  # fmt: skip
        return attempt

    def _evaluate(self) -> Attempt:
        options, response = self._options, self._response
        self._count += 1
        success = response._status_passes() and (
            options.until is None or bool(options.until(response))
        )
        elapsed = self._clock.now() - self._start
        retry_after = None
        if options.retry_after and not success:
            header = response.headers.get("Retry-After")
            retry_after = _policy.parse_retry_after(header, time.time())
        decision = _policy.decide(
            options, attempt=self._count, elapsed=elapsed, success=success,
            retry_after=retry_after, rand=self._rand() if options.jitter else 0.0,
        )  # fmt: skip
        self._wait = decision.wait
        self._done = decision.wait is None
        attempt = Attempt(
            number=self._count, status_code=response.status_code, elapsed=elapsed,
            next_delay=decision.wait, method=response.method, url=response._request.url, ok=success,
        )  # fmt: skip
        self._last = attempt
        if options.on_attempt is not None:
            options.on_attempt(attempt)
        if self._done and not success and options.raise_on_timeout:
            raise PollTimeout(
                f"polling {response.method} {response.url} gave up after {self._count} "
                f"attempt(s): {decision.reason}; last status {response.status_code}",
                response=response, attempts=self._count,
            )  # fmt: skip
        return attempt


class Poller(_PollerBase[Response]):
    """Sync polling, one attempt per :meth:`step` (``poll()`` is ``Poller(...).run()``).

    The first step evaluates the response you pass in (no request); every later step waits
    ``min(delay, remaining)`` with the clock (exactly one ``clock.sleep`` call), reloads the
    response in place and evaluates it. The window starts when the poller is created (or at
    ``started_at``, a reading of the same clock). A reload that must wait for a free slot (the
    client's ``max_in_flight``) waits at most for what is left of the window; if the window
    ends first, nothing is sent and the step reports the last attempt again, as the final one.

    Args:
        response: a :class:`~resq.http.Response` from a sync client.
        timeout: the polling window in seconds, or ``None`` (then the poller starts done).
        delay: seconds between attempts.
        until: optional predicate; polling also waits until ``until(response)`` is true.
        max_attempts: optional cap on attempts, the first response included.
        backoff: multiply the delay by this after each failed attempt (``>= 1``).
        max_delay: optional cap on the delay after backoff.
        jitter: fraction (0 to 1) of the delay removed at random.
        retry_after: honour a ``Retry-After`` header within the window.
        raise_on_timeout: raise :class:`~resq.http.PollTimeout` instead of returning.
        on_attempt: called with each :class:`~resq.http.Attempt`.
        clock: the clock to use (default: :func:`resq.clock.current_clock`).
        started_at: a reading of ``clock.now()`` at which the window started.

    Example:
        >>> poller = Poller(client.get("/job/42"), timeout=30, delay=2)  # doctest: +SKIP
        >>> while not poller.done:                                        # doctest: +SKIP
        ...     attempt = poller.step()
        ...     print(attempt.number, attempt.status_code, attempt.next_delay)
    """

    _wrapper_type = Response

    def step(self) -> Attempt:
        """Perform exactly one attempt and return what it saw.

        Raises:
            RuntimeError: polling has already finished.
            PollTimeout: the attempt ended polling without success and ``raise_on_timeout``.
        """
        wait = self._begin()
        if wait is not None:
            try:
                self._clock.sleep(wait)
                self._response._reload(self._left())
            except NoSlot:
                return self._expire()
            except BaseException:
                self._done = True
                raise
        return self._evaluate()

    def __iter__(self) -> Iterator[Attempt]:
        """Step until done, yielding each :class:`Attempt`."""
        while not self._done:
            yield self.step()

    def run(self) -> Response:
        """Step until done and return the (same) response wrapper."""
        while not self._done:
            self.step()
        return self._response


class AsyncPoller(_PollerBase[AsyncResponse]):
    """Async polling, one attempt per ``await step()`` (``poll()`` awaits ``run()``).

    Same arguments and rules as :class:`Poller`; the clock's ``asleep`` is awaited once per
    pause, through anyio, so it runs on asyncio and trio.

    Example:
        >>> poller = AsyncPoller(await client.get("/job/42"), 30, 2)  # doctest: +SKIP
        >>> async for attempt in poller:                               # doctest: +SKIP
        ...     print(attempt.number, attempt.status_code)
    """

    _wrapper_type = AsyncResponse

    async def step(self) -> Attempt:
        """Perform exactly one attempt and return what it saw (see :meth:`Poller.step`)."""
        wait = self._begin()
        if wait is not None:
            try:
                await self._clock.asleep(wait)
                await self._response._reload(self._left())
            except NoSlot:
                return self._expire()
            except BaseException:
                self._done = True
                raise
        return self._evaluate()

    async def __aiter__(self) -> AsyncIterator[Attempt]:
        """Step until done, yielding each :class:`Attempt`."""
        while not self._done:
            yield await self.step()

    async def run(self) -> AsyncResponse:
        """Step until done and return the (same) response wrapper."""
        while not self._done:
            await self.step()
        return self._response


@overload
def poll(
    response: Response, timeout: float | None, delay: float, *,
    until: Callable[[Response], object] | None = ..., max_attempts: int | None = ...,
    backoff: float = ..., max_delay: float | None = ..., jitter: float = ...,
    retry_after: bool = ..., raise_on_timeout: bool = ...,
    on_attempt: Callable[[Attempt], object] | None = ..., clock: Clock | None = ...,
) -> Response: ...  # fmt: skip
@overload
def poll(
    response: AsyncResponse, timeout: float | None, delay: float, *,
    until: Callable[[AsyncResponse], object] | None = ..., max_attempts: int | None = ...,
    backoff: float = ..., max_delay: float | None = ..., jitter: float = ...,
    retry_after: bool = ..., raise_on_timeout: bool = ...,
    on_attempt: Callable[[Attempt], object] | None = ..., clock: Clock | None = ...,
) -> Coroutine[Any, Any, AsyncResponse]: ...  # fmt: skip
def poll(
    response: Response | AsyncResponse,
    timeout: float | None,
    delay: float,
    *,
    until: Callable[[Any], object] | None = None,
    max_attempts: int | None = None,
    backoff: float = 1.0,
    max_delay: float | None = None,
    jitter: float = 0.0,
    retry_after: bool = False,
    raise_on_timeout: bool = False,
    on_attempt: Callable[[Attempt], object] | None = None,
    clock: Clock | None = None,
) -> Response | Coroutine[Any, Any, AsyncResponse]:
    """Poll an already-built wrapper until its status is good or the window elapses.

    ``poll`` never sends the first request and never touches a client: it checks the
    wrapper's status (``raise_for_status`` semantics) and retries through the wrapper's own
    ``reload()``. A :class:`~resq.http.Response` is polled synchronously; for an
    :class:`~resq.http.AsyncResponse` ``poll`` returns an awaitable (also when ``timeout`` is
    ``None``). All arguments are validated when ``poll`` is called.

    Args:
        response: the wrapper to poll.
        timeout: the window in seconds from the start of the call; ``None`` returns the
            wrapper unchanged without a status check.
        delay: seconds between attempts (ignored when ``timeout`` is ``None``).
        until: optional predicate that must also hold, e.g. ``lambda r: r.json()["done"]``.
        max_attempts: optional cap on attempts (the given response counts as the first).
        backoff: delay multiplier after each failed attempt (``>= 1``; 1 keeps it constant).
        max_delay: optional cap on the delay after backoff.
        jitter: fraction (0 to 1) of each delay removed at random.
        retry_after: wait at least the server's ``Retry-After``; stop if it is past the window.
        raise_on_timeout: raise :class:`~resq.http.PollTimeout` instead of returning on failure.
        on_attempt: called with an :class:`~resq.http.Attempt` after every attempt.
        clock: clock to read and sleep with (default: :func:`resq.clock.current_clock`).

    Returns:
        The same wrapper (refreshed in place), holding the LAST response; or, for an
        ``AsyncResponse``, an awaitable of it.

    Example:
        >>> r = poll(client.get("/job/42"), timeout=30, delay=2)         # doctest: +SKIP
        >>> r = await poll(await aclient.get("/job/42"), timeout=30, delay=2)  # doctest: +SKIP
    """
    options = _policy.make_options(
        "poll()", timeout, delay, until=until, max_attempts=max_attempts, backoff=backoff,
        max_delay=max_delay, jitter=jitter, retry_after=retry_after,
        raise_on_timeout=raise_on_timeout, on_attempt=on_attempt,
    )  # fmt: skip
    clock = None if clock is None else check_clock("poll()", clock)
    if isinstance(response, AsyncResponse):
        apoller: AsyncPoller = AsyncPoller._create("poll()", response, options, clock)
        return apoller.run()
    if isinstance(response, Response):
        poller: Poller = Poller._create("poll()", response, options, clock)
        return poller.run()
    raise TypeError(
        f"poll(): response must be a resq Response or AsyncResponse, got {type(response).__name__}"
    )
