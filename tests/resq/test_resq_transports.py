"""transport=: an in-process ASGI app through ASGIAdapter (requests) and httpx.ASGITransport."""

from __future__ import annotations

import threading

import httpx
import pytest
import requests
from resq_app import app

from resq import Requests, Session
from resq.clock import VirtualClock
from resq.transports import ASGIAdapter


def _portal_threads() -> int:
    return sum(1 for t in threading.enumerate() if "portal" in t.name.lower() or "anyio" in t.name)


def test_asgi_adapter_polls_an_in_process_app(key):
    adapter = ASGIAdapter(app)
    clock = VirtualClock()
    with Requests("http://app.test/", adapter="requests", transport=adapter) as c:
        r = c.post(f"/job/{key}?n=2", json={"x": 1}, timeout=10, delay=1, clock=clock)
        assert r.status_code == 200
        assert r.json() == {"state": "done", "attempt": 3}
        assert r.reason == "OK"
        assert r.headers["content-type"] == "application/json"
        assert r.url == f"http://app.test/job/{key}?n=2"
        assert clock.sleeps == [1, 1]
        calls = c.get(f"/calls/{key}").json()
    assert [x["body"].replace(" ", "") for x in calls] == ['{"x":1}'] * 3
    assert adapter.closed  # the client closed its transport


def test_asgi_adapter_starts_its_thread_lazily_and_stops_it_on_close(key):
    before = threading.active_count()
    adapter = ASGIAdapter(app)
    assert threading.active_count() == before  # nothing started yet
    with Session("http://app.test", adapter="requests", transport=adapter) as s:
        assert s.get(f"/job/{key}").ok
        assert threading.active_count() == before + 1
        assert s.get(f"/job/{key}").ok  # the same portal is reused
        assert threading.active_count() == before + 1
    assert threading.active_count() == before
    with pytest.raises(RuntimeError, match="closed"):
        adapter.send(requests.Request("GET", "http://app.test/x").prepare())


def test_asgi_adapter_read_timeout():
    with (
        Requests(
            "http://app.test", adapter="requests", timeout=0.1, transport=ASGIAdapter(app)
        ) as c,
        pytest.raises(requests.ReadTimeout),
    ):
        c.get("/slow?s=5", timeout=30, delay=1, clock=VirtualClock())


def test_asgi_adapter_rejects_non_apps():
    with pytest.raises(TypeError, match="app"):
        ASGIAdapter("app")  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_httpx_asgi_transport(key):
    clock = VirtualClock()
    transport = httpx.ASGITransport(app=app)
    async with Requests("http://app.test", adapter="httpx", transport=transport) as c:
        r = await c.get(f"/job/{key}?n=2&fail=304", timeout=10, delay=1, clock=clock)
    assert r.status_code == 200
    assert clock.sleeps == [1, 1]


def test_asgi_adapter_streamed_responses_can_be_read_and_closed(key):
    with Session(
        "http://app.test", adapter="requests", transport=ASGIAdapter(app), stream=True
    ) as s:
        r = s.get(f"/job/{key}?n=1", timeout=5, delay=0, clock=VirtualClock())
        assert r.status_code == 200
        assert b"".join(r.underlying.iter_content(4)) == r.content
