"""What probing resq's numeric and URL edges found (issue 19, findings 8 and 9).

Every refusal is a ``TypeError``/``ValueError`` naming the parameter, raised before anything
is sent (the server's call log for the test's key stays empty).
"""

from __future__ import annotations

import pytest

from resq import Requests, Session
from resq.clock import VirtualClock
from resq.http import AsyncPoller, Poller, poll
from tests._support.bad_values import deeply_nested

HUGE = 10**400  # an int no float can hold
NUMBERS = ("timeout", "delay", "max_delay", "backoff", "jitter")


@pytest.fixture
def client(base_url):
    with Requests(base_url, adapter="requests") as c:
        yield c


@pytest.mark.parametrize("name", NUMBERS)
def test_an_int_too_large_for_a_float_is_refused_naming_the_parameter(client, key, calls, name):
    kwargs = {"timeout": 5, "delay": 1, name: HUGE}
    with pytest.raises(ValueError, match=rf"get\(\): {name} must be a finite number"):
        client.get(f"/job/{key}", **kwargs)
    assert calls(key) == []


@pytest.mark.parametrize("name", NUMBERS)
def test_poll_and_the_pollers_refuse_it_too(client, key, calls, name):
    r = client.get(f"/job/{key}?n=9")
    kwargs = {"timeout": 5, "delay": 1, name: HUGE}
    with pytest.raises(ValueError, match=rf"poll\(\): {name} must be a finite number"):
        poll(r, **kwargs)
    with pytest.raises(ValueError, match=rf"Poller\(\): {name} must be a finite number"):
        Poller(r, **kwargs)
    assert len(calls(key)) == 1  # only the first request, no reload


def test_the_client_timeout_refuses_it(key):
    with pytest.raises(ValueError, match=r"Requests\(\): timeout must be a finite number"):
        Requests("http://127.0.0.1:1", timeout=HUGE)


@pytest.mark.parametrize(
    "call",
    [VirtualClock, lambda v: VirtualClock().advance(v), lambda v: VirtualClock().sleep(v)],
    ids=["VirtualClock", "advance", "sleep"],
)
def test_the_virtual_clock_refuses_it(call):
    with pytest.raises(ValueError, match="must be a finite number"):
        call(HUGE)


@pytest.mark.parametrize("value", [1e10, 1e308, 10**300])
@pytest.mark.parametrize("name", ["timeout", "delay", "max_delay"])
def test_seconds_past_the_longest_wait_are_refused_before_sending(client, key, calls, name, value):
    kwargs = {"timeout": 5, "delay": 1, name: value}
    with pytest.raises(ValueError, match=rf"get\(\): {name} must be at most 1000000000 seconds"):
        client.get(f"/job/{key}", **kwargs)
    assert calls(key) == []


def test_a_long_window_and_delay_within_the_limit_still_poll(client, key, calls):
    r = client.get(f"/job/{key}?n=1", timeout=1e9, delay=1e9, clock=VirtualClock())
    assert r.status_code == 200
    assert len(calls(key)) == 2


@pytest.mark.parametrize("value", [1e10, 1e308])
def test_a_client_network_timeout_past_the_limit_is_refused(value):
    with pytest.raises(ValueError, match=r"Requests\(\): timeout must be at most 1000000000"):
        Requests("http://127.0.0.1:1", timeout=value)


# --- base_url edges ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "base",
    [
        "http://exa mple.com",
        "http://a b/",
        "http://host\r\nX-Injected: 1/",
        "http://host/pa th",
        "http://host\t/",
        "http://[::1",
        "http://[::1]x/",
        "http://host:99999/",
        "http://host:port/",
        "http://ho<st/",
        "http:///path",
    ],
)
def test_a_base_url_that_would_fail_later_is_refused_naming_it(base):
    with pytest.raises(ValueError, match=r"Requests\(\): base_url "):
        Requests(base)


@pytest.mark.parametrize(
    "base",
    [
        "http://127.0.0.1:8000",
        "https://api.example.com/v1?key=k",
        "http://[::1]:8080/x",
        "http://user:pw@host/",
        "http://xn--bcher-kva.example/",
        "http://b\u00fccher.example/",
        "http://host/a%20b",
    ],
)
def test_ordinary_base_urls_are_accepted(base):
    Requests(base).close()


def test_session_messages_name_session():
    with pytest.raises(ValueError, match=r"^Session\(\): base_url "):
        Session("ftp://x")
    with pytest.raises(TypeError, match=r"^Session\(\): unknown client option"):
        Session("http://127.0.0.1:1", base="x")
    with pytest.raises(ValueError, match=r"^Session\(\): timeout"):
        Session("http://127.0.0.1:1", timeout=-1)


# --- methods -------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["GE T", "GET\r\n", "G(T", "", " ", "GET/1"])
def test_a_method_that_is_not_an_http_token_is_refused_before_sending(client, key, calls, method):
    with pytest.raises(ValueError, match=r"method must be an HTTP method name"):
        client.request(method, f"/job/{key}")
    assert calls(key) == []


@pytest.mark.anyio
@pytest.mark.parametrize("method", ["GE T", "GET\n"])
async def test_httpx_refuses_it_too_instead_of_a_protocol_error(base_url, key, calls, method):
    async with Requests(base_url, adapter="httpx") as aclient:
        with pytest.raises(ValueError, match=r"method must be an HTTP method name"):
            await aclient.request(method, f"/job/{key}")
    assert calls(key) == []


@pytest.mark.anyio
async def test_async_pollers_refuse_huge_numbers(base_url, key, calls):
    async with Requests(base_url, adapter="httpx") as aclient:
        r = await aclient.get(f"/job/{key}?n=9")
        with pytest.raises(ValueError, match=r"AsyncPoller\(\): delay must be a finite"):
            AsyncPoller(r, 5, HUGE)
    assert len(calls(key)) == 1


# --- 9. a body nested too deep --------------------------------------------------------------


@pytest.mark.parametrize("param", ["json", "data"])
def test_a_body_nested_too_deep_is_refused_naming_it(client, key, calls, param):
    body = deeply_nested() if param == "json" else {"a": deeply_nested()}
    with pytest.raises(ValueError, match=rf"post\(\): {param}= is nested too deeply"):
        client.post(f"/job/{key}", **{param: body})
    assert calls(key) == []
