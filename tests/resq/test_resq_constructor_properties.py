"""Every public resq constructor (and the verbs, which build a request) refuses a bad value
naming the parameter and sends nothing, or works with it: Requests, Session, the verbs'
arguments, Poller, AsyncPoller, VirtualClock and ASGIAdapter.

The requests go to an in-process ASGI app through resq's own transports, which counts what
it receives: a refused call must leave the count unchanged. A bad value that is accepted must
then work (one request sent and answered, polling finished). See
``tests/_support/bad_values.py`` for the values and the rule.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resq import Requests, Session
from resq.clock import VirtualClock
from resq.http import AsyncPoller, Poller
from resq.transports import ASGIAdapter
from tests._support.bad_values import JUNK, NOT_CALLABLE, refused_or_works, sweep

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RECEIVED: list[str] = []


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers 200 ``{"ok": true}`` to anything and records the path (and reads what any
    ASGI framework reads from the scope: the root path, the client address)."""
    if scope["type"] != "http":
        return
    host, port = scope["client"]
    assert isinstance(host, str)
    assert isinstance(port, int)
    RECEIVED.append(scope["root_path"] + scope["path"])
    await send({"type": "http.response.start", "status": 200, "headers": [(b"x-ok", b"1")]})
    await send({"type": "http.response.body", "body": b'{"ok": true}'})


def _sent(call: Callable[[], Any]) -> Any:
    """Run ``call``; if it is refused, nothing may have reached the app."""
    before = len(RECEIVED)
    try:
        return call()
    except (TypeError, ValueError):
        assert len(RECEIVED) == before, "a refused call sent a request"
        raise


# --- clients ------------------------------------------------------------------------------

CLIENT_PARAMS = ("base_url", "adapter", "timeout", "transport")


def _client(kind: type[Requests[Any]], param: str, value: Any) -> Any:
    kwargs: dict[str, Any] = {"base_url": "http://app", "timeout": 5, param: value}
    if param != "transport" or value is None:  # (no transport: the network, never used here)
        adapter = kwargs.get("adapter", "requests")
        kwargs["transport"] = (
            httpx.ASGITransport(app=app) if adapter == "httpx" else ASGIAdapter(app)
        )
    base_url = kwargs.pop("base_url")
    try:
        return _sent(lambda: kind(base_url, **kwargs))
    except (TypeError, ValueError):
        transport = kwargs.get("transport")
        if isinstance(transport, ASGIAdapter):
            transport.close()
        raise


def _client_works(client: Any) -> None:
    before = len(RECEIVED)
    if client.is_async:

        async def go() -> int:
            async with client:
                return (await client.get("/ping")).status_code

        assert asyncio.run(go()) == 200
    else:
        with client:
            assert client.get("/ping").status_code == 200
    assert len(RECEIVED) == before + 1


# --- the verbs -----------------------------------------------------------------------------

VERB_PARAMS = (
    *("method", "path", "timeout", "delay", "until", "max_attempts", "backoff", "max_delay"),
    *("jitter", "retry_after", "raise_on_timeout", "on_attempt", "clock"),
)
VERB_CALLABLES = frozenset({"until", "on_attempt", "clock"})


class Verb:
    """``client.request(...)`` with one argument replaced, on a client opened per test."""

    def __init__(self) -> None:
        self.client = Requests("http://app", adapter="requests", transport=ASGIAdapter(app))

    def build(self, param: str, value: Any) -> Any:
        kwargs: dict[str, Any] = {"method": "GET", "path": "/job", "timeout": 5, "delay": 1}
        kwargs["clock"] = VirtualClock()  # an accepted delay never really waits
        kwargs[param] = value
        method, path = kwargs.pop("method"), kwargs.pop("path")
        before = len(RECEIVED)
        response = _sent(lambda: self.client.request(method, path, **kwargs))
        return response, before

    @staticmethod
    def works(made: tuple[Any, int]) -> None:
        response, before = made
        assert response.status_code == 200
        assert len(RECEIVED) == before + 1


@pytest.fixture(scope="module")
def verb() -> Any:
    made = Verb()
    yield made
    made.client.close()


# --- pollers -------------------------------------------------------------------------------

POLLER_PARAMS = (
    *("response", "timeout", "delay", "until", "max_attempts", "backoff", "max_delay"),
    *("jitter", "retry_after", "raise_on_timeout", "on_attempt", "clock", "started_at"),
)
POLLER_CALLABLES = frozenset({"until", "on_attempt", "clock"})


def _poller_kwargs(response: Any, param: str, value: Any) -> tuple[Any, dict[str, Any]]:
    kwargs: dict[str, Any] = {"response": response, "timeout": 5, "delay": 1}
    kwargs["clock"] = VirtualClock()
    kwargs[param] = value
    return kwargs.pop("response"), kwargs


