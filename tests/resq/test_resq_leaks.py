"""No connection outlives its client (ResourceWarning is also an error in this suite)."""

from __future__ import annotations

from urllib.parse import urlsplit

import psutil
import pytest

from resq import Requests, Session
from resq.clock import VirtualClock


def _open(base_url: str) -> frozenset[tuple[str, int]]:
    """This process's established connections to the server, by local address."""
    port = urlsplit(base_url).port
    return frozenset(
        (c.laddr.ip, c.laddr.port)
        for c in psutil.Process().net_connections(kind="tcp")
        if c.raddr and c.raddr.port == port and c.status == psutil.CONN_ESTABLISHED
    )


def _opened_since(base_url: str, before: frozenset[tuple[str, int]]) -> int:
    """How many connections opened after ``before`` are still open.

    Compared as sets, so a connection another test left behind that closes meanwhile
    cannot make the count look right or wrong.
    """
    return len(_open(base_url) - before)


@pytest.mark.parametrize("cls", [Requests, Session])
def test_sync_clients_leave_no_connection_open(base_url, key, cls):
    before = _open(base_url)
    with cls(base_url, adapter="requests") as c:
        c.get(f"/job/{key}?n=5", timeout=30, delay=1, clock=VirtualClock())
        if cls is Requests:  # a fresh connection per request, closed right away
            assert _opened_since(base_url, before) == 0
    assert _opened_since(base_url, before) == 0


@pytest.mark.anyio
async def test_async_client_leaves_no_connection_open(base_url, key):
    before = _open(base_url)
    async with Requests(base_url, adapter="httpx") as c:
        await c.get(f"/job/{key}?n=5", timeout=30, delay=1, clock=VirtualClock())
        assert _opened_since(base_url, before) == 1  # one pooled connection
    assert _opened_since(base_url, before) == 0


def test_streamed_responses_are_released_on_every_reload(base_url, key):
    before = _open(base_url)
    kept: list[object] = []  # keep every engine response alive: only close() can free them
    hooks = {"response": lambda resp, *args, **kwargs: kept.append(resp)}
    with Session(base_url, adapter="requests", stream=True, hooks=hooks) as s:
        r = s.get(f"/job/{key}?n=5", timeout=30, delay=0, clock=VirtualClock())
        assert r.status_code == 200
        assert len(kept) == 6
        # the five replaced responses were closed on reload; only the current one is open
        assert _opened_since(base_url, before) == 1
        r.underlying.close()
    assert _opened_since(base_url, before) == 0
