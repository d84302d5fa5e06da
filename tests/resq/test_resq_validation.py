"""Bad input: a clear TypeError/ValueError naming the parameter, before anything is sent."""

from __future__ import annotations

import math

import pytest

from resq import Requests, Session
from resq.clock import VirtualClock, use_clock
from resq.http import AsyncPoller, Poller, poll

BAD_NUMBERS = [
    (True, TypeError),
    ("3", TypeError),
    (None, TypeError),
    (math.nan, ValueError),
    (math.inf, ValueError),
    (-1, ValueError),
]


@pytest.fixture
def client(base_url):
    with Requests(base_url, adapter="requests") as c:
        yield c


@pytest.mark.parametrize(("value", "error"), [v for v in BAD_NUMBERS if v[0] is not None])
def test_verb_timeout_rejected_before_sending(client, key, calls, value, error):
    with pytest.raises(error, match="timeout"):
        client.get(f"/job/{key}", timeout=value)
    assert calls(key) == []


@pytest.mark.parametrize(("value", "error"), BAD_NUMBERS)
def test_verb_delay_rejected_before_sending(client, key, calls, value, error):
    with pytest.raises(error, match="delay"):
        client.get(f"/job/{key}", timeout=5, delay=value)
    assert calls(key) == []


@pytest.mark.parametrize(("value", "error"), BAD_NUMBERS)
def test_poll_arguments_rejected_before_any_reload(client, key, calls, value, error):
    r = client.get(f"/job/{key}?n=9")
    if value is not None:
        with pytest.raises(error, match="timeout"):
            poll(r, value, 1)
    with pytest.raises(error, match="delay"):
        poll(r, 5, value)
    assert len(calls(key)) == 1


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"max_attempts": 0}, ValueError, "max_attempts"),
        ({"max_attempts": 1.5}, TypeError, "max_attempts"),
        ({"backoff": 0.5}, ValueError, "backoff"),
        ({"max_delay": -1}, ValueError, "max_delay"),
        ({"jitter": 2}, ValueError, "jitter"),
        ({"retry_after": 1}, TypeError, "retry_after"),
        ({"raise_on_timeout": "yes"}, TypeError, "raise_on_timeout"),
        ({"until": "state"}, TypeError, "until"),
        ({"on_attempt": 3}, TypeError, "on_attempt"),
        ({"clock": object()}, TypeError, "clock"),
    ],
)
def test_extras_are_validated_before_sending(client, key, calls, kwargs, error, name):
    with pytest.raises(error, match=name):
        client.get(f"/job/{key}", timeout=5, delay=1, **kwargs)
    assert calls(key) == []


def test_path_must_be_a_string(client):
    with pytest.raises(TypeError, match="path must be a str"):
        client.get(b"/job")  # type: ignore[arg-type]


def test_method_must_be_a_string(client):
    with pytest.raises(TypeError, match="method"):
        client.request(None, "/job")  # type: ignore[arg-type]


def test_unknown_adapter():
    with pytest.raises(ValueError, match="adapter must be 'requests' or 'httpx'"):
        Requests("http://127.0.0.1:1", adapter="aiohttp")  # type: ignore[call-overload]


@pytest.mark.parametrize("base", [3, "ftp://x", "/relative", "http://h/#frag"])
def test_bad_base_url(base):
    with pytest.raises((TypeError, ValueError), match="base_url"):
        Requests(base, adapter="requests")


@pytest.mark.parametrize(("value", "error"), [(0, ValueError), ("5", TypeError), (-2, ValueError)])
def test_constructor_network_timeout(value, error):
    with pytest.raises(error, match="timeout"):
        Session("http://127.0.0.1:1", adapter="requests", timeout=value)


def test_unknown_requests_client_option():
    with pytest.raises(TypeError, match="unknown client option 'base'"):
        Requests("http://127.0.0.1:1", adapter="requests", base="x")


def test_transport_must_match_the_adapter():
    import httpx
    import requests.adapters

    with pytest.raises(TypeError, match="transport"):
        Requests("http://h", adapter="requests", transport=httpx.MockTransport(lambda r: None))
    with pytest.raises(TypeError, match="transport"):
        Requests("http://h", adapter="httpx", transport=requests.adapters.HTTPAdapter())


def test_poll_rejects_non_wrappers():
    with pytest.raises(TypeError, match="response must be a resq Response"):
        poll("nope", 5, 1)  # type: ignore[call-overload]


def test_pollers_check_the_wrapper_kind(client, key):
    r = client.get(f"/job/{key}")
    with pytest.raises(TypeError, match="AsyncResponse"):
        AsyncPoller(r, 5, 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="delay"):
        Poller(r, 5, "1")  # type: ignore[arg-type]


def test_use_clock_checks_the_clock():
    with pytest.raises(TypeError, match="clock"), use_clock(42):  # type: ignore[arg-type]
        pass


def test_virtual_clock_rejects_negative_time():
    with pytest.raises(ValueError, match="seconds"):
        VirtualClock().sleep(-1)