def _poller_build(verb: Verb, param: str, value: Any) -> tuple[Poller, int]:
    response = verb.client.get("/poll")
    target, kwargs = _poller_kwargs(response, param, value)
    before = len(RECEIVED)
    return _sent(lambda: Poller(target, **kwargs)), before


def _poller_works(made: tuple[Poller, int]) -> None:
    poller, before = made
    assert poller.run().status_code == 200
    assert len(RECEIVED) == before  # the response was good: no reload


def _async_poller_check(param: str, value: Any) -> bool:
    async def go() -> bool:
        async with Requests(
            "http://app", adapter="httpx", transport=httpx.ASGITransport(app=app)
        ) as c:
            response = await c.get("/poll")
            target, kwargs = _poller_kwargs(response, param, value)
            before = len(RECEIVED)

            def build() -> AsyncPoller:
                return _sent(lambda: AsyncPoller(target, **kwargs))

            accepted = refused_or_works(build, lambda p: None, param, value)
            if accepted:
                finished = await build().run()
                assert finished.status_code == 200
                assert len(RECEIVED) == before
            return accepted

    return asyncio.run(go())


# --- the properties ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [Requests, Session], ids=["Requests", "Session"])
@FAST
@given(param=st.sampled_from(CLIENT_PARAMS), value=JUNK)
def test_a_client_refuses_a_bad_argument_naming_it_or_works(
    kind: Any, param: str, value: Any
) -> None:
    refused_or_works(lambda: _client(kind, param, value), _client_works, param, value)


@pytest.mark.parametrize("kind", [Requests, Session], ids=["Requests", "Session"])
def test_a_client_refuses_every_tricky_argument_naming_it_or_works(kind: Any) -> None:
    sweep(lambda p, v: _client(kind, p, v), _client_works, CLIENT_PARAMS)


@FAST
@given(data=st.data())
def test_a_verb_refuses_a_bad_argument_naming_it_sending_nothing_or_works(
    verb: Verb, data: Any
) -> None:
    param = data.draw(st.sampled_from(VERB_PARAMS), label="param")
    value = data.draw(NOT_CALLABLE if param in VERB_CALLABLES else JUNK, label="value")
    refused_or_works(lambda: verb.build(param, value), verb.works, param, value)


def test_a_verb_refuses_every_tricky_argument_naming_it_sending_nothing_or_works(
    verb: Verb,
) -> None:
    sweep(verb.build, verb.works, VERB_PARAMS, callables=VERB_CALLABLES)


@FAST
@given(data=st.data())
def test_a_poller_refuses_a_bad_argument_naming_it_or_works(verb: Verb, data: Any) -> None:
    param = data.draw(st.sampled_from(POLLER_PARAMS), label="param")
    value = data.draw(NOT_CALLABLE if param in POLLER_CALLABLES else JUNK, label="value")
    refused_or_works(lambda: _poller_build(verb, param, value), _poller_works, param, value)


def test_a_poller_refuses_every_tricky_argument_naming_it_or_works(verb: Verb) -> None:
    sweep(
        lambda p, v: _poller_build(verb, p, v),
        _poller_works,
        POLLER_PARAMS,
        callables=POLLER_CALLABLES,
    )


@FAST
@given(data=st.data())
def test_an_async_poller_refuses_a_bad_argument_naming_it_or_works(data: Any) -> None:
    param = data.draw(st.sampled_from(POLLER_PARAMS), label="param")
    value = data.draw(NOT_CALLABLE if param in POLLER_CALLABLES else JUNK, label="value")
    _async_poller_check(param, value)


@FAST
@given(value=JUNK)
def test_the_virtual_clock_refuses_a_bad_start_naming_it_or_works(value: Any) -> None:
    refused_or_works(lambda: VirtualClock(value), lambda c: c.sleep(1.0), "start", value)


def _adapter(param: str, value: Any) -> ASGIAdapter:
    kwargs: dict[str, Any] = {"app": app, param: value}
    target = kwargs.pop("app")
    return ASGIAdapter(target, **kwargs)


def _adapter_works(adapter: ASGIAdapter) -> None:
    with Requests("http://app", transport=adapter) as client:
        assert client.get("/adapter").status_code == 200


def test_the_asgi_adapter_refuses_every_tricky_argument_naming_it_or_works() -> None:
    sweep(_adapter, _adapter_works, ("app", "root_path", "client"), callables=frozenset({"app"}))


@FAST
@given(param=st.sampled_from(("app", "root_path", "client")), value=NOT_CALLABLE)
def test_the_asgi_adapter_refuses_a_bad_argument_naming_it_or_works(param: str, value: Any) -> None:
    refused_or_works(lambda: _adapter(param, value), _adapter_works, param, value)
