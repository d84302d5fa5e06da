"""resq with adapter="requests" against a real uvicorn server: the seed's semantics, sync."""

from __future__ import annotations

import io
from typing import Any

import pytest
import requests

from resq import Requests, Session
from resq.clock import VirtualClock
from resq.http import ClientClosedError, Response, poll


def test_verb_without_timeout_is_one_request_without_status_check(base_url, key, calls):
    with Requests(base_url, adapter="requests", timeout=5) as client:
        r = client.get(f"/job/{key}?n=5")
    assert isinstance(r, Response)
    assert r.status_code == 503
    assert not r.ok
    assert len(calls(key)) == 1


@pytest.mark.parametrize("fail", [404, 503])
def test_verb_with_timeout_polls_until_success(base_url, key, calls, fail):
    clock = VirtualClock()
    with Requests(base_url, adapter="requests", timeout=5) as client:
        r = client.get(f"/job/{key}?n=3&fail={fail}", timeout=30, delay=2, clock=clock)
    assert r.status_code == 200
    assert r.ok
    assert r.json() == {"state": "done", "attempt": 4}
    assert clock.sleeps == [2, 2, 2]
    assert len(calls(key)) == 4


def test_304_is_not_a_bad_status_for_requests(base_url, key, calls):
    with Requests(base_url, adapter="requests") as client:
        r = client.get(f"/job/{key}?n=3&fail=304", timeout=30, delay=2, clock=VirtualClock())
    assert r.status_code == 304
    assert r.ok  # requests' raise_for_status does not raise for 3xx
    assert len(calls(key)) == 1


@pytest.mark.parametrize("status", [200, 204, 301, 304, 399, 400, 404, 418, 500, 503, 599])
def test_ok_is_exactly_when_raise_for_status_passes(base_url, key, status):
    with Requests(base_url, adapter="requests") as client:
        r = client.get(f"/job/{key}?n=1&fail={status}", allow_redirects=False)
    try:
        r.raise_for_status()
        raised = False
    except requests.HTTPError:
        raised = True
    assert r.ok is not raised
    assert r.status_code == status


def test_poll_returns_the_same_wrapper_refreshed_in_place(base_url, key):
    clock = VirtualClock()
    with Requests(base_url, adapter="requests", timeout=5) as client:
        r = client.get(f"/job/{key}?n=2")
        first = r.underlying
        same = poll(r, timeout=30, delay=2, clock=clock)
    assert same is r
    assert r.underlying is not first
    assert isinstance(r.underlying, requests.Response)
    assert first.status_code == 503
    assert r.status_code == 200
    assert clock.sleeps == [2, 2]


def test_poll_never_issues_the_first_request(base_url, key, calls):
    with Requests(base_url, adapter="requests") as client:
        r = client.get(f"/job/{key}")
        assert poll(r, timeout=30, delay=2) is r
    assert len(calls(key)) == 1  # already 200: no reload


def test_exhaustion_returns_last_response_without_exception(base_url, key, calls):
    clock = VirtualClock()
    with Requests(base_url, adapter="requests") as client:
        r = client.get(f"/job/{key}?n=100&fail=404", timeout=5, delay=2, clock=clock)
    assert r.status_code == 404
    assert not r.ok
    assert r.json()["attempt"] == 4  # t=0, 2, 4, 5 (last sleep is min(delay, remaining))
    assert clock.sleeps == [2, 2, 1]
    assert len(calls(key)) == 4


def test_poll_with_timeout_none_returns_unchanged_without_status_check(base_url, key, calls):
    with Requests(base_url, adapter="requests") as client:
        r = client.get(f"/job/{key}?n=5")
        before = r.underlying
        assert poll(r, None, 2) is r
        assert poll(r, timeout=None, delay=0) is r
    assert r.underlying is before
    assert len(calls(key)) == 1


def test_connect_error_propagates_at_once(refused):
    clock = VirtualClock()
    with Requests(refused, adapter="requests") as client, pytest.raises(requests.ConnectionError):
        client.get("/job/x", timeout=30, delay=1, clock=clock)
    assert clock.sleeps == []


def test_read_timeout_propagates_and_wrapper_keeps_previous_response(base_url, key):
    with Requests(base_url, adapter="requests", timeout=0.2) as client:
        r = client.get(f"/job/{key}?n=5")
        previous = r.underlying
        # point the snapshot at the slow endpoint: the next reload times out
        object.__setattr__(r._request, "url", f"{base_url}/slow?s=0.5")
        clock = VirtualClock()
        with pytest.raises(requests.ReadTimeout):
            poll(r, timeout=30, delay=1, clock=clock)
    assert r.underlying is previous
    assert r.status_code == 503
    assert clock.sleeps == [1]  # one wait, one reload that failed, no retry


def test_reload_replays_a_snapshot_taken_at_call_time(base_url, key, calls):
    payload: dict[str, Any] = {"items": [1, 2]}
    params = {"n": "1"}
    headers = {"X-Test": "one"}
    with Requests(base_url, adapter="requests") as client:
        r = client.post(f"/job/{key}", json=payload, params=params, headers=headers)
        payload["items"].append(3)
        params["n"] = "9"
        headers["X-Test"] = "two"
        r.reload()
    got = calls(key)
    assert [c["body"] for c in got] == ['{"items":[1,2]}'] * 2 or [c["body"] for c in got] == [
        '{"items": [1, 2]}'
    ] * 2
    assert [c["query"] for c in got] == ["n=1", "n=1"]
    assert [c["header"] for c in got] == ["one", "one"]
    assert [c["method"] for c in got] == ["POST", "POST"]
    assert r.status_code == 200


