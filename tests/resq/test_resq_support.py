"""The shared uvicorn helper in tests/_support works for any ASGI app (others reuse it)."""

from __future__ import annotations

import socket
import threading
from urllib.parse import urlsplit

import pytest
import requests

from docsite.testing.live_server import refused_url, serve


async def tiny_app(scope, receive, send):
    assert scope["type"] in ("http", "lifespan")
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            else:
                await send({"type": "lifespan.shutdown.complete"})
                return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": scope["path"].encode()})


def test_live_server_factory_serves_several_apps(live_server):
    first, second = live_server(tiny_app), live_server(tiny_app)
    assert first != second
    with requests.Session() as s:
        assert s.get(first + "/a", timeout=5).text == "/a"
        assert s.get(second + "/b", timeout=5).text == "/b"


def test_serve_stops_the_server_and_its_thread():
    threads = threading.active_count()
    with serve(tiny_app) as url:
        assert requests.get(url + "/x", timeout=5).status_code == 200
    assert threading.active_count() == threads
    port = urlsplit(url).port
    with socket.socket() as sock, pytest.raises(ConnectionRefusedError):
        sock.connect(("127.0.0.1", port))


def test_refused_url_refuses():
    with refused_url() as url, pytest.raises(requests.ConnectionError):
        requests.get(url, timeout=5)
