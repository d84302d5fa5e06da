"""``Requests`` and ``Session``: the clients whose verbs poll when given a ``timeout``."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import Any, Generic, Literal, Self, TypeVar, overload

import httpx
import requests.adapters

from resq import _policy, _validate
from resq._engines import HttpxEngine, RequestsEngine, check_open
from resq._errors import PollTimeout
from resq._gate import DEFAULT_MAX_IN_FLIGHT, NoSlot, check_max_in_flight
from resq._policy import Attempt, PollOptions
from resq._poller import AsyncPoller, Poller
from resq._request import RequestSnapshot, take_snapshot
from resq._responses import AsyncResponse, Response
from resq._urls import check_base_url, join_url
from resq.clock import Clock, check_clock, current_clock

R = TypeVar("R")
_ADAPTERS = ("requests", "httpx")


class Requests(Generic[R]):
    """A client whose verbs return wrappers and poll until a success status when given a
    ``timeout``.

    ``adapter="requests"`` gives sync verbs returning :class:`~resq.http.Response`; every
    request uses a fresh connection (use :class:`Session` to keep one). ``adapter="httpx"``
    gives awaitable verbs returning :class:`~resq.http.AsyncResponse` (one pooled
    ``httpx.AsyncClient``). Use ``with`` for sync clients and ``async with`` for httpx ones;
    the wrong one raises ``TypeError`` before the block runs.

    Args:
        base_url: absolute ``http(s)`` URL that request paths are joined onto.
        adapter: ``"requests"`` (sync) or ``"httpx"`` (async).
        timeout: per-request network timeout in seconds (``None``: no timeout).
        transport: send through this instead of the network: a ``requests`` adapter (such as
            :class:`resq.transports.ASGIAdapter`) for ``adapter="requests"``, an httpx async
            transport (such as ``httpx.ASGITransport(app)``) for ``adapter="httpx"``. The
            client closes it when it is closed.
        max_in_flight: the most requests this client sends at once (default 10); the others
            wait their turn, first come first served, a poll's request no longer than its
            window. resq sizes the connection pool it builds to match. ``None``: no limit.
        **client_options: engine options: for ``requests`` any of ``headers``, ``cookies``,
            ``auth``, ``params``, ``verify``, ``cert``, ``proxies``, ``stream``, ``trust_env``,
            ``max_redirects``, ``hooks``; for ``httpx`` any ``httpx.AsyncClient`` argument.

    Example:
        >>> with Requests("http://127.0.0.1:8000", adapter="requests", timeout=5) as client:
        ...     r = client.get("/job/42", timeout=30, delay=2)   # doctest: +SKIP
    """

    _persistent = False

    @overload
    def __init__(
        self: Requests[Response], base_url: str, adapter: Literal["requests"] = ...,
        timeout: float | None = ..., *, transport: requests.adapters.BaseAdapter | None = ...,
        max_in_flight: int | None = ..., **client_options: Any,
    ) -> None: ...  # fmt: skip
    @overload
    def __init__(
        self: Requests[Coroutine[Any, Any, AsyncResponse]], base_url: str,
        adapter: Literal["httpx"], timeout: float | None = ...,
        *, transport: httpx.AsyncBaseTransport | None = ..., max_in_flight: int | None = ...,
        **client_options: Any,
    ) -> None: ...  # fmt: skip
    def __init__(
        self,
        base_url: str,
        adapter: str = "requests",
        timeout: float | None = None,
        *,
        transport: Any = None,
        max_in_flight: int | None = DEFAULT_MAX_IN_FLIGHT,
        **client_options: Any,
    ) -> None:
        self._init(base_url, adapter, timeout, transport, client_options, max_in_flight)

    def _init(
        self, base_url: str, adapter: str, timeout: float | None, transport: Any,
        client_options: dict[str, Any], max_in_flight: Any = DEFAULT_MAX_IN_FLIGHT,
    ) -> None:  # fmt: skip
        where = f"{type(self).__name__}()"
        gate_size = check_max_in_flight(where, max_in_flight)
        self._base_url = check_base_url(base_url, where=where)
        if adapter not in _ADAPTERS:
            raise ValueError(f"{where}: adapter must be 'requests' or 'httpx', got {adapter!r}")
        net_timeout = _validate.optional_seconds(where, "timeout", timeout, positive=True)
        _validate.params_and_headers(where, adapter, client_options)
        self._engine: RequestsEngine | HttpxEngine
        if adapter == "requests":
            if transport is not None and not isinstance(transport, requests.adapters.BaseAdapter):
                raise TypeError(
                    f"{where}: transport for adapter='requests' must be a requests adapter "
                    f"(requests.adapters.BaseAdapter), got {type(transport).__name__}"
                )
            self._engine = RequestsEngine(
                persistent=self._persistent, net_timeout=net_timeout,
                options=client_options, transport=transport, max_in_flight=gate_size,
                where=where,
            )  # fmt: skip
        else:
            if transport is not None and not isinstance(transport, httpx.AsyncBaseTransport):
                raise TypeError(
                    f"{where}: transport for adapter='httpx' must be an httpx async transport "
                    f"(httpx.AsyncBaseTransport), got {type(transport).__name__}"
                )
            self._engine = HttpxEngine(
                net_timeout=net_timeout, options=client_options, transport=transport,
                max_in_flight=gate_size,
            )  # fmt: skip
        self._adapter = adapter
        self._timeout = net_timeout
        self._max_in_flight = gate_size

    # -- properties ---------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """The base URL paths are joined onto."""
        return self._base_url

    @property
    def adapter(self) -> str:
        """``"requests"`` or ``"httpx"``."""
        return self._adapter

    @property
    def timeout(self) -> float | None:
        """The network timeout of each request in seconds (``None``: none); not the polling
        window, which is the verbs' ``timeout``."""
        return self._timeout

    @property
    def max_in_flight(self) -> int | None:
        """The most requests this client has in flight at once (``None``: no limit)."""
        return self._max_in_flight

    @property
    def is_async(self) -> bool:
        """True for ``adapter="httpx"`` (awaitable verbs)."""
        return self._adapter == "httpx"

    @property
    def closed(self) -> bool:
        """True once the client has been closed; it never reopens."""
        return self._engine.closed

    # -- lifecycle ----------------------------------------------------------------------------
    @overload
    def close(self: Requests[Response]) -> None: ...
    @overload
    def close(
        self: Requests[Coroutine[Any, Any, AsyncResponse]],
    ) -> Coroutine[Any, Any, None]: ...
    def close(self) -> Any:
        """Close the client (and its transport). Idempotent.

        Dual-mode like the verbs: a sync client closes at once; for ``adapter="httpx"`` it
        returns an awaitable (``await client.close()``, the same as ``await client.aclose()``).

        Example:
            >>> await client.close()  # doctest: +SKIP
        """
        if isinstance(self._engine, HttpxEngine):
            return self._engine.aclose()
        self._engine.close()
        return None

    async def aclose(self) -> None:
        """Close an async client (and its transport). Idempotent.

        Raises:
            TypeError: on an ``adapter="requests"`` client (use ``close()``).
        """
        if not isinstance(self._engine, HttpxEngine):
            raise TypeError(f"{type(self).__name__}.aclose(): adapter='requests' clients are "
                            "closed with 'client.close()' or 'with'")  # fmt: skip
        await self._engine.aclose()

    def __enter__(self) -> Self:
        if self.is_async:
            raise TypeError(
                f"{type(self).__name__}(adapter='httpx') is async: use 'async with', not 'with'"
            )
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:  # fmt: skip
        if isinstance(self._engine, RequestsEngine):
            self._engine.close()

    async def __aenter__(self) -> Self:
        if not self.is_async:
            raise TypeError(
                f"{type(self).__name__}(adapter='requests') is sync: use 'with', not 'async with'"
            )
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:  # fmt: skip
        await self.aclose()

    def __repr__(self) -> str:
        state = " closed" if self.closed else ""
        return f"<{type(self).__name__} {self._base_url!r} adapter={self._adapter!r}{state}>"

    # -- requests -----------------------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        timeout: float | None = None,
        delay: float = 1.0,
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
        **kwargs: Any,
    ) -> R:
        """Send ``method`` to ``path``; with a ``timeout``, poll until a success status.

        Everything is validated before anything is sent. The window starts before the first
        request; the returned wrapper holds the LAST response (no exception on exhaustion).

        Args:
            method: the HTTP method, e.g. ``"GET"``.
            path: joined onto ``base_url`` (``"/job/42"``, ``"job/42?x=1"``, or an absolute URL).
            timeout: the polling window in seconds (``None``: a single request, no status check).
            delay: seconds between attempts (ignored when ``timeout`` is ``None``).
            until: optional predicate on the response that must also hold to stop.
            max_attempts: optional cap on requests, the first included.
            backoff: delay multiplier after each failed attempt (``>= 1``).
            max_delay: optional cap on the delay after backoff.
            jitter: fraction (0 to 1) of each delay removed at random.
            retry_after: wait at least the server's ``Retry-After``; stop if past the window.
            raise_on_timeout: raise :class:`~resq.http.PollTimeout` instead of returning.
            on_attempt: called with an :class:`~resq.http.Attempt` after every attempt.
            clock: clock for the window and the pauses (default: the current clock).
            **kwargs: passed to the engine (``params``, ``headers``, ``json``, ``data``, ...).

        Returns:
            A :class:`~resq.http.Response`, or for ``adapter="httpx"`` an awaitable of an
            :class:`~resq.http.AsyncResponse`.

        Example:
            >>> r = client.request("GET", "/job/42", timeout=30, delay=2)  # doctest: +SKIP
        """
        where = f"{_validate.method('request()', method).lower()}()"
        _validate.text(where, "path", path)
        options = _policy.make_options(
            where, timeout, delay, until=until, max_attempts=max_attempts, backoff=backoff,
            max_delay=max_delay, jitter=jitter, retry_after=retry_after,
            raise_on_timeout=raise_on_timeout, on_attempt=on_attempt,
        )  # fmt: skip
        clk = current_clock() if clock is None else check_clock(where, clock)
        _validate.engine_kwargs(where, self._adapter, self._engine.keywords, kwargs)
        check_open(self._engine, where)
        snap = take_snapshot(method.upper(), join_url(self._base_url, path), kwargs, where=where)
        if options.timeout is not None:
            snap.require_replayable(where)
        if isinstance(self._engine, HttpxEngine):
            result: Any = self._arequest(self._engine, snap, options, clk)
            return result  # type: ignore[no-any-return]
        start = clk.now()
        try:
            sent = self._engine.send(snap, options.timeout)
        except NoSlot:
            raise _nothing_sent(snap, options) from None
        response = Response(self._engine, snap, sent)
        if options.timeout is None:
            return response  # type: ignore[return-value]
        poller: Poller = Poller._create(where, response, options, clk, start)
        return poller.run()  # type: ignore[return-value]

    async def _arequest(
        self, engine: HttpxEngine, snap: RequestSnapshot, options: PollOptions, clock: Clock
    ) -> AsyncResponse:
        start = clock.now()
        try:
            sent = await engine.send(snap, options.timeout)
        except NoSlot:
            raise _nothing_sent(snap, options) from None
        response = AsyncResponse(engine, snap, sent)
        if options.timeout is None:
            return response
        poller: AsyncPoller = AsyncPoller._create(
            f"{snap.method.lower()}()", response, options, clock, start
        )
        return await poller.run()

    def get(self, path: str, timeout: float | None = None, delay: float = 1.0, **kwargs: Any) -> R:
        """``GET path``; see :meth:`request` for the polling arguments.

        Example:
            >>> r = client.get("/job/42", timeout=30, delay=2)  # doctest: +SKIP
        """
        return self.request("GET", path, timeout=timeout, delay=delay, **kwargs)

    def post(self, path: str, timeout: float | None = None, delay: float = 1.0, **kwargs: Any) -> R:
        """``POST path``; see :meth:`request`.

        Example:
            >>> r = client.post("/jobs", json={"n": 1})  # doctest: +SKIP
        """
        return self.request("POST", path, timeout=timeout, delay=delay, **kwargs)

    def put(self, path: str, timeout: float | None = None, delay: float = 1.0, **kwargs: Any) -> R:
        """``PUT path``; see :meth:`request`.

        Example:
            >>> r = client.put("/jobs/42", json={"n": 2})  # doctest: +SKIP
        """
        return self.request("PUT", path, timeout=timeout, delay=delay, **kwargs)

    def patch(
        self, path: str, timeout: float | None = None, delay: float = 1.0, **kwargs: Any
    ) -> R:
        """``PATCH path``; see :meth:`request`.

        Example:
            >>> r = client.patch("/jobs/42", json={"n": 3})  # doctest: +SKIP
        """
        return self.request("PATCH", path, timeout=timeout, delay=delay, **kwargs)

    def delete(
        self, path: str, timeout: float | None = None, delay: float = 1.0, **kwargs: Any
    ) -> R:
        """``DELETE path``; see :meth:`request`.

        Example:
            >>> r = client.delete("/jobs/42")  # doctest: +SKIP
        """
        return self.request("DELETE", path, timeout=timeout, delay=delay, **kwargs)

    def head(self, path: str, timeout: float | None = None, delay: float = 1.0, **kwargs: Any) -> R:
        """``HEAD path``; see :meth:`request`.

        Example:
            >>> r = client.head("/jobs/42")  # doctest: +SKIP
        """
        return self.request("HEAD", path, timeout=timeout, delay=delay, **kwargs)

    def options(
        self, path: str, timeout: float | None = None, delay: float = 1.0, **kwargs: Any
    ) -> R:
        """``OPTIONS path``; see :meth:`request`.

        Example:
            >>> r = client.options("/jobs")  # doctest: +SKIP
        """
        return self.request("OPTIONS", path, timeout=timeout, delay=delay, **kwargs)


