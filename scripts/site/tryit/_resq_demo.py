"""resq recipes: ``client.main(client)`` against ``server.app``, in-process, on virtual time.

The client is built the way the recipe's ``__main__`` block builds it, but on an in-process
transport (``httpx.ASGITransport`` for ``adapter = "httpx"``, ``resq.transports.ASGIAdapter``
for ``adapter = "requests"``) wrapped by a recorder that writes one transcript line per
request and ends the step before the next one. The default clock is a virtual clock
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
from resq.clock import VirtualClock, use_clock
from resq.transports import ASGIAdapter
from tryit._apps import advance_jobs, demo_environment
from tryit._recipes import Recipe
from tryit._record import Recorder

if TYPE_CHECKING:
    from tryit._stepper import Stepper

BASE_URL = "http://recipe.localhost"


class DemoClock(VirtualClock):
    """A virtual clock that tells the recorder when the poll pauses, and lets the server's
    stepping job runner (if the recipe names one) run the work due meanwhile."""

    def __init__(self, recorder: Recorder, runner: Any = None) -> None:
        super().__init__()
        self._recorder, self._runner = recorder, runner

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        self._paused(seconds)

    async def asleep(self, seconds: float) -> None:
        await super().asleep(seconds)
        self._paused(seconds)

    def _paused(self, seconds: float) -> None:
        self._recorder.note_sleep()
        advance_jobs(self._runner, seconds)


def _path(url: str) -> str:
    parsed = httpx.URL(url)
    return parsed.raw_path.decode("ascii")


class RecordingTransport(httpx.AsyncBaseTransport):
    """httpx transport: one step per request, one transcript line per answer."""

    def __init__(self, inner: httpx.AsyncBaseTransport, stepper: Stepper, clock: DemoClock):
        self._inner, self._stepper, self._clock = inner, stepper, clock

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await self._stepper.checkpoint()
        recorder = self._stepper.recorder
        recorder.before_request()
        response = await self._inner.handle_async_request(request)
        body = await response.aread()
        await response.aclose()
        recorder.response(
            self._clock.now(), request.method, _path(str(request.url)), response.status_code,
            body.decode("utf-8", "replace"), response.headers.get("content-type", ""),
            ok=response.is_success,  # httpx's raise_for_status rule
        )  # fmt: skip
        return httpx.Response(response.status_code, headers=response.headers, content=body)

    async def aclose(self) -> None:
        await self._inner.aclose()


class RecordingAdapter(requests.adapters.BaseAdapter):
    """requests adapter: one step per request, one transcript line per answer."""

    def __init__(self, inner: requests.adapters.BaseAdapter, stepper: Stepper, clock: DemoClock):
        super().__init__()
        self._inner, self._stepper, self._clock = inner, stepper, clock

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        self._stepper.checkpoint_sync()
        recorder = self._stepper.recorder
        recorder.before_request()
        response = self._inner.send(request, *args, **kwargs)
        recorder.response(
            self._clock.now(), str(request.method), _path(str(request.url)),
            response.status_code, response.text, response.headers.get("content-type", ""),
            ok=response.ok,  # requests' raise_for_status rule
        )  # fmt: skip
        return response

    def close(self) -> None:
        self._inner.close()


async def scenario(recipe: Recipe, stepper: Stepper, recorder: Recorder) -> None:
    """Run ``client.main(client)`` of a resq recipe against its ``server.app``."""
    with demo_environment():
        server = recipe.load("server.py")
    runner = getattr(server, str(recipe.demo["runner"])) if "runner" in recipe.demo else None
    client_module = recipe.load("client.py")
    main = client_module.main
    adapter = recipe.demo.get("adapter", "requests")
    timeout = recipe.demo.get("timeout", 5)
    clock = DemoClock(recorder, runner)
    with use_clock(clock), contextlib.redirect_stdout(recorder.printer()):
        if adapter == "httpx":
            if not inspect.iscoroutinefunction(main):
                raise TypeError(f"recipe {recipe.name}: adapter 'httpx' needs `async def main`")
            transport = RecordingTransport(httpx.ASGITransport(app=server.app), stepper, clock)
            client = Requests(BASE_URL, adapter="httpx", timeout=timeout, transport=transport)
            async with client as c:
                await main(c)
        else:
            sync_transport = RecordingAdapter(ASGIAdapter(server.app), stepper, clock)

            def run() -> None:
                with (
                    use_clock(clock),
                    Requests(
                        BASE_URL, adapter="requests", timeout=timeout, transport=sync_transport
                    ) as c,
                ):
                    main(c)

            await stepper.run_sync(run)
