"""Response wrappers: one read-only face over either engine's response, plus ``reload()``."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import httpx
import requests

from resq._engines import Engine, HttpxEngine, RequestsEngine, check_open
from resq._request import RequestSnapshot

if TYPE_CHECKING:
    from collections.abc import MutableMapping

U = TypeVar("U", requests.Response, httpx.Response)


class BaseResponse(Generic[U]):
    """What :class:`Response` and :class:`AsyncResponse` share: read-only access to the response.

    Wrappers are created by the client's verbs; you never build one yourself. ``reload()``
    replaces :attr:`underlying` in place, so every attribute below reflects the latest attempt.

    Example:
        >>> r = client.get("/job/42")          # doctest: +SKIP
        >>> r.status_code, r.ok, r.json()      # doctest: +SKIP
        (200, True, {'state': 'done'})
    """

    __slots__ = ("_engine", "_request", "_underlying")

    def __init__(self, engine: Engine, request: RequestSnapshot, underlying: U) -> None:
        self._engine = engine
        self._request = request
        self._underlying: U = underlying

    @property
    def underlying(self) -> U:
        """The engine's own response object (``requests.Response`` or ``httpx.Response``)."""
        return self._underlying

    @property
    def status_code(self) -> int:
        """The HTTP status code."""
        return int(self._underlying.status_code)

    @property
    def ok(self) -> bool:
        """True exactly when :meth:`raise_for_status` would not raise (when polling stops).

        ``requests``: any status below 400; ``httpx``: 2xx only (a 304 is not ok).
        """
        return self._engine.ok(self._underlying)

    @property
    def text(self) -> str:
        """The body decoded to text."""
        return str(self._underlying.text)

    @property
    def content(self) -> bytes:
        """The raw body bytes."""
        return bytes(self._underlying.content)

    def json(self, **kwargs: Any) -> Any:
        """Decode the body as JSON (keyword arguments go to the engine's ``json()``)."""
        return self._underlying.json(**kwargs)

    @property
    def encoding(self) -> str | None:
        """The text encoding the engine decodes :attr:`text` with (e.g. ``"utf-8"``).

        The declared charset; without one, ``requests`` says ``"ISO-8859-1"`` for ``text/*``,
        ``"utf-8"`` for JSON and ``None`` otherwise, ``httpx`` says ``"utf-8"``.
        """
        value = self._underlying.encoding
        return None if value is None else str(value)

    @property
    def headers(self) -> MutableMapping[str, str]:
        """The response headers (case-insensitive mapping of the engine)."""
        return self._underlying.headers

    @property
    def url(self) -> str:
        """The final URL of the response, as a string."""
        return str(self._underlying.url)

    @property
    def reason(self) -> str:
        """The reason phrase, e.g. ``"Service Unavailable"``."""
        return self._engine.reason(self._underlying)

    @property
    def elapsed(self) -> datetime.timedelta:
        """Time the last request took (engine's measurement)."""
        return self._underlying.elapsed

    @property
    def method(self) -> str:
        """The request method, e.g. ``"GET"``."""
        return self._request.method

    @property
    def adapter(self) -> str:
        """``"requests"`` or ``"httpx"``: the engine that produced this response."""
        return self._engine.name

    def _status_passes(self) -> bool:
        """Call :meth:`raise_for_status`; False if it raised the engine's status error."""
        try:
            self.raise_for_status()
        except self._engine.status_error:
            return False
        return True

    def raise_for_status(self) -> None:
        """Raise the engine's own HTTP error for a bad status (``requests.HTTPError`` or
        ``httpx.HTTPStatusError``); do nothing for a good one."""
        self._underlying.raise_for_status()

    def __repr__(self) -> str:
        reason = f" {self.reason}" if self.reason else ""
        return (
            f"<{type(self).__name__} [{self.status_code}{reason}] "
            f"{self._request.method} {self._request.url} via {self._engine.name}>"
        )


class Response(BaseResponse[requests.Response]):
    """A sync response wrapper (``adapter="requests"``).

    Example:
        >>> r = client.get("/job/42")   # doctest: +SKIP
        >>> r.reload().status_code      # doctest: +SKIP
        200
    """

    __slots__ = ()
    _engine: RequestsEngine

    def reload(self) -> Response:
        """Re-issue the same request (the call-time snapshot) and refresh :attr:`underlying`.

        Returns:
            This same wrapper.

        Raises:
            ClientClosedError: the client that sent the request is closed.
            ValueError: the request had a one-shot body (file, generator) that cannot be resent.
            requests.RequestException: a transport error; the wrapper keeps its previous response.
        """
        return self._reload(None)

    def _reload(self, within: float | None) -> Response:
        """``reload()`` for a poller: ``within`` is the window left (``RequestsEngine.send``)."""
        check_open(self._engine, "reload()")
        self._request.require_replayable("reload()")
        fresh = self._engine.send(self._request, within)
        old, self._underlying = self._underlying, fresh
        old.close()
        return self


class AsyncResponse(BaseResponse[httpx.Response]):
    """An async response wrapper (``adapter="httpx"``); ``reload()`` is awaited.

    Example:
        >>> r = await client.get("/job/42")   # doctest: +SKIP
        >>> (await r.reload()).status_code    # doctest: +SKIP
        200
    """

    __slots__ = ()
    _engine: HttpxEngine

    async def reload(self) -> AsyncResponse:
        """Re-issue the same request (the call-time snapshot) and refresh :attr:`underlying`.

        Returns:
            This same wrapper.

        Raises:
            ClientClosedError: the client that sent the request is closed.
            ValueError: the request had a one-shot body (generator) that cannot be resent.
            httpx.TransportError: a transport error; the wrapper keeps its previous response.
        """
        return await self._reload(None)

    async def _reload(self, within: float | None) -> AsyncResponse:
        """``reload()`` for a poller: ``within`` is the window left (see ``HttpxEngine.send``)."""
        check_open(self._engine, "reload()")
        self._request.require_replayable("reload()")
        fresh = await self._engine.send(self._request, within)
        old, self._underlying = self._underlying, fresh
        await old.aclose()
        return self
