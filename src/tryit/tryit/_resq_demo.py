"""resq recipes: ``client.main(client)`` against ``server.app``, in-process, on virtual time.

The client is built the way the recipe's ``__main__`` block builds it, but on an in-process
transport (``httpx.ASGITransport`` for ``adapter = "httpx"``, ``resq.transports.ASGIAdapter``
for ``adapter = "requests"``) wrapped so that each request ends the step before it (one
step, one request). The server is the demo's :class:`~tryit._server.AppServer`: the recorder
writes the lines, and the demo's virtual clock is resq's clock too
(``resq.clock.use_clock``), so the recipe code runs unchanged and every run is identical.
"""

from __future__ import annotations

import contextlib
import inspect
from typing import TYPE_CHECKING, Any

import httpx
import requests
import requests.adapters

from resq import Requests
from resq.clock import use_clock
from resq.transports import ASGIAdapter
from tryit._recipes import Recipe
from tryit._server import BASE_URL, AppServer

if TYPE_CHECKING:
    from tryit._stepper import Stepper


class SteppingTransport(httpx.AsyncBaseTransport):
    """httpx transport: each request waits for its step."""

    def __init__(self, inner: httpx.AsyncBaseTransport, stepper: Stepper):
        self._inner, self._stepper = inner, stepper

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await self._stepper.checkpoint()
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


class SteppingAdapter(requests.adapters.BaseAdapter):
    """requests adapter: each request waits for its step."""

    def __init__(self, inner: requests.adapters.BaseAdapter, stepper: Stepper):
        super().__init__()
        self._inner, self._stepper = inner, stepper

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        self._stepper.checkpoint_sync()
        return self._inner.send(request, *args, **kwargs)

    def close(self) -> None:
        self._inner.close()


async def scenario(recipe: Recipe, server: AppServer, stepper: Stepper) -> None:
    """Run ``client.main(client)`` of a resq recipe against its server."""
    main = recipe.load("client.py").main
    demo, clock = recipe.demo, server.clock
    with use_clock(clock), contextlib.redirect_stdout(server.recorder.printer()):
        if demo.adapter == "httpx":
            if not inspect.iscoroutinefunction(main):
                raise TypeError(f"recipe {recipe.name}: adapter 'httpx' needs `async def main`")
            transport = SteppingTransport(httpx.ASGITransport(app=server.app), stepper)
            client = Requests(BASE_URL, adapter="httpx", timeout=demo.timeout, transport=transport)
            async with client as c:
                await main(c)
        else:
            sync_transport = SteppingAdapter(ASGIAdapter(server.app), stepper)

            def run() -> None:
                with (
                    use_clock(clock),
                    Requests(
                        BASE_URL, adapter="requests", timeout=demo.timeout, transport=sync_transport
                    ) as c,
                ):
                    main(c)

            await stepper.run_sync(run)
