"""The connection pool behind the gate: one request per free connection, no rescans.

httpcore's own pool keeps every request in one waiting list and, each time a request starts or
ends, walks its connections (is each closed, expired, idle, available? the first two read the
socket's state) and its whole list of queued requests. Behind resq's gate at most
``max_in_flight`` requests are ever in flight, so none of that is needed: a request takes a
free connection to its origin (or opens one), and gives it back when its body has been read.
Each step is O(1), with at most two socket checks per request: ``has_expired()`` on the
connection taken, and on the least recently used idle one as a connection comes back (so that
one the server has closed does not linger).

The connections are httpcore's own ``AsyncHTTPConnection`` (HTTP/1.1), made with the client's
TLS settings and resq's network backend; only httpcore's public interface is used.
:class:`resq._transport.SlotTransport` puts this pool under an ``httpx.AsyncClient``.
"""

from __future__ import annotations

import ssl
from collections import deque
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpcore

__all__ = ["SlotPool"]

_Key = tuple[bytes, bytes, int]  # an origin: scheme, host, port


class SlotPool:
    """Free connections per origin, most recently used first; at most ``max_connections``
    kept (more are opened only if more requests than that arrive at once, and closed when
    they come back).

    Args:
        ssl_context: for ``https`` origins.
        max_connections: the most connections kept open.
        keepalive_expiry: seconds an idle connection is kept (``None``: no limit).
        network_backend: how connections reach their sockets.
    """

    def __init__(
        self,
        *,
        ssl_context: ssl.SSLContext,
        max_connections: int,
        keepalive_expiry: float | None,
        network_backend: httpcore.AsyncNetworkBackend,
    ) -> None:
        self.ssl_context = ssl_context
        self.max_connections = max_connections
        self.keepalive_expiry = keepalive_expiry
        self.network_backend = network_backend
        #: Every open connection, idle or busy.
        self.connections: list[httpcore.AsyncConnectionInterface] = []
        self._idle: dict[_Key, deque[httpcore.AsyncConnectionInterface]] = {}

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        """Send ``request`` on a free connection to its origin (opened if none is free)."""
        if request.url.scheme not in (b"http", b"https"):
            # What httpcore's pool would say; httpx normally refuses such a URL before this.
            raise httpcore.UnsupportedProtocol(
                f"Request URL has an unsupported protocol "
                f"'{request.url.scheme.decode('latin-1')}://'."
            )
        origin = request.url.origin
        key = (origin.scheme, origin.host, origin.port)  # an Origin is not hashable
        while True:
            connection = await self._take(origin, key)
            try:
                response = await connection.handle_async_request(request)
            except httpcore.ConnectionNotAvailable:  # it was closed meanwhile: take another
                await self._drop(connection)
                continue
            except BaseException:
                await self._drop(connection)
                raise
            return httpcore.Response(
                status=response.status,
                headers=response.headers,
                content=_GiveBack(response.stream, connection, key, self),
                extensions=response.extensions,
            )

    def _connect(self, origin: httpcore.Origin) -> httpcore.AsyncConnectionInterface:
        return httpcore.AsyncHTTPConnection(
            origin=origin,
            ssl_context=self.ssl_context,
            keepalive_expiry=self.keepalive_expiry,
            http1=True,
            http2=False,
            network_backend=self.network_backend,
        )

    async def _take(self, origin: httpcore.Origin, key: _Key) -> httpcore.AsyncConnectionInterface:
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            if connection.is_available() and not connection.has_expired():
                return connection
            await self._drop(connection)
        if len(self.connections) >= self.max_connections:
            await self._close_oldest_idle()
        connection = self._connect(origin)
        self.connections.append(connection)
        return connection

    async def give_back(self, connection: httpcore.AsyncConnectionInterface, key: _Key) -> None:
        """A response was closed: keep its connection for the next request if it can serve
        one (an answer read only in part, or marked ``Connection: close``, closed it)."""
        if not connection.is_idle() or len(self.connections) > self.max_connections:
            await self._drop(connection)
            return
        idle = self._idle.setdefault(key, deque())
        idle.append(connection)
        if len(idle) > 1 and idle[0].has_expired():  # the least recently used one, at O(1)
            await self._drop(idle.popleft())

    async def _close_oldest_idle(self) -> None:
        for idle in self._idle.values():
            if idle:
                await self._drop(idle.popleft())
                return

    async def _drop(self, connection: httpcore.AsyncConnectionInterface) -> None:
        if connection in self.connections:
            self.connections.remove(connection)
        with anyio.CancelScope(shield=True):
            await connection.aclose()

    async def aclose(self) -> None:
        """Close every connection."""
        self._idle.clear()
        connections, self.connections = self.connections, []
        with anyio.CancelScope(shield=True):
            for connection in connections:
                await connection.aclose()


class _GiveBack:
    """A response's body; closing it hands the connection back to the pool."""

    __slots__ = ("_connection", "_key", "_pool", "_stream")

    def __init__(
        self, stream: Any, connection: httpcore.AsyncConnectionInterface, key: _Key, pool: SlotPool
    ) -> None:
        self._stream = stream
        self._connection: httpcore.AsyncConnectionInterface | None = connection
        self._key = key
        self._pool = pool

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for part in self._stream:
            yield part

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        with anyio.CancelScope(shield=True):
            await self._stream.aclose()
            await self._pool.give_back(connection, self._key)
