"""``resq._network.AsyncioFirst``: httpcore's sockets on asyncio's transports, over loopback.

Errors and timeouts (connect refused, a read timeout, a failed TLS handshake) are covered with
both event loops in ``test_resq_async.py``; this file covers what only this backend does:
which loop gets it, TLS that succeeds, and bodies larger than the buffers on both sides.
"""

from __future__ import annotations

import ssl
import subprocess
from pathlib import Path
from typing import Any

import pytest

from docsite.testing.live_server import serve
from resq import Requests
from resq._network import AsyncioFirst, _Stream

BIG = 16 * 1024 * 1024  # well past the 64 KiB at which the stream stops reading, and past
# the socket buffers on both sides (so that writing pauses too)


async def echo_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """``/big``: BIG bytes; any other path: the request body's length and its last byte."""
    assert scope["type"] == "http"
    if scope["path"] == "/big":
        body = bytes(range(256)) * (BIG // 256)
    else:
        received = bytearray()
        while True:
            message = await receive()
            received += message.get("body", b"")
            if not message.get("more_body"):
                break
        body = f"{len(received)} {received[-1] if received else -1}".encode()
    headers = [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def stream_of(response: Any) -> Any:
    """The network stream an answer came on (httpcore's ``network_stream`` extension)."""
    return response.underlying.extensions["network_stream"]


@pytest.mark.anyio
async def test_asyncio_gets_its_own_transports_and_trio_the_stock_backend(anyio_backend):
    with serve(echo_app, lifespan="off") as base:
        async with Requests(base, adapter="httpx") as client:
            r = await client.get("/x")
            assert r.text == "0 -1"
            backend = client._engine.slots.pool.network_backend  # type: ignore[union-attr]
            assert isinstance(backend, AsyncioFirst)
            assert isinstance(stream_of(r), _Stream) is (anyio_backend == "asyncio")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_bodies_larger_than_every_buffer_arrive_whole(anyio_backend):
    upload = bytes(BIG - 1) + b"\x07"
    # a long keep-alive: a writer left waiting must time out, not be woken by the server
    # closing an idle connection
    with serve(echo_app, lifespan="off", timeout_keep_alive=60) as base:
        async with Requests(base, adapter="httpx", timeout=10) as client:
            for _ in range(2):  # and the connection serves the next request afterwards
                r = await client.get("/big")
                assert r.content == bytes(range(256)) * (BIG // 256)
                r = await client.post("/echo", content=upload)
                assert r.text == f"{BIG} 7"
            assert isinstance(stream_of(r), _Stream)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (the openssl command line makes it)."""
    folder = tmp_path_factory.mktemp("tls")
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return key, cert


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_https_through_asyncio_s_tls(certificate, anyio_backend):
    key, cert = certificate
    context = ssl.create_default_context(cafile=str(cert))
    with serve(echo_app, lifespan="off", ssl_keyfile=str(key), ssl_certfile=str(cert)) as base:
        url = base.replace("http://", "https://")
        async with Requests(url, adapter="httpx", verify=context, timeout=10) as client:
            for _ in range(2):
                r = await client.post("/echo", content=b"abc")
                assert r.text == "3 99"
            stream = stream_of(r)
            assert isinstance(stream, _Stream)
            assert stream.get_extra_info("ssl_object").version().startswith("TLS")
            assert stream.get_extra_info("server_addr")[0] == "127.0.0.1"
