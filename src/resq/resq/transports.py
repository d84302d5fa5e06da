"""Transports that let a sync ``requests``-based client talk to an in-process ASGI app.

For ``adapter="httpx"`` use httpx's own ``httpx.ASGITransport(app=app)``; for
``adapter="requests"`` use :class:`ASGIAdapter`.
"""

from __future__ import annotations

import http
import io
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from contextlib import ExitStack
from typing import Any, TypeVar, cast

import anyio
import anyio.from_thread
import httpx
import requests
import requests.adapters
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers

__all__ = ["ASGIAdapter"]

T = TypeVar("T")
ASGIApp = Callable[
    [Mapping[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]


class ASGIAdapter(requests.adapters.BaseAdapter):
    """A ``requests`` adapter that calls an ASGI app in-process, synchronously.

    On CPython the app runs in an anyio blocking-portal thread that is started on the first
    request and stopped by :meth:`close` (a client closes its transport when it is closed).
    On Pyodide (``sys.platform == "emscripten"``), where threads do not exist, each request
    is awaited with ``pyodide.ffi.run_sync``. Lifespan events are not sent; cookies the app
    sets are not stored in a session's jar.

    Args:
        app: the ASGI application (for example a FastAPI app).
        root_path: the ASGI ``root_path`` to present to the app.
        client: the ``(host, port)`` the app sees as the client address.

    Example:
        >>> from resq import Requests
        >>> from resq.transports import ASGIAdapter
        >>> adapter = ASGIAdapter(app)  # doctest: +SKIP
        >>> client = Requests("http://app", adapter="requests", transport=adapter)  # doctest: +SKIP
        >>> client.get("/job/42").status_code  # doctest: +SKIP
        404
    """

    def __init__(
        self, app: ASGIApp, *, root_path: str = "", client: tuple[str, int] = ("127.0.0.1", 123)
    ) -> None:
        if not callable(app):
            raise TypeError(
                f"ASGIAdapter(): app must be an ASGI callable, got {type(app).__name__}"
            )
        if not isinstance(root_path, str) or (root_path and not root_path.startswith("/")):
            raise ValueError(
                f"ASGIAdapter(): root_path must be '' or a path such as '/api', got {root_path!r}"
            )
        if not (
            isinstance(client, tuple)
            and len(client) == 2
            and isinstance(client[0], str)
            and isinstance(client[1], int)
            and not isinstance(client[1], bool)
            and 0 <= client[1] <= 65535
        ):
            raise ValueError(
                "ASGIAdapter(): client must be a (host, port) pair such as "
                f"('127.0.0.1', 123), got {client!r}"
            )
        super().__init__()
        self._transport = httpx.ASGITransport(app=app, root_path=root_path, client=client)
        self._lock = threading.Lock()
        self._stack: ExitStack | None = None
        self._portal: anyio.from_thread.BlockingPortal | None = None
        self.closed = False

    def _run(self, fn: Callable[[], Coroutine[Any, Any, T]]) -> T:
        if sys.platform == "emscripten":  # pragma: no cover - exercised only in the browser
            from pyodide.ffi import run_sync  # type: ignore[import-not-found]

            return cast(T, run_sync(fn()))
        with self._lock:
            if self.closed:
                raise RuntimeError("ASGIAdapter is closed")
            if self._portal is None:
                self._stack = ExitStack()
                self._portal = self._stack.enter_context(anyio.from_thread.start_blocking_portal())
            portal = self._portal
        return cast(T, portal.call(fn))

    async def _call(
        self, request: requests.PreparedRequest, limit: float | None
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        body = request.body
        content = body.encode() if isinstance(body, str) else body
        if content is not None and not isinstance(content, bytes):
            content = b"".join(content)
        req = httpx.Request(
            str(request.method), str(request.url),
            headers=list(request.headers.items()), content=content,
        )  # fmt: skip
        with anyio.fail_after(limit):
            response = await self._transport.handle_async_request(req)
            data = await response.aread()
        await response.aclose()
        return response.status_code, list(response.headers.multi_items()), data

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: float | tuple[float, float] | tuple[float, None] | None = None,
        verify: bool | str = True,
        cert: bytes | str | tuple[bytes | str, bytes | str] | None = None,
        proxies: Mapping[str, str] | None = None,
    ) -> requests.Response:
        """Run the app for one request and build a ``requests.Response`` from its answer.

        Raises:
            requests.exceptions.ReadTimeout: the app did not answer within ``timeout``.
        """
        limit = timeout[1] if isinstance(timeout, tuple) else timeout
        try:
            status, headers, data = self._run(lambda: self._call(request, limit))
        except TimeoutError as exc:
            raise requests.exceptions.ReadTimeout(
                f"ASGI app did not answer within {limit}s", request=request
            ) from exc
        response = requests.Response()
        response.status_code = status
        response.headers = CaseInsensitiveDict(headers)
        response.encoding = get_encoding_from_headers(response.headers)
        response.raw = io.BytesIO(data)  # requests reads the body from here, as from a socket
        response.content  # noqa: B018  read now, and kept: iter_content() and .content both work
        response.url = str(request.url)
        response.request = request
        response.connection = self  # type: ignore[assignment]
        try:
            response.reason = http.HTTPStatus(status).phrase
        except ValueError:
            response.reason = ""
        return response

    def close(self) -> None:
        """Stop the portal thread (if it was started). Idempotent; the adapter stays closed."""
        with self._lock:
            self.closed = True
            stack, self._stack, self._portal = self._stack, None, None
        if stack is not None:
            stack.close()
