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
