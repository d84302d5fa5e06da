"""The speed-ups (remembered attribute sets, cookie scan, one-pass htmx check) keep every rule."""

from __future__ import annotations

import httpx
import pytest
from fastapi import Request
from hedron_support import SECRET

from hedron import ComponentRef, Hedron, Page, Text, TrustedURL
from hedron._middleware import HedronMiddleware
from hedron._sessions import read_cookies
from hedron.csrf import csrf_token
from hedron_core._html import element
from hedron_core.security import csrf_key, csrf_token_for, valid_token_format


def test_remembered_plain_url_does_not_let_a_trusted_one_through_and_back() -> None:
    # A TrustedURL may be absolute; the same text as a plain str must still be refused,
    # whichever of the two was rendered first.
    assert element("a", {"href": TrustedURL("https://example.org/")}) == (
        '<a href="https://example.org/"></a>'
    )
    with pytest.raises(ValueError, match="root-relative"):
        element("a", {"href": "https://example.org/"})
    assert element("a", {"href": "/ok"}) == '<a href="/ok"></a>'
    assert element("a", {"href": TrustedURL("/ok")}) == '<a href="/ok"></a>'
    with pytest.raises(ValueError, match="forbidden URL scheme"):
        element("a", {"href": TrustedURL("javascript:alert(1)")})


def test_remembered_boolean_attribute_does_not_accept_an_int() -> None:
    assert element("input", {"disabled": True}) == "<input disabled>"
    with pytest.raises(TypeError, match="must be str or bool"):
        element("input", {"disabled": 1})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="must be str or bool"):
        element("input", {"disabled": 0})  # type: ignore[dict-item]


def test_unhashable_value_gets_the_clear_error() -> None:
    with pytest.raises(TypeError, match=r"<p> title: attribute values must be str or bool"):
        element("p", {"title": ["x"]})  # type: ignore[dict-item]


def test_refused_names_stay_refused_after_allowed_sets_were_remembered() -> None:
    for _ in range(2):
        assert element("p", {"class": "a", "id": None}) == '<p class="a"></p>'
        with pytest.raises(ValueError, match="event-handler"):
            element("p", {"class": "a", "onclick": "x()"})
        with pytest.raises(ValueError, match="not allowed"):
            element("p", {"class": "a", "style": "color:red"})


def test_repeated_sets_render_identically_and_escape() -> None:
    attrs = {"class": 'a"b', "title": "<x>&", "hx-get": "/s?a=1&b=2"}
    first = element("div", attrs, ["<t>"])
    assert first == element("div", dict(attrs), ["<t>"])
    assert first == (
        '<div class="a&quot;b" title="&lt;x&gt;&amp;" hx-get="/s?a=1&amp;b=2">&lt;t&gt;</div>'
    )


def test_read_cookies_skips_headers_without_the_marker_and_keeps_the_first_value() -> None:
    headers = [
        (b"cookie", b"other=1; theme=dark"),
        (b"cookie", b"a=1; hedron_csrf=first; hedron_csrf=second"),
        (b"cookie", b"hedron_session=s"),
    ]
    names = ("hedron_csrf", "hedron_session")
    assert read_cookies(headers, names, marker=b"hedron_") == {
        "hedron_csrf": "first",
        "hedron_session": "s",
    }
    assert read_cookies(headers, names) == read_cookies(headers, names, marker=b"hedron_")
    assert read_cookies([(b"cookie", b"other=1")], names, marker=b"hedron_") == {}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_page_mode_and_csrf_cookie_with_unrelated_cookies() -> None:
    app = Hedron(title="T", session_secret=SECRET)

    @app.page("/")
    async def home() -> Page:
        return Page(Text("hi"), title="Home")

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        token = "t" * 43
        cookies = {"Cookie": f"theme=dark; hedron_csrf={token}"}
        full = await client.get("/", headers=cookies)
        assert full.text.startswith("<!DOCTYPE html>")
        assert csrf_token_for(token, csrf_key(SECRET)) in full.text
        assert "set-cookie" not in full.headers  # the well-formed cookie was read
        assert full.headers["vary"] == "HX-Request"
        assert full.headers["cache-control"] == "no-store"
        htmx = {**cookies, "HX-Request": "true"}
        part = await client.get("/", headers=htmx)
        assert part.text.startswith('<main class="h-page"')
        # Only the first value of a repeated header counts (as with Starlette's Headers).
        boosted = await client.get("/", headers=[*htmx.items(), ("HX-Boosted", "true")])
        assert boosted.text.startswith("<!DOCTYPE html>")
        first_wins = [("HX-Request", "false"), ("HX-Request", "true"), *cookies.items()]
        assert (await client.get("/", headers=first_wins)).text.startswith("<!DOCTYPE html>")
        unrelated = await client.get("/", headers={"Cookie": "theme=dark"})
        issued = unrelated.headers.get_list("set-cookie")
        assert len(issued) == 1
        assert issued[0].startswith("hedron_csrf=")


