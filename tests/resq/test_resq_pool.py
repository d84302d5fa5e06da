"""The pool behind the httpx gate (``resq._pool.SlotPool``), over real loopback sockets.

A small raw HTTP/1.1 server (a thread per connection) records each connection it accepts and
can close a connection right after its answer, with or without saying so; the test waits for
the server's own "closed" event before the next request, never for time to pass.
"""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import httpcore
import httpx
import pytest

from docsite.testing.live_server import serve
from resq import Requests
from resq._pool import SlotPool
from resq._transport import SlotTransport, slot_transport

WAIT_S = 10.0


class RawServer:
    """``close``: "no" keeps connections alive; "said" answers ``Connection: close`` and
    closes; "silently" closes after a plain keep-alive answer (as an idle timeout would)."""

    def __init__(self, close: str = "no") -> None:
        self.close = close
        self.accepted = 0
        self.closed = threading.Semaphore(0)  # released once per connection the server closed
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._threads: list[threading.Thread] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.accepted += 1
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while True:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        return
                    data += chunk
                data = data.partition(b"\r\n\r\n")[2]
                said = b"Connection: close\r\n" if self.close == "said" else b""
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n" + said + b"\r\nok")
                if self.close != "no":
                    conn.shutdown(socket.SHUT_RDWR)
                    conn.close()
                    self.closed.release()
                    return

    def stop(self) -> None:
        self._sock.close()


@pytest.fixture
def raw_server() -> Iterator[Any]:
    servers: list[RawServer] = []

    def make(close: str = "no") -> RawServer:
        servers.append(RawServer(close))
        return servers[-1]

    yield make
    for server in servers:
        server.stop()


def pool_of(client: Requests[Any]) -> Any:
    """The pool of resq's own transport (``None`` when the client has httpx's)."""
    slots = client._engine.slots  # type: ignore[union-attr]
    return None if slots is None else slots.pool


@pytest.mark.anyio
async def test_one_connection_serves_requests_one_after_another(raw_server):
    server = raw_server()
    async with Requests(server.url, adapter="httpx", max_in_flight=3) as client:
        assert isinstance(pool_of(client), SlotPool)
        for _ in range(5):
            assert (await client.get("/a")).status_code == 200
        assert len(pool_of(client).connections) == 1
    assert server.accepted == 1


@pytest.mark.anyio
@pytest.mark.parametrize("close", ["said", "silently"])
async def test_a_connection_the_server_closed_is_never_reused(raw_server, close):
    """Without the expiry check on the connection taken, the request after a silent close
    would go out on a dead socket and fail ("Server disconnected")."""
    server = raw_server(close)
    async with Requests(server.url, adapter="httpx", max_in_flight=2) as client:
        for _ in range(3):
            assert (await client.get("/a")).status_code == 200
            assert await anyio.to_thread.run_sync(server.closed.acquire, True, WAIT_S)
    assert server.accepted == 3


@pytest.mark.anyio
async def test_a_connection_is_checked_once_per_request(monkeypatch, raw_server):
    """httpcore's own pool checks every pooled connection each time a request starts or
    ends (some twenty socket checks per request with ten connections); behind the gate the
    pool checks only the connection it takes."""
    checks = 0
    has_expired = httpcore.AsyncHTTPConnection.has_expired

    def counted(self: httpcore.AsyncHTTPConnection) -> bool:
        nonlocal checks
        checks += 1
        return has_expired(self)

    monkeypatch.setattr(httpcore.AsyncHTTPConnection, "has_expired", counted)
    server = raw_server()
    async with (
        Requests(server.url, adapter="httpx", max_in_flight=10) as client,
        anyio.create_task_group() as tg,
    ):
        for i in range(100):
            tg.start_soon(client.get, f"/a/{i}")
    assert server.accepted <= 10
    # one check per reuse of an idle connection, plus at most one per return to the pool
    assert checks <= 2 * 100


@pytest.mark.anyio
async def test_a_cancelled_request_does_not_give_its_connection_back():
    entered, release = threading.Event(), threading.Event()
    ports: list[int] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        ports.append(scope["client"][1])
        if scope["path"] == "/hold":
            entered.set()
            await anyio.to_thread.run_sync(release.wait, WAIT_S)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    with serve(app, lifespan="off") as base:
        try:
            async with Requests(base, adapter="httpx", max_in_flight=1) as client:
                pool = pool_of(client)
                with anyio.fail_after(WAIT_S):
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(client.get, "/hold")
                        await anyio.to_thread.run_sync(entered.wait, WAIT_S)
                        tg.cancel_scope.cancel()
                assert pool.connections == []  # closed, not kept half-read
                assert (await client.get("/next")).status_code == 200
                assert len(pool.connections) == 1
        finally:
            release.set()
    assert len(ports) == 2
    assert ports[0] != ports[1]


@pytest.mark.anyio
async def test_two_origins_share_the_connections_allowed(raw_server):
    one, two = raw_server(), raw_server()
    async with Requests(one.url, adapter="httpx", max_in_flight=2) as client:
        pool = pool_of(client)
        for i in range(6):
            url = one.url if i % 2 else two.url
            async with anyio.create_task_group() as tg:
                for _ in range(2):
                    tg.start_soon(client.get, f"{url}/a")
            assert len(pool.connections) <= 2
        connections = pool.connections
    assert connections
    assert all(c.is_closed() for c in connections)  # closed with the client
    assert pool.connections == []


@pytest.mark.anyio
@pytest.mark.parametrize(
    "options",
    [
        {"max_in_flight": None},
        {"transport": httpx.AsyncHTTPTransport()},
        {"proxy": "http://127.0.0.1:9"},
        {"mounts": {"http://": httpx.AsyncHTTPTransport()}},
    ],
    ids=["no-gate", "own-transport", "proxy", "mounts"],
)
async def test_httpx_keeps_its_own_transport_where_the_slots_do_not_fit(options):
    async with Requests("http://127.0.0.1:9", adapter="httpx", **options) as client:
        assert pool_of(client) is None


def test_the_slots_take_the_clients_limits_and_tls_settings(tmp_path):
    limits = httpx.Limits(max_connections=3, keepalive_expiry=7.5)
    transport = slot_transport({"limits": limits, "verify": False}, max_in_flight=10)
    assert isinstance(transport, SlotTransport)
    assert (transport.pool.max_connections, transport.pool.keepalive_expiry) == (3, 7.5)
    assert transport.pool.ssl_context.verify_mode is ssl.CERT_NONE
    assert slot_transport({"http2": True}, max_in_flight=10) is None  # HTTP/2: httpx's own
    assert slot_transport({"http1": False}, max_in_flight=10) is None
    default = slot_transport({}, max_in_flight=4)
    assert default is not None
    assert default.pool.max_connections == 4
    assert default.pool.ssl_context.verify_mode is ssl.CERT_REQUIRED


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_httpcores_errors_become_httpxs(anyio_backend):
    """A refused connection is ``httpx.ConnectError`` (not httpcore's), as with httpx's own
    transport, so code catching ``httpx.TransportError`` keeps working."""
    with socket.create_server(("127.0.0.1", 0)) as sock:
        port = sock.getsockname()[1]
    async with Requests(f"http://127.0.0.1:{port}", adapter="httpx") as client:
        assert pool_of(client) is not None
        with pytest.raises(httpx.ConnectError):
            await client.get("/")
