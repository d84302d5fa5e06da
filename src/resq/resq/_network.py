# ruff: noqa: ASYNC109  (the ``timeout`` parameters are httpcore's interface)
"""httpcore's sockets on asyncio's own transports, for the pool behind the gate.

httpcore reaches sockets through a network backend; its default goes through anyio, which on
asyncio wraps every read and every write in a cancel scope with a deadline (and maps its
exceptions through context managers). That is about a fifth of the client's CPU per request
on loopback. :class:`AsyncioFirst` is an ``httpcore.AsyncNetworkBackend`` (the seam httpcore
offers for this): under asyncio its streams are an :class:`asyncio.Protocol` and its transport,
and a read waits on one future, with one timer only when a timeout is set; under any other
loop (trio) it hands everything to the backend it wraps, unchanged.

The streams behave as httpcore's own: the same exceptions (``ConnectError``,
``ConnectTimeout``, ``ReadError``, ``ReadTimeout``, ``WriteError``, ``WriteTimeout``), ``b""``
at the end of the stream, TLS through :meth:`asyncio.loop.start_tls`, and the same
``get_extra_info`` keys (``is_readable`` as httpcore checks a pooled connection).
"""

from __future__ import annotations

import asyncio
import select
import socket
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore

from resq._loops import running_asyncio_loop

__all__ = ["AsyncioFirst"]

_READ_LIMIT = 64 * 1024  # buffered bytes beyond which the transport stops reading


class _Protocol(asyncio.Protocol):
    """Bytes in from the transport; wakes the one reader waiting for them."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.eof = False
        self.error: BaseException | None = None
        self.reader: asyncio.Future[None] | None = None
        self.drained: asyncio.Future[None] | None = None  # set while writing is paused
        self._reading_paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > _READ_LIMIT and self.transport is not None:
            self.transport.pause_reading()
            self._reading_paused = True
        self._wake_reader()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake_reader()
        return False  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._wake_reader()
        self._wake_writer()

    def pause_writing(self) -> None:
        if self.drained is None:
            self.drained = self.loop.create_future()

    def resume_writing(self) -> None:
        self._wake_writer()

    def take(self, max_bytes: int) -> bytes:
        data = bytes(self.buffer[:max_bytes])
        del self.buffer[:max_bytes]
        if self._reading_paused and len(self.buffer) <= _READ_LIMIT // 2 and self.transport:
            self.transport.resume_reading()
            self._reading_paused = False
        return data

    def _wake_reader(self) -> None:
        if self.reader is not None and not self.reader.done():
            self.reader.set_result(None)

    def _wake_writer(self) -> None:
        drained, self.drained = self.drained, None
        if drained is not None and not drained.done():
            drained.set_result(None)


async def _wait(
    loop: asyncio.AbstractEventLoop, future: asyncio.Future[None], seconds: float | None,
    timed_out: type[Exception],
) -> None:  # fmt: skip
    """Wait for ``future``, or raise ``timed_out`` after ``seconds``."""
    if seconds is None:
        await future
        return
    timer = loop.call_later(seconds, _time_out, future, timed_out)
    try:
        await future
    finally:
        timer.cancel()


def _socket_readable(sock: socket.socket | None) -> bool:
    """Whether reading ``sock`` would not wait: bytes or the end are there (or an error, or
    the socket is gone). On an idle kept-alive connection that means the server closed it."""
    if sock is None:
        return True
    fd = sock.fileno()
    if fd < 0:
        return True
    if hasattr(select, "poll"):  # no limit on the descriptor's number (select has 1024)
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    readable, _, _ = select.select([fd], [], [], 0)
    return bool(readable)


def _time_out(future: asyncio.Future[None], timed_out: type[Exception]) -> None:
    if not future.done():
        future.set_exception(timed_out())


class _Stream(httpcore.AsyncNetworkStream):
    __slots__ = ("_protocol", "_transport")

    def __init__(self, transport: asyncio.Transport, protocol: _Protocol) -> None:
        self._transport = transport
        self._protocol = protocol

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        protocol = self._protocol
        if not protocol.buffer and not protocol.eof:
            protocol.reader = protocol.loop.create_future()
            try:
                await _wait(protocol.loop, protocol.reader, timeout, httpcore.ReadTimeout)
            finally:
                protocol.reader = None
        if protocol.buffer:
            return protocol.take(max_bytes)
        if protocol.error is not None:
            raise httpcore.ReadError(str(protocol.error) or type(protocol.error).__name__)
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        protocol = self._protocol
        if self._transport.is_closing():
            raise httpcore.WriteError(str(protocol.error or "the connection is closed"))
        self._transport.write(buffer)
        if protocol.drained is not None:
            await _wait(protocol.loop, protocol.drained, timeout, httpcore.WriteTimeout)
            if protocol.error is not None:
                raise httpcore.WriteError(str(protocol.error))

    async def aclose(self) -> None:
        transport = self._transport
        if transport.is_closing():
            return
        transport.close()
        await asyncio.sleep(0)  # the loop closes the socket in the callback this lets run
        transport.abort()  # unless bytes were still queued: then drop them

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:  # fmt: skip
        loop = self._protocol.loop
        try:
            transport = await asyncio.wait_for(
                loop.start_tls(
                    self._transport, self._protocol, ssl_context, server_hostname=server_hostname
                ),
                timeout,
            )
        except TimeoutError as exc:
            self._transport.close()
            raise httpcore.ConnectTimeout(str(exc)) from exc
        except (OSError, ssl.SSLError) as exc:
            self._transport.close()
            raise httpcore.ConnectError(str(exc)) from exc
        if transport is None:  # the connection was lost during the handshake
            raise httpcore.ConnectError("the connection was closed during the TLS handshake")
        assert isinstance(transport, asyncio.Transport)
        self._protocol.transport = transport
        return _Stream(transport, self._protocol)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            protocol = self._protocol
            if protocol.buffer or protocol.eof:
                return True
            return _socket_readable(self._transport.get_extra_info("socket"))
        key = {"ssl_object": "ssl_object", "client_addr": "sockname", "server_addr": "peername",
               "socket": "socket"}.get(info)  # fmt: skip
        return None if key is None else self._transport.get_extra_info(key)


class AsyncioFirst(httpcore.AsyncNetworkBackend):
    """asyncio's transports under asyncio; ``fallback`` (httpcore's backend) elsewhere."""

    def __init__(self, fallback: httpcore.AsyncNetworkBackend) -> None:
        self.fallback = fallback

    async def connect_tcp(
        self, host: str, port: int, timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:  # fmt: skip
        loop = running_asyncio_loop()
        if loop is None:
            return await self.fallback.connect_tcp(
                host, port, timeout, local_address, socket_options
            )
        local = None if local_address is None else (local_address, 0)
        try:
            transport, protocol = await asyncio.wait_for(
                loop.create_connection(lambda: _Protocol(loop), host, port, local_addr=local),
                timeout,
            )
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        sock = transport.get_extra_info("socket")
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as anyio does
        for option in socket_options or ():
            sock.setsockopt(*option)
        assert isinstance(transport, asyncio.Transport)
        return _Stream(transport, protocol)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:  # fmt: skip
        return await self.fallback.connect_unix_socket(path, timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await self.fallback.sleep(seconds)
