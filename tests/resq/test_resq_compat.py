"""What code written for resq 1.0.0 relies on, against a real uvicorn server on 127.0.0.1.

The import surface, ``encoding``, ``client.timeout``, dual-mode ``close()``, positional
``timeout``/``delay`` and redirects followed the same way by both engines.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import requests
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

import resq
import resq.http
from docsite.testing.live_server import serve
from resq import Requests, Session
from resq.clock import VirtualClock
from resq.http import AsyncResponse
from resq.http import Requests as HttpRequests
from resq.http import Session as HttpSession

pytestmark = pytest.mark.anyio

app = FastAPI()
hits: dict[str, int] = {}


@app.api_route("/r/{code}", methods=["GET", "POST", "PUT"])
async def redirect(code: int, to: str = "/echo") -> Response:
    return RedirectResponse(to, status_code=code)


@app.api_route("/echo", methods=["GET", "POST", "PUT"])
async def echo(request: Request) -> JSONResponse:
    body = (await request.body()).decode()
    kind = request.headers.get("content-type")
    return JSONResponse({"method": request.method, "body": body, "type": kind})


@app.get("/chain/{n}")
async def chain(n: int) -> Response:
    """``n`` redirects in a row, then /echo."""
    return RedirectResponse(f"/chain/{n - 1}" if n > 1 else "/echo", status_code=302)


@app.get("/loop")
async def loop() -> Response:
    return RedirectResponse("/loop", status_code=302)


@app.get("/not-modified")
async def not_modified() -> Response:
    return Response(status_code=304, headers={"ETag": '"v1"'})


@app.get("/moved-once/{key}")
async def moved_once(key: str) -> Response:
    """Counts its hits; always redirects to /echo (a poll must follow it, not retry it)."""
    hits[key] = hits.get(key, 0) + 1
    return RedirectResponse("/echo", status_code=302)


@app.get("/text/{charset}")
async def text(charset: str) -> Response:
    if charset == "none":
        return Response(b"plain", media_type="application/octet-stream")
    body = "caf\u00e9".encode(charset)
    return Response(body, headers={"Content-Type": f"text/plain; charset={charset}"})


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(app) as base:
        yield base


# -- the import surface ---------------------------------------------------------------------


def test_resq_http_holds_the_two_clients_too():
    assert HttpRequests is Requests
    assert HttpSession is Session
    assert {"Requests", "Session", "poll", "Response", "AsyncResponse", "BaseResponse"} <= set(
        resq.http.__all__
    )


def test_resq_all_is_the_public_surface_and_version_stays_an_attribute():
    assert resq.__all__ == ["Requests", "Session"]
    assert isinstance(resq.__version__, str)
    assert resq.__version__
    namespace: dict[str, Any] = {}
    exec("from resq import *", namespace)
    assert {k for k in namespace if not k.startswith("__")} == {"Requests", "Session"}


# -- client.timeout -------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [Requests, Session])
@pytest.mark.parametrize("adapter", ["requests", "httpx"])
def test_client_exposes_its_network_timeout(cls, adapter, url):
    client = cls(url, adapter, 5)
    try:
        assert (client.base_url, client.adapter, client.timeout) == (url, adapter, 5)
        assert isinstance(inspect.getattr_static(cls, "timeout"), property)
    finally:
        if adapter == "requests":
            client.close()
    assert cls(url, adapter).timeout is None


# -- positional timeout and delay -----------------------------------------------------------


@pytest.mark.parametrize("verb", ["get", "post", "put", "patch", "delete", "head", "options"])
def test_verbs_take_timeout_then_delay_positionally(verb):
    params = list(inspect.signature(getattr(Requests, verb)).parameters.values())
    assert [p.name for p in params[:4]] == ["self", "path", "timeout", "delay"]
    assert params[2].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert params[2].default is None
    assert params[3].default == 1.0


def test_positional_timeout_and_delay_poll_like_keywords(url):
    clock = VirtualClock()
    with Requests(url, "requests", 5) as client:
        r = client.get("/r/503", 5, 0.5, clock=clock)
    # /r/503 is not a redirect status: 503 until the window ends, 0.5 s apart
    assert r.status_code == 503
    assert clock.sleeps == [0.5] * 10


def test_positional_timeout_is_validated_like_the_keyword(url):
    with Requests(url) as client, pytest.raises(TypeError, match="timeout"):
        client.get("/echo", {"q": "1"})  # requests-style positional params are not a timeout


# -- encoding -------------------------------------------------------------------------------


@pytest.mark.parametrize(("charset", "expected"), [("utf-8", "utf-8"), ("latin-1", "latin-1")])
async def test_encoding_is_the_declared_charset_on_both_engines(url, charset, expected):
    with Requests(url) as sync_client:
        r = sync_client.get(f"/text/{charset}")
    async with Requests(url, "httpx") as async_client:
        ar = await async_client.get(f"/text/{charset}")
    assert r.encoding == ar.encoding == expected
    assert r.encoding == r.underlying.encoding
    assert ar.encoding == ar.underlying.encoding
    assert r.text == ar.text == "caf\u00e9"


async def test_encoding_without_a_charset_is_what_each_engine_says(url):
    with Requests(url) as sync_client:
        r = sync_client.get("/text/none")
    async with Requests(url, "httpx") as async_client:
        ar = await async_client.get("/text/none")
    assert r.encoding is None  # requests: no charset and not text
    assert ar.encoding == "utf-8"  # httpx: its default encoding


async def test_encoding_follows_reload(url):
    async with Requests(url, "httpx") as client:
        ar = await client.get("/text/latin-1")
        assert isinstance(ar, AsyncResponse)
        assert (await ar.reload()).encoding == "latin-1"


# -- close() on an async client -------------------------------------------------------------


async def test_close_on_an_async_client_returns_an_awaitable(url):
    client = Requests(url, "httpx")
    r = await client.get("/echo")
    assert r.status_code == 200
    closing = client.close()
    assert inspect.isawaitable(closing)
    assert not client.closed  # nothing happens until it is awaited, like a verb
    assert await closing is None
    assert client.closed
    await client.close()  # idempotent
    await client.aclose()  # aclose() still works


def test_close_on_a_sync_client_closes_at_once(url):
    client = Session(url, "requests")
    assert client.get("/echo").ok
    assert client.close() is None
    assert client.closed


# -- redirects: both engines follow them the same way ---------------------------------------

BODIES = {"GET": None, "POST": '{"n":1}', "PUT": '{"n":2}'}
JSON = "application/json"


def _sync_outcome(url: str, code: int, method: str) -> tuple[Any, ...]:
    with Requests(url, "requests", 5) as client:
        body = BODIES[method]
        r = client.request(method, f"/r/{code}", data=body, headers={"Content-Type": JSON})
    return r.status_code, r.url, r.json(), len(r.underlying.history)


async def _async_outcome(url: str, code: int, method: str) -> tuple[Any, ...]:
    async with Requests(url, "httpx", 5) as client:
        body = BODIES[method]
        r = await client.request(method, f"/r/{code}", content=body, headers={"Content-Type": JSON})
    return r.status_code, r.url, r.json(), len(r.underlying.history)


def _expected(code: int, method: str) -> dict[str, Any]:
    """What the target sees, by the requests engine's rules."""
    if code in (307, 308):  # method, body and its headers are kept
        return {"method": method, "body": BODIES[method] or "", "type": JSON}
    becomes_get = code in (302, 303) or (code == 301 and method == "POST")
    return {"method": "GET" if becomes_get else method, "body": "", "type": None}


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("method", list(BODIES))
async def test_httpx_follows_redirects_exactly_like_requests(url, code, method):
    sync = _sync_outcome(url, code, method)
    assert sync == (200, f"{url}/echo", _expected(code, method), 1)
    assert await _async_outcome(url, code, method) == sync