def _gen():
    yield b"chunk"


@pytest.mark.parametrize(
    ("param", "body"),
    [("data", io.BytesIO(b"x")), ("data", _gen()), ("files", {"f": io.BytesIO(b"x")})],
)
def test_one_shot_body_is_rejected_for_polling_before_sending(base_url, key, calls, param, body):
    with Requests(base_url, adapter="requests") as client:
        with pytest.raises(ValueError, match=f"{param}=.*one-shot"):
            client.post(f"/job/{key}", timeout=5, delay=1, **{param: body})
        assert calls(key) == []
        r = client.post(f"/job/{key}?n=1", **{param: body})  # no polling: sent once
        assert r.status_code == 503
        with pytest.raises(ValueError, match="one-shot"):
            poll(r, timeout=5, delay=1)
        with pytest.raises(ValueError, match="one-shot"):
            r.reload()
    assert len(calls(key)) == 1


def test_reload_on_a_closed_client_raises_clearly(base_url, key, calls):
    client = Requests(base_url, adapter="requests")
    r = client.get(f"/job/{key}?n=1")
    client.close()
    assert client.closed
    with pytest.raises(ClientClosedError, match="closed"):
        r.reload()
    with pytest.raises(ClientClosedError):
        client.get(f"/job/{key}")
    assert len(calls(key)) == 1
    client.close()  # idempotent


def test_polling_a_closed_clients_response_fails_before_the_pause(base_url, key, calls):
    client = Requests(base_url, adapter="requests")
    r = client.get(f"/job/{key}?n=3")
    assert r.status_code == 503
    client.close()
    clock = VirtualClock()
    with pytest.raises(ClientClosedError, match="closed"):
        poll(r, timeout=30, delay=2, clock=clock)
    assert clock.sleeps == []  # no pointless wait before the error
    assert len(calls(key)) == 1


def test_async_with_on_a_sync_client_fails_before_the_body():
    ran = False

    async def use() -> None:
        nonlocal ran
        async with Requests("http://127.0.0.1:9", adapter="requests"):
            ran = True

    coro = use()
    with pytest.raises(TypeError, match="use 'with'"):
        coro.send(None)
    coro.close()
    assert not ran


def test_session_keeps_cookies_requests_does_not(base_url, key, calls):
    with Session(base_url, adapter="requests") as s:
        s.get("/login")
        s.get(f"/job/{key}")
    with Requests(base_url, adapter="requests") as c:
        c.get("/login")
        c.get(f"/job/{key}")
    assert [x["cookie"] for x in calls(key)] == ["abc", None]


def test_client_options_reach_the_engine(base_url, key, calls):
    with Session(base_url, adapter="requests", headers={"X-Test": "opt"}) as s:
        s.get(f"/job/{key}")
    assert calls(key)[0]["header"] == "opt"


def test_every_verb(base_url, key, calls):
    with Requests(base_url, adapter="requests") as c:
        for verb in ("get", "post", "put", "patch", "delete", "options", "head"):
            assert getattr(c, verb)(f"/job/{key}").status_code == 200
        assert c.request("get", f"/job/{key}").method == "GET"
    assert [x["method"] for x in calls(key)] == [
        "GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "GET"
    ]  # fmt: skip


def test_wrapper_surface_and_repr(base_url, key):
    with Requests(base_url, adapter="requests") as c:
        r = c.get(f"/job/{key}?n=1")
    assert r.reason == "Service Unavailable"
    assert r.headers["content-type"] == "application/json"
    assert r.url == f"{base_url}/job/{key}?n=1"
    assert r.elapsed.total_seconds() >= 0
    assert r.content.startswith(b"{")
    assert r.text.startswith("{")
    assert r.adapter == "requests"
    url = f"{base_url}/job/{key}?n=1"
    assert repr(r) == f"<Response [503 Service Unavailable] GET {url} via requests>"
    with pytest.raises(requests.HTTPError):
        r.raise_for_status()
    with pytest.raises(AttributeError):
        r.underlying = None  # type: ignore[misc]


def test_poll_checks_the_status_by_calling_raise_for_status(base_url, key, monkeypatch):
    checked: list[int] = []
    original = Response.raise_for_status

    def spy(self: Response) -> None:
        checked.append(self.status_code)
        original(self)

    monkeypatch.setattr(Response, "raise_for_status", spy)
    with Requests(base_url, adapter="requests") as client:
        client.get(f"/job/{key}?n=2", timeout=30, delay=1, clock=VirtualClock())
    assert checked == [503, 503, 200]


def test_tls_error_propagates_at_once(base_url):
    clock = VirtualClock()
    tls_url = base_url.replace("http://", "https://")  # the server speaks plain HTTP
    with (
        Requests(tls_url, adapter="requests") as client,
        pytest.raises(requests.exceptions.SSLError),
    ):
        client.get("/job/x", timeout=30, delay=1, clock=clock)
    assert clock.sleeps == []
