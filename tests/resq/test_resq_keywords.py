"""A verb's engine keywords (issue 29): an unknown one is refused by the verb itself, naming the
verb and the keyword, before an engine is called; ``params`` and ``headers`` of a type neither
engine sends are refused naming them; every other value is sent as given. Against the resq
test app on 127.0.0.1."""

from __future__ import annotations

import uuid
from typing import Any

import anyio
import httpx
import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from resq import Requests
from tests._support.bad_values import JUNK

#: Words of an engine's own messages (its function names, its internal failures).
ENGINE_WORDS = ("Session.request", "AsyncClient.request", "Cannot mix", "Header part", "Invalid")
SOME = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
_NAMES = st.one_of(st.text(max_size=4), st.integers(), st.none(), st.binary(max_size=3))
PAIRS = st.one_of(
    JUNK,
    st.dictionaries(_NAMES, st.one_of(JUNK, st.lists(JUNK, max_size=2)), max_size=3),
    st.lists(st.tuples(_NAMES, JUNK), max_size=3),
    st.lists(JUNK, max_size=2),
)


@pytest.fixture
def engines_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if either engine's request function is called."""

    def called(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the engine was called")

    monkeypatch.setattr(requests.Session, "request", called)
    monkeypatch.setattr(httpx.AsyncClient, "request", called)


@pytest.mark.parametrize(
    ("keyword", "hint"),
    [("jsn", "json"), ("follow_redirects", "allow_redirects"), ("max_attemps", "max_attempts")],
)
def test_an_unknown_keyword_is_refused_by_the_verb_itself(
    base_url: str, engines_untouched: None, keyword: str, hint: str
) -> None:
    with Requests(base_url, adapter="requests") as client, pytest.raises(TypeError) as refused:
        client.get("/job/x", **{keyword: 1})
    message = str(refused.value)
    assert message.startswith(f"get(): unexpected keyword argument {keyword!r} for ")
    assert message.endswith(f"did you mean {hint}=?")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_httpx_verbs_refuse_it_too(
    base_url: str, engines_untouched: None, anyio_backend: str
) -> None:
    async with Requests(base_url, adapter="httpx") as client:
        with pytest.raises(TypeError, match=r"^post\(\): unexpected keyword argument 'verify'"):
            await client.post("/job/x", verify=False)
        with pytest.raises(TypeError, match=r"^put\(\): unexpected keyword argument 'stream'"):
            await client.put("/job/x", stream=True)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"params": 5}, r"get\(\): params must be a dict or a list of \(name, value\) pairs"),
        ({"params": {"a": object()}}, r"get\(\): params\['a'\] must be a str, a number or"),
        ({"params": [("a", 1, 2)]}, r"get\(\): params given as a list must hold \(name, value\)"),
        ({"params": {1: "a"}}, r"get\(\): params names must be str"),
        ({"headers": "x"}, r"get\(\): headers must be a dict, got str"),
        ({"headers": {"a": 1}}, r"get\(\): headers\['a'\] must be a str, got int"),
        ({"headers": {"a": "x\r\ny: 1"}}, r"get\(\): headers\['a'\] must be ASCII text without"),
        ({"headers": {"a\n": "x"}}, r"get\(\): headers name 'a\\n' is not a header name"),
        ({"headers": [("a", "b")]}, r"get\(\): headers must be a dict, got list"),
        ({"params": {"a": b"x"}}, r"get\(\): params\['a'\] must be a str, a number or"),
    ],
)
def test_params_and_headers_of_a_wrong_shape_are_refused_naming_them(
    base_url: str, engines_untouched: None, kwargs: dict[str, Any], message: str
) -> None:
    with (
        Requests(base_url, adapter="requests") as client,
        pytest.raises((TypeError, ValueError), match=message),
    ):
        client.get("/job/x", **kwargs)


def _refused_or_sent(send: Any, name: str, value: Any, calls: Any) -> None:
    key = uuid.uuid4().hex  # one per example: what reached the server for this value
    try:
        status = send(key, value)
    except (TypeError, ValueError) as exc:
        message = str(exc)
    else:
        # the app's answer: 422 when it refused an `n` it got, 503 when a whole number `n`
        # asked it to fail its first calls (hypothesis sent params [("n", 1)])
        assert status in (200, 422, 503), (name, value)
        return
    assert message.startswith(f"get(): {name}"), message
    assert not any(word in message for word in ENGINE_WORDS), message
    assert calls(key) == []


@SOME
@given(value=PAIRS)
@pytest.mark.parametrize("name", ["params", "headers"])
def test_any_params_or_headers_are_refused_naming_them_or_sent(
    base_url: str, calls: Any, name: str, value: Any
) -> None:
    def send(key: str, value: Any) -> int:
        with Requests(base_url, adapter="requests") as client:
            return client.get(f"/job/{key}", **{name: value}).status_code

    _refused_or_sent(send, name, value, calls)


@SOME
@given(value=PAIRS)
@pytest.mark.parametrize("name", ["params", "headers"])
def test_the_httpx_engine_too(base_url: str, calls: Any, name: str, value: Any) -> None:
    async def asend(key: str, value: Any) -> int:
        async with Requests(base_url, adapter="httpx") as client:
            return (await client.get(f"/job/{key}", **{name: value})).status_code

    _refused_or_sent(lambda k, v: anyio.run(asend, k, v), name, value, calls)


@pytest.mark.parametrize("adapter", ["requests", "httpx"])
def test_the_clients_own_params_and_headers_are_checked_too(adapter: str) -> None:
    with pytest.raises(TypeError, match=r"^Requests\(\): headers\['a'\] must be a str"):
        Requests("http://127.0.0.1:1", adapter, headers={"a": 1})
    with pytest.raises(TypeError, match=r"^Requests\(\): params must be a dict or a list"):
        Requests("http://127.0.0.1:1", adapter, params=5)
