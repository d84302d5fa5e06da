"""Real uvicorn servers on loopback: ``serve(app)``.

``serve(app)`` binds a socket on 127.0.0.1 with a free port (the kernel picks it, so there is no
race), runs ``uvicorn`` on it in a background thread, waits until uvicorn's startup has finished
(an event set by the server itself, not a sleep) and stops it on exit::

    with serve(app) as base_url:
        requests.get(base_url + "/health")

The ``live_server`` fixture is a factory: ``base_url = live_server(app)``; every server it
started is stopped at the end of the test. Import it into a conftest to use it::

    from docsite.testing.live_server import live_server  # noqa: F401

``refused_url()`` yields a loopback URL whose port is bound but not listening: connecting to it
fails at once with "connection refused", deterministically.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn

START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 10.0


class _Server(uvicorn.Server):
    """A uvicorn server that reports the end of its startup through an event."""

    def __init__(self, config: uvicorn.Config, ready: threading.Event) -> None:
        super().__init__(config)
        self._ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        self._ready.set()

    def install_signal_handlers(self) -> None:  # pragma: no cover - older uvicorn versions
        pass


@contextlib.contextmanager
def serve(app: Any, **config: Any) -> Iterator[str]:
    """Run ``app`` (any ASGI app) on 127.0.0.1 in a background thread; yield its base URL.

    Extra keyword arguments go to ``uvicorn.Config`` (``log_level``, ``timeout_keep_alive``...).
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted sockets inherit TCP_NODELAY: without it, uvicorn's separate header and body
    # writes meet the client's delayed ACK and every keep-alive request costs ~40 ms.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    options: dict[str, Any] = {
        "log_level": "warning",
        "lifespan": "auto",
        "loop": "asyncio",
        "http": "h11",
        "timeout_graceful_shutdown": 2,
    }
    options.update(config)
    ready = threading.Event()
    server = _Server(uvicorn.Config(app, **options), ready)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(server.serve(sockets=[sock]))
        except BaseException as exc:  # reported to the test thread below
            errors.append(exc)

    thread = threading.Thread(target=run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ready.wait(0.05):
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start on port {port}: {errors or 'timeout'}")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(STOP_TIMEOUT_S)
        sock.close()
        if thread.is_alive():
            raise RuntimeError(f"uvicorn on port {port} did not stop within {STOP_TIMEOUT_S}s")


@contextlib.contextmanager
def refused_url() -> Iterator[str]:
    """Yield ``http://127.0.0.1:<port>`` for a port that is bound but never listens."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
