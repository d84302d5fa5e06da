"""What probing hedron under bad input found (issue 19), one test per finding.

Poll intervals past the browser's timer limit, weak secrets that passed strict mode, a CSRF
token not tied to anything the attacker cannot plant, settings that built an app whose every
page answered 500, NaN in ``hx-vals``, numbers rendered unescaped, an upper-case form
``Content-Type``.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import Request
from fastapi.responses import JSONResponse
from hedron_support import SECRET

from hedron import Alert, ComponentRef, Hedron, Page, Poll, Table, Text, render
from hedron import Form as HForm
from hedron.csrf import csrf_token
from hedron_core import htmx
from hedron_core.jobs import InMemoryJobBackend
from hedron_core.security import HedronSecurityWarning, check_session_secret

# --- 3. poll intervals have an upper bound ----------------------------------------------------


def test_the_longest_poll_interval_is_the_browsers_longest_timer() -> None:
    assert htmx.MAX_INTERVAL_MS == 2**31 - 1
    ref = ComponentRef(logical_id="s", path="/s")
    assert 'hx-trigger="every 2147483647ms"' in render(Poll(ref=ref, interval_ms=2**31 - 1))


@pytest.mark.parametrize("interval", [2**31, 10**30])
def test_a_poll_interval_past_the_timer_limit_is_refused(interval: int) -> None:
    ref = ComponentRef(logical_id="s", path="/s")
    with pytest.raises(ValueError, match=r"Poll\.interval_ms must be at most 2147483647"):
        Poll(ref=ref, interval_ms=interval)


# --- 4. weak secrets are refused in strict mode and production ---------------------------------

WEAK = [
    "a" * 32,
    "0" * 32,
    "changeme-changeme-changeme-12345",
    "your-secret-key-here-1234567890ab",
    "0123456789abcdef0123456789abcdef",
    "abcdefghijklmnopqrstuvwxyz012345",
    "k" * 40,
    "q7Zp" * 10,
]


@pytest.mark.parametrize("secret", WEAK)
def test_low_entropy_and_placeholder_secrets_are_refused(
    monkeypatch: pytest.MonkeyPatch, secret: str
) -> None:
    monkeypatch.delenv("HEDRON_ENV", raising=False)
    with pytest.raises(ValueError, match=r'session_secret is .*refused because security="strict"'):
        Hedron(session_secret=secret, security="strict")
    monkeypatch.setenv("HEDRON_ENV", "production")
    with pytest.raises(ValueError, match=r"session_secret .*HEDRON_ENV=production"):
        Hedron(session_secret=secret)
    monkeypatch.delenv("HEDRON_ENV")
    with pytest.warns(HedronSecurityWarning, match="not random enough"):
        Hedron(session_secret=secret)


@pytest.mark.parametrize(
    "make",
    [
        lambda: __import__("secrets").token_urlsafe(24),  # 32 characters
        lambda: __import__("secrets").token_urlsafe(48),
        lambda: __import__("secrets").token_hex(16),  # 32 hex digits: 128 bits
        lambda: __import__("secrets").token_hex(32),
    ],
)
def test_random_secrets_of_the_usual_generators_always_pass(make: Any) -> None:
    for _ in range(300):  # 300 fresh secrets per generator: no false alarm
        secret = make()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert check_session_secret(secret, profile="strict", environ={}) == secret


# --- 6. the CSRF token is bound to a cookie the attacker cannot forge a token for ------------


def _csrf_app(**kwargs: Any) -> Hedron:
    kwargs.setdefault("session_secret", SECRET)
    app = Hedron(title="CSRF", **kwargs)

    @app.page("/")
    def home() -> Page:
        return Page(HForm(Text("f"), action="/act"), title="Home")

    @app.action("/act")
    async def act() -> Alert:
        return Alert("done", tone="success")

    @app.get("/token")
    async def token(request: Request) -> JSONResponse:
        return JSONResponse({"token": csrf_token(request)})

    return app


@pytest.fixture
async def csrf_client() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=_csrf_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


@pytest.mark.anyio
async def test_a_planted_cookie_with_the_same_value_in_the_header_is_refused(
    csrf_client: httpx.AsyncClient,
) -> None:
    planted = "A" * 43  # well-formed, chosen by the attacker
    response = await csrf_client.post(
        "/act", headers={"Cookie": f"hedron_csrf={planted}", "X-CSRF-Token": planted}
    )
    assert response.status_code == 403
    form = await csrf_client.post(
        "/act",
        headers={"Cookie": f"hedron_csrf={planted}"},
        data={"csrf_token": planted},
    )
    assert form.status_code == 403


@pytest.mark.anyio
async def test_the_issued_token_is_not_the_cookie_and_is_the_one_that_passes(
    csrf_client: httpx.AsyncClient,
) -> None:
    token = (await csrf_client.get("/token")).json()["token"]
    cookie = csrf_client.cookies["hedron_csrf"]
    assert token != cookie
    page = await csrf_client.get("/")
    assert f'name="csrf_token" value="{token}"' in page.text
    assert (await csrf_client.post("/act", headers={"X-CSRF-Token": cookie})).status_code == 403
    assert (await csrf_client.post("/act", headers={"X-CSRF-Token": token})).status_code == 200


@pytest.mark.anyio
async def test_another_apps_token_for_the_same_cookie_is_refused() -> None:
    """The token is an HMAC under the app's secret: one app's pair does not open another."""
    other = httpx.ASGITransport(app=_csrf_app(session_secret=SECRET[::-1]))
    ours = httpx.ASGITransport(app=_csrf_app())
    async with (
        httpx.AsyncClient(transport=other, base_url="http://test") as theirs,
        httpx.AsyncClient(transport=ours, base_url="http://test") as client,
    ):
        their_token = (await theirs.get("/token")).json()["token"]
        cookie = theirs.cookies["hedron_csrf"]
        planted = {"Cookie": f"hedron_csrf={cookie}", "X-CSRF-Token": their_token}
        assert (await client.post("/act", headers=planted)).status_code == 403


@pytest.mark.anyio
async def test_strict_profile_uses_a_host_only_cookie() -> None:
    transport = httpx.ASGITransport(app=_csrf_app(security="strict"))
    async with httpx.AsyncClient(transport=transport, base_url="https://test") as client:
        first = await client.get("/token")
        issued = [c for c in first.headers.get_list("set-cookie") if "csrf" in c]
        assert len(issued) == 1
        assert issued[0].startswith("__Host-hedron_csrf=")
        attrs = [a.strip().lower() for a in issued[0].split(";")[1:]]
        assert "secure" in attrs
        assert "path=/" in attrs
        assert not any(a.startswith("domain") for a in attrs)
        token = first.json()["token"]
        ok = await client.post("/act", headers={"X-CSRF-Token": token})
        assert ok.status_code == 200
        # A cookie without the prefix (which any sibling host could plant) does not count.
        nonce = client.cookies["__Host-hedron_csrf"]
        client.cookies.clear()
        plain = await client.post(
            "/act", headers={"Cookie": f"hedron_csrf={nonce}", "X-CSRF-Token": token}
        )
        assert plain.status_code == 403


# --- 7. Hedron() refuses settings that would break every page ------------------------------------


@pytest.mark.parametrize(
    "prefix", ["//cdn.evil.example", "/a b", "/a\\b", "/a//b", "/./x", "/x/..", "/a?b", "/a#b"]
)
def test_a_static_prefix_that_is_not_a_plain_path_is_refused(prefix: str) -> None:
    with pytest.raises(ValueError, match=r"Hedron\.static_prefix"):
        Hedron(session_secret=SECRET, static_prefix=prefix)


@pytest.mark.anyio
async def test_an_accepted_static_prefix_serves_pages() -> None:
    app = Hedron(session_secret=SECRET, static_prefix="/assets/v1.2_x~y")

    @app.page("/")
    def home() -> Page:
        return Page(Text("hi"))

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        page = await client.get("/")
        assert page.status_code == 200
        assert 'href="/assets/v1.2_x~y/hedron.css"' in page.text


def test_a_backend_class_instead_of_an_instance_is_refused() -> None:
    with pytest.raises(TypeError, match=r"Hedron\.job_backend .*InMemoryJobBackend\(\)"):
        Hedron(session_secret=SECRET, job_backend=InMemoryJobBackend)


# --- 9. smaller findings -----------------------------------------------------------------------


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_component_ref_vals_refuse_non_finite_numbers(bad: float) -> None:
    with pytest.raises(ValueError, match=r"ComponentRef\.vals\['x'\] must be a finite number"):
        ComponentRef(logical_id="r", path="/r", vals={"x": bad})


def test_component_ref_vals_render_as_valid_json() -> None:
    ref = ComponentRef(logical_id="r", path="/r", vals={"x": 1.5, "n": 10**30, "s": "a"})
    vals = ref.hx_attrs()["hx-vals"]
    assert vals is not None
    assert json.loads(vals) == {"n": 10**30, "s": "a", "x": 1.5}


class Sneaky(int):
    def __str__(self) -> str:
        return "<img src=x onerror=alert(1)>"

    __repr__ = __str__


class SneakyFloat(float):
    def __str__(self) -> str:
        return "<b>boom</b>"

    __repr__ = __str__


def test_table_numbers_render_as_their_value_not_their_str() -> None:
    html = render(Table(["n", "x"], [[Sneaky(7), SneakyFloat(2.5)]]))
    assert "<img" not in html
    assert "<b>" not in html
    assert "<td>7</td><td>2.5</td>" in html


@pytest.mark.anyio
@pytest.mark.parametrize(
    "content_type",
    [
        "APPLICATION/X-WWW-FORM-URLENCODED",
        "Application/x-www-form-urlencoded; charset=UTF-8",
    ],
)
async def test_a_form_token_counts_whatever_the_case_of_the_content_type(
    csrf_client: httpx.AsyncClient, content_type: str
) -> None:
    token = (await csrf_client.get("/token")).json()["token"]
    response = await csrf_client.post(
        "/act", content=f"csrf_token={token}", headers={"Content-Type": content_type}
    )
    assert response.status_code == 200, response.text
    assert re.search(r"done", response.text)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
