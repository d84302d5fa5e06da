"""resq with adapter="httpx" against a real uvicorn server, on asyncio and on trio."""

from __future__ import annotations

import anyio
import httpx
import pytest

from resq import Requests, Session
from resq.clock import VirtualClock
from resq.http import AsyncResponse, ClientClosedError, poll

pytestmark = pytest.mark.anyio


async def test_verb_without_timeout_is_one_request(base_url, key, calls):
    async with Requests(base_url, adapter="httpx", timeout=5) as client:
        r = await client.get(f"/job/{key}?n=5")
    assert isinstance(r, AsyncResponse)
    assert r.status_code == 503
    assert not r.ok
    assert len(calls(key)) == 1


@pytest.mark.parametrize("fail", [404, 503, 304])
async def test_verb_with_timeout_polls_until_success(base_url, key, calls, fail):
    clock = VirtualClock()
    async with Requests(base_url, adapter="httpx", timeout=5) as client:
        r = await client.get(f"/job/{key}?n=3&fail={fail}", timeout=30, delay=2, clock=clock)
    assert r.status_code == 200
    assert r.json()["attempt"] == 4
    assert clock.sleeps == [2, 2, 2]
    assert len(calls(key)) == 4


@pytest.mark.parametrize("status", [200, 204, 301, 304, 400, 404, 500, 503])
async def test_ok_is_exactly_when_raise_for_status_passes(base_url, key, status):
    async with Requests(base_url, adapter="httpx") as client:
        r = await client.get(f"/job/{key}?n=1&fail={status}")
    try:
        r.raise_for_status()
        raised = False
    except httpx.HTTPStatusError:
        raised = True
    assert r.ok is not raised
    assert r.ok is (200 <= status < 300)


async def test_await_poll_with_timeout_none_works_and_changes_nothing(base_url, key, calls):
    async with Requests(base_url, adapter="httpx") as client:
        r = await client.get(f"/job/{key}?n=5")
        before = r.underlying
        assert await poll(r, None, 1) is r
    assert r.underlying is before
    assert len(calls(key)) == 1


async def test_poll_refreshes_in_place_and_exhausts_to_last(base_url, key, calls):
    clock = VirtualClock()
    async with Requests(base_url, adapter="httpx") as client:
        r = await client.get(f"/job/{key}?n=100&fail=404")
        first = r.underlying
        same = await poll(r, timeout=5, delay=2, clock=clock)
    assert same is r
    assert r.underlying is not first
    assert r.status_code == 404
    assert clock.sleeps == [2, 2, 1]
    assert len(calls(key)) == 4


async def test_connect_error_propagates_at_once(refused):
    clock = VirtualClock()
    async with Requests(refused, adapter="httpx") as client:
        with pytest.raises(httpx.ConnectError):
            await client.get("/job/x", timeout=30, delay=1, clock=clock)
    assert clock.sleeps == []


async def test_read_timeout_propagates_and_wrapper_keeps_previous(base_url, key):
    async with Requests(base_url, adapter="httpx", timeout=0.2) as client:
        r = await client.get(f"/job/{key}?n=5")
        previous = r.underlying
        object.__setattr__(r._request, "url", f"{base_url}/slow?s=0.5")
        with pytest.raises(httpx.ReadTimeout):
            await poll(r, timeout=30, delay=0, clock=VirtualClock())
    assert r.underlying is previous


async def test_reload_replays_the_snapshot(base_url, key, calls):
    body = {"a": [1]}
    async with Requests(base_url, adapter="httpx") as client:
        r = await client.put(f"/job/{key}", json=body, params={"n": 1})
        body["a"].append(2)
        assert (await r.reload()) is r
    got = calls(key)
    assert [c["body"] for c in got] == [got[0]["body"]] * 2
    assert '"a":[1]' in got[0]["body"].replace(" ", "")
    assert r.status_code == 200


async def test_one_shot_async_body_rejected_for_polling(base_url, key, calls):
    async def chunks():
        yield b"x"

    gen = chunks()
    async with Requests(base_url, adapter="httpx") as client:
        with pytest.raises(ValueError, match=r"content=.*one-shot"):
            client.post(f"/job/{key}", content=gen, timeout=5)
    await gen.aclose()
    assert calls(key) == []


async def test_reload_on_closed_client_raises(base_url, key, calls):
    client = Requests(base_url, adapter="httpx")
    r = await client.get(f"/job/{key}?n=1")
    await client.aclose()
    with pytest.raises(ClientClosedError):
        await r.reload()
    with pytest.raises(ClientClosedError):
        client.get(f"/job/{key}")
    assert len(calls(key)) == 1


async def test_with_on_an_async_client_fails_before_the_body(base_url):
    ran = False
    client = Session(base_url, adapter="httpx")
    with pytest.raises(TypeError, match="use 'async with'"):  # noqa: SIM117
        with client:
            ran = True
    assert not ran
    await client.aclose()


async def test_validation_happens_when_the_verb_is_called(base_url):
    async with Requests(base_url, adapter="httpx") as client:
        with pytest.raises(TypeError, match="timeout"):
            client.get("/x", timeout="3")
        with pytest.raises(TypeError, match="path"):
            client.get(42)


async def test_many_concurrent_polls_share_one_client(base_url, key):
    keys = [f"{key}-{i}" for i in range(20)]
    results: dict[str, int] = {}
    async with Requests(base_url, adapter="httpx") as client:

        async def one(k: str) -> None:
            r = await client.get(f"/job/{k}?n=2", timeout=30, delay=1, clock=VirtualClock())
            results[k] = r.json()["attempt"]

        async with anyio.create_task_group() as tg:
            for k in keys:
                tg.start_soon(one, k)
    assert results == dict.fromkeys(keys, 3)


async def test_tls_error_propagates_at_once(base_url, key, calls):
    clock = VirtualClock()
    async with Requests(base_url.replace("http://", "https://"), adapter="httpx") as client:
        with pytest.raises(httpx.ConnectError):  # the TLS handshake fails (asyncio and trio)
            await client.get(f"/job/{key}", timeout=30, delay=1, clock=clock)
    assert clock.sleeps == []
    assert calls(key) == []  # no HTTP request ever reached the server
