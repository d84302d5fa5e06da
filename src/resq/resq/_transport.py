"""The httpx transport resq gives the ``httpx.AsyncClient`` it builds behind its gate.

``SlotTransport`` is an ``httpx.AsyncBaseTransport`` (httpx's seam for this) that sends each
request through a :class:`~resq._pool.SlotPool` on resq's network backend
(:class:`~resq._network.AsyncioFirst`). It does what httpx's own transport does for HTTP/1.1:
it turns the ``httpx.Request`` into an ``httpcore.Request``, the answer back into an
``httpx.Response``, and httpcore's errors into httpx's (``httpcore.ReadTimeout`` becomes
``httpx.ReadTimeout``, and so on). TLS is set up from the client's ``verify``, ``cert`` and
``trust_env`` with ``httpx.create_ssl_context``.

:func:`slot_transport` builds one unless the client's options ask for what only httpx's own
transport does (a proxy, HTTP/2, a transport or an app of the caller's): then ``None``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

from resq._network import AsyncioFirst
from resq._pool import SlotPool

__all__ = ["SlotTransport", "slot_transport"]

#: httpcore's errors and the httpx error each becomes (the most specific first).
_ERRORS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.ProxyError, httpx.ProxyError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
)
#: Client options only httpx's own transport serves.
_NOT_HERE = ("transport", "app", "proxy", "proxies", "mounts", "uds")


@contextmanager
def _as_httpx_errors(request: httpx.Request) -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        for theirs, ours in _ERRORS:
            if isinstance(exc, theirs):
                raise ours(str(exc), request=request) from exc
        raise


class _Body(httpx.AsyncByteStream):
    """An httpcore response body as an httpx stream (errors mapped; closing gives the
    connection back to the pool)."""

    def __init__(self, stream: Any, request: httpx.Request) -> None:
        self._stream = stream
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx_errors(self._request):
            async for part in self._stream:
                yield part

    async def aclose(self) -> None:
        with _as_httpx_errors(self._request):
            await self._stream.aclose()


class SlotTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 through a :class:`~resq._pool.SlotPool` (see the module's docstring).

    Args:
        verify, cert, trust_env: TLS settings, as ``httpx.AsyncClient`` takes them.
        limits: the most connections kept, and how long an idle one is kept.
    """

    def __init__(
        self,
        *,
        verify: Any = True,
        cert: Any = None,
        trust_env: bool = True,
        limits: httpx.Limits,
    ) -> None:
        context = httpx.create_ssl_context(verify=verify, cert=cert, trust_env=trust_env)
        most = limits.max_connections
        self.pool = SlotPool(
            ssl_context=context,
            max_connections=most if most is not None else 2**31 - 1,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=AsyncioFirst(httpcore.AnyIOBackend()),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
            ),
            headers=request.headers.raw,
            content=request.stream,  # an async stream under an AsyncClient
            extensions=request.extensions,
        )
        with _as_httpx_errors(request):
            answer = await self.pool.handle_async_request(core)
        return httpx.Response(
            status_code=answer.status,
            headers=answer.headers,
            stream=_Body(answer.stream, request),
            extensions=answer.extensions,
        )

    async def aclose(self) -> None:
        await self.pool.aclose()


def slot_transport(options: Mapping[str, Any], max_in_flight: int) -> SlotTransport | None:
    """A :class:`SlotTransport` for an ``httpx.AsyncClient`` built with ``options``, or
    ``None`` where the options need httpx's own transport (a proxy, HTTP/2, ...)."""
    if any(options.get(name) for name in _NOT_HERE):
        return None
    if options.get("http2") or options.get("http1", True) is not True:
        return None
    limits = options.get("limits")
    if not isinstance(limits, httpx.Limits):
        limits = httpx.Limits(
            max_connections=max_in_flight, max_keepalive_connections=max_in_flight
        )
    return SlotTransport(
        verify=options.get("verify", True),
        cert=options.get("cert"),
        trust_env=options.get("trust_env", True),
        limits=limits,
    )