@pytest.mark.anyio
async def test_remembered_csrf_tokens_stay_right_and_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The middleware remembers each well-formed cookie's token (one HMAC per client): the
    # token stays the HMAC of that very cookie, a malformed cookie is never remembered
    # (always replaced), and the memory is bounded.
    monkeypatch.setattr("hedron._middleware._TOKEN_CACHE_SIZE", 3)
    app = Hedron(title="T", session_secret=SECRET)

    @app.get("/token")
    async def token_of(request: Request) -> dict[str, object]:
        return {"token": csrf_token(request)}

    key = csrf_key(SECRET)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        for _ in range(2):  # the second pass reads what the first one remembered
            for letter in "abcde":
                value = letter * 43
                answer = await client.get("/token", headers={"Cookie": f"hedron_csrf={value}"})
                assert answer.json()["token"] == csrf_token_for(value, key)
                assert "set-cookie" not in answer.headers
        for _ in range(2):
            bad = await client.get("/token", headers={"Cookie": "hedron_csrf=short"})
            issued = bad.headers.get_list("set-cookie")
            assert len(issued) == 1
            assert not issued[0].startswith("hedron_csrf=short")
            nonce = issued[0].split(";")[0].removeprefix("hedron_csrf=")
            assert bad.json()["token"] == csrf_token_for(nonce, key)
    middleware = app.middleware_stack
    assert isinstance(middleware, HedronMiddleware)
    assert 0 < len(middleware._tokens) <= 3
    assert "short" not in middleware._tokens


def test_anchored_patterns_refuse_a_trailing_newline() -> None:
    # "$" would accept "abc\n"; ids, names, tags, selectors and tokens use "\Z".
    with pytest.raises(ValueError, match=r"Text\.id"):
        Text("x", id="abc\n")
    with pytest.raises(ValueError, match="invalid attribute name"):
        element("p", {"class\n": "x"})
    with pytest.raises(ValueError, match="not allowed"):
        element("p\n")
    with pytest.raises(ValueError, match=r"ComponentRef\.target"):
        ComponentRef("r", "/r", target="#a\n")
    assert not valid_token_format("a" * 40 + "\n")
    assert valid_token_format("a" * 40)


def test_remembered_ids_and_urls_do_not_relax_the_checks() -> None:
    assert Text("x", id="fine-id").id == "fine-id"
    assert ComponentRef("fine-id", "/fine").path == "/fine"
    for _ in range(2):
        with pytest.raises(TypeError, match=r"Text\.id must be a str"):
            Text("x", id=["fine-id"])  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"ComponentRef\.path must be a str URL"):
            ComponentRef("r", ["/fine"])  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="root-relative"):
            ComponentRef("r", "//evil.example/fine")
    # A TrustedURL is checked on its own rule every time, never from the plain-str memo.
    with pytest.raises(ValueError, match="forbidden URL scheme"):
        ComponentRef("r", TrustedURL("javascript:alert(1)"))