@pytest.mark.parametrize("hops", [29, 30, 31])
async def test_both_engines_follow_the_same_number_of_redirects(url, hops):
    with Requests(url) as client:
        try:
            sync: object = len(client.get(f"/chain/{hops}").underlying.history)
        except requests.TooManyRedirects:
            sync = "too many"
    async with Requests(url, "httpx") as aclient:
        try:
            asynchronous: object = len((await aclient.get(f"/chain/{hops}")).underlying.history)
        except httpx.TooManyRedirects:
            asynchronous = "too many"
    assert asynchronous == sync == (hops if hops <= 30 else "too many")


async def test_a_polling_verb_follows_a_redirect_instead_of_retrying_it(url, key):
    clock = VirtualClock()
    with Requests(url, "requests") as client:
        r = client.get(f"/moved-once/{key}-sync", timeout=30, delay=1, clock=clock)
    async with Requests(url, "httpx") as aclient:
        ar = await aclient.get(f"/moved-once/{key}-async", timeout=30, delay=1, clock=clock)
    assert r.status_code == ar.status_code == 200
    assert clock.sleeps == []  # the first attempt already ended at /echo
    assert hits[f"{key}-sync"] == hits[f"{key}-async"] == 1


async def test_a_304_is_never_followed_and_each_engine_judges_it_as_documented(url):
    clock = VirtualClock()
    with Requests(url, "requests") as client:
        r = client.get("/not-modified", timeout=3, delay=1, clock=clock)
    assert r.status_code == 304
    assert r.ok
    assert clock.sleeps == []
    async with Requests(url, "httpx") as aclient:
        ar = await aclient.get("/not-modified", timeout=3, delay=1, clock=clock)
    assert ar.status_code == 304
    assert not ar.ok
    assert clock.sleeps == [1, 1, 1]
    assert ar.url == r.url == f"{url}/not-modified"


async def test_both_engines_stop_at_the_same_redirect_limit(url):
    with Requests(url) as client, pytest.raises(requests.TooManyRedirects):
        client.get("/loop")
    async with Requests(url, "httpx") as aclient:
        with pytest.raises(httpx.TooManyRedirects):
            await aclient.get("/loop")


async def test_redirects_can_still_be_turned_off_per_client_or_per_request(url):
    async with Requests(url, "httpx", follow_redirects=False) as client:
        assert (await client.get("/r/302")).status_code == 302
    async with Requests(url, "httpx") as client:
        assert (await client.get("/r/302", follow_redirects=False)).status_code == 302
    with Requests(url) as sync_client:
        assert sync_client.get("/r/302", allow_redirects=False).status_code == 302
