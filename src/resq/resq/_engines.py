"""The two engines behind one small internal protocol.

An engine sends a :class:`~resq._request.RequestSnapshot` and knows how to read its own
responses' status (``ok`` mirrors the engine's ``raise_for_status``). ``RequestsEngine`` is
sync (a fresh ``requests.Session`` per request, or one persistent session for ``Session``);
``HttpxEngine`` is async (one ``httpx.AsyncClient``). Neither ever reopens after ``close``.
Each lets at most ``max_in_flight`` requests through at once (see :mod:`resq._gate`) and sizes
the connection pool it builds to match (for httpx, a pool without a queue: :mod:`resq._pool`,
under resq's own transport, :mod:`resq._transport`).
"""

from __future__ import annotations

import inspect
from typing import Any, Protocol

import httpx
import requests
import requests.adapters

from resq._errors import ClientClosedError
from resq._gate import AsyncGate, NoSlot, ThreadGate
from resq._redirects import follow_like_requests
from resq._request import RequestSnapshot
from resq._transport import SlotTransport, slot_transport

_REQUESTS_OPTIONS = frozenset(
    {
        "headers",
        "cookies",
        "auth",
        "params",
        "verify",
        "cert",
        "proxies",
        "stream",
        "trust_env",
        "max_redirects",
        "hooks",
    }
)


def _keywords(request: Any) -> frozenset[str]:
    """What an engine's ``request(method, url, ...)`` takes besides the method, the URL and
    the network timeout (which the client sets)."""
    names = inspect.signature(request).parameters
    return frozenset(names) - {"self", "method", "url", "timeout"}


_CLOSED = (
    "{what}: the client is closed; resq does not reopen connections behind your back. "
    "Create a new Requests/Session to send again."
)


class Engine(Protocol):
    """What wrappers and clients need from either engine."""

    name: str
    closed: bool
    status_error: type[Exception]
    keywords: frozenset[str]

    def ok(self, response: Any) -> bool:
        """True exactly when the engine's ``raise_for_status`` would not raise."""
        ...

    def reason(self, response: Any) -> str:
        """The status line's reason phrase."""
        ...


def check_open(engine: Engine, what: str) -> None:
    """Raise :class:`ClientClosedError` if ``engine`` is closed."""
    if engine.closed:
        raise ClientClosedError(_CLOSED.format(what=what))


class RequestsEngine:
    """Sync engine on ``requests`` (4xx/5xx are bad statuses)."""

    name = "requests"
    status_error: type[Exception] = requests.HTTPError
    #: The keyword arguments a verb passes on to ``requests.Session.request``.
    keywords = _keywords(requests.Session.request)

    def __init__(
        self,
        *,
        persistent: bool,
        net_timeout: float | None,
        options: dict[str, Any],
        transport: requests.adapters.BaseAdapter | None,
        max_in_flight: int | None = None,
        where: str = "Requests()",
    ) -> None:
        unknown = sorted(set(options) - _REQUESTS_OPTIONS)
        if unknown:
            raise TypeError(
                f"{where}: unknown client option {unknown[0]!r} for adapter='requests'; "
                f"expected any of {', '.join(sorted(_REQUESTS_OPTIONS))}"
            )
        self.closed = False
        self._timeout = net_timeout
        self._options = options
        self._transport = transport
        self._session = self._new_session() if persistent else None
        self._gate = None if max_in_flight is None else ThreadGate(max_in_flight)
        if self._session is not None and transport is None and max_in_flight is not None:
            # requests keeps 10 connections per host; an 11th thread's would be thrown away.
            pooled = requests.adapters.HTTPAdapter(pool_maxsize=max_in_flight)
            self._session.mount("http://", pooled)
            self._session.mount("https://", pooled)

    def _new_session(self) -> requests.Session:
        session = requests.Session()
        for key, value in self._options.items():
            if key == "headers":
                session.headers.update(value)
            elif key == "cookies":
                session.cookies.update(value)
            else:
                setattr(session, key, value)
        if self._transport is not None:
            session.mount("http://", self._transport)
            session.mount("https://", self._transport)
        return session

    def _dispose(self, session: requests.Session) -> None:
        if self._transport is not None:  # the transport belongs to the client, not this session
            session.adapters.pop("http://", None)
            session.adapters.pop("https://", None)
        session.close()

    def send(self, request: RequestSnapshot, within: float | None = None) -> requests.Response:
        """Send one request and return the engine response (body read unless stream=True).

        ``within``: the seconds left in the poll's window; if no slot frees up in that time,
        raise :class:`~resq._gate.NoSlot` without sending (``None``: wait as long as it takes).
        """
        check_open(self, "request")
        gate = self._gate
        if gate is None:
            return self._send(request)
        if not gate.acquire(within):
            raise NoSlot
        try:
            check_open(self, "request")  # it may have been closed while we waited
            return self._send(request)
        finally:
            gate.release()

    def _send(self, request: RequestSnapshot) -> requests.Response:
        kwargs = request.replay_kwargs()
        if self._session is not None:
            return self._session.request(
                request.method, request.url, timeout=self._timeout, **kwargs
            )
        session = self._new_session()
        try:
            return session.request(request.method, request.url, timeout=self._timeout, **kwargs)
        finally:
            self._dispose(session)

    def ok(self, response: Any) -> bool:
        """``requests`` raises for 400-599 only."""
        return not 400 <= int(response.status_code) < 600

    def reason(self, response: Any) -> str:
        """``requests.Response.reason``."""
        return str(response.reason or "")

    def close(self) -> None:
        """Close the persistent session (if any) and the transport; idempotent."""
        if self.closed:
            return
        self.closed = True
        if self._session is not None:
            self._session.close()  # closes every mounted adapter, the transport included
        elif self._transport is not None:
            self._transport.close()


