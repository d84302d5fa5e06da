"""Demos driven by a client: ``client.main(client)`` against the recipe's app, in-process, on
virtual time (every resq recipe, and a hedron recipe shown with a script).

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
from typing import Any

import httpx
import requests
import requests.adapters

from resq import Requests
from resq.clock import use_clock
from resq.transports import ASGIAdapter
from tryit._server import BASE_URL, AppServer
from tryit._stepper import Stepper, run_blocking
from tryit.recipe import Recipe, load_recipe


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


def open_demo(name: str | Recipe, **kwargs: Any) -> Stepper:
    """A :class:`Stepper` for the recipe ``name`` whose client sends the requests (every resq
    recipe, and a hedron recipe with a ``client.py``); a :class:`Recipe` may carry the
    reader's edited files (:meth:`Recipe.edited`).

    Raises:
        ValueError: ``name`` is a hedron recipe driven by its page: its requests are sent by
            the page's htmx (the demo panel), not stepped here.
    """
    recipe = load_recipe(name) if isinstance(name, str) else name
    recipe.check_in_browser()
    if recipe.driver != "client":
        raise ValueError(
            f"recipe {recipe.name}: hedron recipes are driven by the page's demo panel "
            "(panel.mjs), not stepped in Python"
        )
    server = AppServer(recipe)

    async def bound(stepper: Stepper) -> None:
        await scenario(recipe, server, stepper)

    return Stepper(bound, server.recorder, **kwargs)


def run_to_end(name: str) -> list[str]:
    """Run the recipe's client scenario to its end on CPython and return the transcript lines."""

    async def go() -> list[str]:
        stepper = open_demo(name)
        try:
            result = await stepper.run_to_end()
        finally:
            await stepper.close()
        return result.lines

    return run_blocking(go)  # type: ignore[no-any-return]