def _nothing_sent(snap: RequestSnapshot, options: PollOptions) -> PollTimeout:
    """The window ended before the verb's first request got a slot: there is no response."""
    assert options.timeout is not None  # only a window bounds the wait for a slot
    return PollTimeout(
        f"{snap.method.lower()}(): the window of {options.timeout:g}s ended before a request "
        f"slot came free (max_in_flight requests of this client were in flight); nothing was "
        f"sent to {snap.url}",
        response=None, attempts=0,
    )  # fmt: skip


class Session(Requests[R]):
    """Like :class:`Requests`, but ``adapter="requests"`` keeps one ``requests.Session``
    (persistent connections and cookie jar) until the client is closed.

    With ``adapter="httpx"`` it is the same as :class:`Requests` (httpx clients always pool).

    Example:
        >>> with Session("http://127.0.0.1:8000", adapter="requests") as s:  # doctest: +SKIP
        ...     s.post("/login", data={"user": "ann"})
        ...     r = s.get("/job/42", timeout=30, delay=2)
    """

    _persistent = True

    @overload
    def __init__(
        self: Session[Response], base_url: str, adapter: Literal["requests"] = ...,
        timeout: float | None = ..., *, transport: requests.adapters.BaseAdapter | None = ...,
        max_in_flight: int | None = ..., **client_options: Any,
    ) -> None: ...  # fmt: skip
    @overload
    def __init__(
        self: Session[Coroutine[Any, Any, AsyncResponse]], base_url: str,
        adapter: Literal["httpx"], timeout: float | None = ...,
        *, transport: httpx.AsyncBaseTransport | None = ..., max_in_flight: int | None = ...,
        **client_options: Any,
    ) -> None: ...  # fmt: skip
    def __init__(
        self,
        base_url: str,
        adapter: str = "requests",
        timeout: float | None = None,
        *,
        transport: Any = None,
        max_in_flight: int | None = DEFAULT_MAX_IN_FLIGHT,
        **client_options: Any,
    ) -> None:
        self._init(base_url, adapter, timeout, transport, client_options, max_in_flight)
