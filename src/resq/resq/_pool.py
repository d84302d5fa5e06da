"""The connection pool behind the gate: one request per free connection, no rescans.

httpcore's own pool keeps every request in one waiting list and, each time a request starts
or ends, walks its connections (is each closed, expired, idle, available? the first two read
the socket's state) and its whole list of queued requests. Behind resq's gate at most
``max_in_flight`` requests are ever in flight, so none of that is needed: a request takes a
free connection to its origin (or opens one), and gives it back when its body has been read.
Each step is O(1), with at most two socket checks per request: ``has_expired()`` on the
connection taken, and on the least recently used idle one as a connection comes back (so that
one the server has closed does not linger).

It is still httpcore doing the work: the connections are httpcore's, built by the pool's own
``create_connection`` with the client's settings (TLS, local address, socket options, network
backend), and httpx maps requests, responses and errors as usual.

Installed by :func:`install` on the default transport of an ``httpx.AsyncClient`` that resq
builds itself with a gate (never on a transport the caller gives, nor with HTTP/2 or a proxy,
where one connection carries several requests or is not the origin's).
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpcore
import httpx
from httpcore import AsyncConnectionInterface, ConnectionNotAvailable, Origin

from resq._network import AsyncioFirst

__all__ = ["SlotPool", "install"]

_Key = tuple[bytes, bytes, int]  # an origin: scheme, host, port


class SlotPool(httpcore.AsyncConnectionPool):
    """Free connections per origin, most recently used first; at most ``max_connections``
    kept (more are opened only if more requests than that arrive at once, and closed when
    they come back)."""

    _idle: dict[_Key, deque[AsyncConnectionInterface]]

    @classmethod
    def adopt(cls, pool: httpcore.AsyncConnectionPool) -> SlotPool:
        """A ``SlotPool`` with ``pool``'s settings (``pool`` has sent nothing yet)."""
        slots = cls.__new__(cls)
        slots.__dict__.update(vars(pool))
        slots._idle = {}
        slots._network_backend = AsyncioFirst(pool._network_backend)
        return slots

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
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
            except ConnectionNotAvailable:  # it was closed meanwhile: take another
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

    async def _take(self, origin: Origin, key: _Key) -> AsyncConnectionInterface:
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            if connection.is_available() and not connection.has_expired():
                return connection
            await self._drop(connection)
        if len(self._connections) >= self._max_connections:
            await self._close_oldest_idle()
        connection = self.create_connection(origin)
        self._connections.append(connection)
        return connection

    async def _give_back(self, connection: AsyncConnectionInterface, key: _Key) -> None:
        """A response was closed: keep its connection for the next request if it can serve
        one (an answer read only in part, or marked ``Connection: close``, closed it)."""
        if not connection.is_idle() or len(self._connections) > self._max_connections:
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

    async def _drop(self, connection: AsyncConnectionInterface) -> None:
        if connection in self._connections:
            self._connections.remove(connection)
        with anyio.CancelScope(shield=True):
            await connection.aclose()

    async def aclose(self) -> None:
        self._idle.clear()
        await super().aclose()


class _GiveBack:
    """A response's body; closing it hands the connection back to the pool."""

    __slots__ = ("_connection", "_key", "_pool", "_stream")

    def __init__(
        self, stream: Any, connection: AsyncConnectionInterface, key: _Key, pool: SlotPool
    ) -> None:
        self._stream = stream
        self._connection: AsyncConnectionInterface | None = connection
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
            await self._pool._give_back(connection, self._key)


def install(client: httpx.AsyncClient) -> bool:
    """Put a :class:`SlotPool` under ``client``'s default transport; False (nothing changed)
    where the transport or its pool is not the stock one, or the pool proxies or speaks
    HTTP/2."""
    transport = getattr(client, "_transport", None)
    if type(transport) is not httpx.AsyncHTTPTransport:
        return False
    pool = getattr(transport, "_pool", None)
    if type(pool) is not httpcore.AsyncConnectionPool:
        return False
    if getattr(pool, "_proxy", None) is not None or getattr(pool, "_http2", True):
        return False
    transport._pool = SlotPool.adopt(pool)
    return True