class HttpxEngine:
    """Async engine on ``httpx.AsyncClient`` (every non-2xx is a bad status; redirects are
    followed like the requests engine does, unless ``follow_redirects=False`` is given)."""

    name = "httpx"
    status_error: type[Exception] = httpx.HTTPStatusError
    #: The keyword arguments a verb passes on to ``httpx.AsyncClient.request``.
    keywords = _keywords(httpx.AsyncClient.request)

    def __init__(
        self,
        *,
        net_timeout: float | None,
        options: dict[str, Any],
        transport: httpx.AsyncBaseTransport | None,
        max_in_flight: int | None = None,
    ) -> None:
        self.closed = False
        #: resq's own transport, when it built one (behind the gate a request needs no queue
        #: in the pool: see resq._pool); ``None`` with the caller's or httpx's own.
        self.slots: SlotTransport | None = None
        if max_in_flight is not None and transport is None:
            self.slots = slot_transport(options, max_in_flight)
            transport = self.slots
            if transport is None and "limits" not in options:
                # As many pooled connections as requests let through, all kept alive: httpcore
                # closes an idle connection whenever the pool holds more than the keep-alive
                # count.
                limits = httpx.Limits(
                    max_connections=max_in_flight, max_keepalive_connections=max_in_flight
                )
                options = {**options, "limits": limits}
        self._client = httpx.AsyncClient(
            timeout=net_timeout, transport=transport, **follow_like_requests(options)
        )
        self._gate = None if max_in_flight is None else AsyncGate(max_in_flight)

    async def send(self, request: RequestSnapshot, within: float | None = None) -> httpx.Response:
        """Send one request and return the engine response (body read).

        ``within``: the seconds left in the poll's window; if no slot frees up in that time,
        raise :class:`~resq._gate.NoSlot` without sending. ``None`` (no window) waits up to the
        client's pool timeout, then raises ``httpx.PoolTimeout`` as the pool itself would.
        """
        check_open(self, "request")
        gate = self._gate
        if gate is None:
            return await self._send(request)
        pool_wait = self._client.timeout.pool if within is None else within
        if not await gate.acquire(pool_wait):
            if within is None:
                raise httpx.PoolTimeout(
                    f"no request slot came free within the pool timeout ({pool_wait:g}s): "
                    f"max_in_flight={gate.limit} requests of this client were in flight"
                )
            raise NoSlot
        try:
            check_open(self, "request")  # it may have been closed while we waited
            return await self._send(request)
        finally:
            gate.release()

    async def _send(self, request: RequestSnapshot) -> httpx.Response:
        memo = request.engine_url
        if memo is None or memo[0] is not request.url:  # parse it once per poll, not per attempt
            memo = (request.url, httpx.URL(request.url))
            object.__setattr__(request, "engine_url", memo)
        return await self._client.request(request.method, memo[1], **request.replay_kwargs())

    def ok(self, response: Any) -> bool:
        """``httpx`` raises for anything but 2xx (an unfollowed 304 included)."""
        return bool(response.is_success)

    def reason(self, response: Any) -> str:
        """``httpx.Response.reason_phrase``."""
        return str(response.reason_phrase)

    async def aclose(self) -> None:
        """Close the ``AsyncClient`` and its transport; idempotent."""
        if self.closed:
            return
        self.closed = True
        await self._client.aclose()
