"""No connection outlives its client (ResourceWarning is also an error in this suite)."""

from __future__ import annotations

from urllib.parse import urlsplit

import psutil
import pytest

from resq import Requests, Session
from resq.clock import VirtualClock


def _client_connections(base_url: str) -> int:
    port = urlsplit(base_url).port
    return sum(
        1
        for c in psutil.Process().net_connections(kind="tcp")
        if c.raddr and c.raddr.port == port and c.status == psutil.CONN_ESTABLISHED
    )


@pytest.mark.parametrize("cls", [Requests, Session])
def test_sync_clients_leave_no_connection_open(base_url, key, cls):
    before = _client_connections(base_url)
    with cls(base_url, adapter="requests") as c:
        c.get(f"/job/{key}?n=5", timeout=30, delay=1, clock=VirtualClock())
        if cls is Requests:  # a fresh connection per request, closed right away
            assert _client_connections(base_url) == before
    assert _client_connections(base_url) == before


@pytest.mark.anyio
async def test_async_client_leaves_no_connection_open(base_url, key):
    before = _client_connections(base_url)
    async with Requests(base_url, adapter="httpx") as c:
        await c.get(f"/job/{key}?n=5", timeout=30, delay=1, clock=VirtualClock())
        assert _client_connections(base_url) == before + 1  # one pooled connection
    assert _client_connections(base_url) == before


def test_streamed_responses_are_released_on_every_reload(base_url, key):
    before = _client_connections(base_url)
    kept: list[object] = []  # keep every engine response alive: only close() can free them
    hooks = {"response": lambda resp, *args, **kwargs: kept.append(resp)}
    with Session(base_url, adapter="requests", stream=True, hooks=hooks) as s:
        r = s.get(f"/job/{key}?n=5", timeout=30, delay=0, clock=VirtualClock())
        assert r.status_code == 200
        assert len(kept) == 6
        # the five replaced responses were closed on reload; only the current one is open
        assert _client_connections(base_url) == before + 1
        r.underlying.close()
    assert _client_connections(base_url) == before
