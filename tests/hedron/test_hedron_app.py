"""The Hedron app in-process (httpx.ASGITransport): pages, fragments, headers, CSRF, secrets."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import Depends, Form, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from hedron_support import SECRET

from hedron import Alert, Hedron, Page, Status, Text, fragment
from hedron import Form as HForm
from hedron.csrf import csrf_protect, csrf_token
from hedron_core.security import HedronSecurityWarning, csrf_key, csrf_token_for

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_app(**kwargs: Any) -> Hedron:
    kwargs.setdefault("session_secret", SECRET)
    app = Hedron(title="Test app", **kwargs)

    @app.page("/")
    def home(request: Request) -> Page:
        request.session["visits"] = request.session.get("visits", 0) + 1
        return Page(
            Text(f"visit {request.session['visits']}"),
            HForm(Text("f"), action="/act"),
            title="Home",
        )

    @app.page("/untitled")
    async def untitled() -> Text:
        return Text("bare")

    @app.page("/submit", methods=["POST"])
    async def submit() -> Page:
        return Page(Text("posted"))

    @app.page("/raw")
    async def raw() -> PlainTextResponse:
        return PlainTextResponse("raw")

    @app.page("/wrong")
    async def wrong() -> Any:
        return {"not": "a component"}

    @app.action("/act")
    async def act(name: str = Form("anon")) -> Alert:
        return Alert(f"hello {name}", tone="success")

    @app.get("/plain")
    async def plain() -> dict[str, bool]:
        return {"ok": True}

    @app.post("/plain-open")
    async def plain_open() -> dict[str, bool]:
        return {"ok": True}

    @app.post("/plain-protected", dependencies=[Depends(csrf_protect)])
    async def plain_protected() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/token")
    async def token(request: Request) -> JSONResponse:
        return JSONResponse({"token": csrf_token(request)})

    @app.get("/done")
    async def done() -> Any:
        return fragment(Status("Done", tone="success"), status_code=286, headers={"X-A": "1"})

    return app


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=make_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


async def test_full_document_for_normal_request(client: httpx.AsyncClient) -> None:
    r = await client.get("/")
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    assert "HX-Request" in r.headers["vary"]
    assert r.headers["cache-control"] == "no-store"
    assert r.text.startswith("<!DOCTYPE html>")
    assert "<title>Home</title>" in r.text
    assert '<p class="h-text">visit 1</p>' in r.text


async def test_fragment_for_htmx_request(client: httpx.AsyncClient) -> None:
    r = await client.get("/", headers={"HX-Request": "true"})
    assert "HX-Request" in r.headers["vary"]
    assert r.text.startswith('<main class="h-page" id="hedron-main">')
    assert "<html" not in r.text
    assert "<head" not in r.text


@pytest.mark.parametrize("extra", ["HX-Boosted", "HX-History-Restore-Request"])
async def test_boost_and_history_restore_get_the_full_document(
    client: httpx.AsyncClient, extra: str
) -> None:
    r = await client.get("/", headers={"HX-Request": "true", extra: "true"})
    assert r.text.startswith("<!DOCTYPE html>")


async def test_non_page_component_is_wrapped_and_app_title_used(
    client: httpx.AsyncClient,
) -> None:
    r = await client.get("/untitled")
    assert "<title>Test app</title>" in r.text
    assert '<main class="h-page" id="hedron-main"><p class="h-text">bare</p></main>' in r.text


async def test_response_passes_through_and_bad_return_is_a_clear_error(
    client: httpx.AsyncClient,
) -> None:
    r = await client.get("/raw")
    assert r.text == "raw"
    assert r.headers["vary"] == "HX-Request"
    with pytest.raises(TypeError, match="wrong must return a hedron Component or a Response"):
        await client.get("/wrong")


async def test_session_persists_between_requests(client: httpx.AsyncClient) -> None:
    await client.get("/")
    r = await client.get("/")
    assert "visit 2" in r.text


async def test_security_headers_on_every_response(client: httpx.AsyncClient) -> None:
    responses = [
        await client.get("/"),
        await client.get("/plain"),
        await client.get("/missing"),
        await client.post("/act"),  # 403
        await client.get("/_hedron/static/hedron.css"),
    ]
    for r in responses:
        csp = r.headers["content-security-policy"]
        assert "default-src 'self'" in csp
        assert "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp
        assert "unsafe-eval" not in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["referrer-policy"] == "strict-origin-when-cross-origin"
        assert "strict-transport-security" not in r.headers
    assert [r.status_code for r in responses] == [200, 200, 404, 403, 200]


async def test_strict_profile_adds_hsts_and_secure_cookies() -> None:
    app = make_app(security="strict")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="https://test") as c:
        r = await c.get("/")
    assert r.headers["strict-transport-security"].startswith("max-age=")
    assert r.headers["cross-origin-opener-policy"] == "same-origin"
    cookies = r.headers.get_list("set-cookie")
    assert all("secure" in c.lower() for c in cookies), cookies


async def test_csrf_cookie_issued_once(client: httpx.AsyncClient) -> None:
    first = await client.get("/plain")
    assert any(c.startswith("hedron_csrf=") for c in first.headers.get_list("set-cookie"))
    second = await client.get("/plain")
    assert not any(c.startswith("hedron_csrf=") for c in second.headers.get_list("set-cookie"))
    token = (await client.get("/token")).json()["token"]
    assert token == csrf_token_for(client.cookies["hedron_csrf"], csrf_key(SECRET))


async def test_page_embeds_the_token_in_header_config_and_form(client: httpx.AsyncClient) -> None:
    r = await client.get("/")
    token = csrf_token_for(client.cookies["hedron_csrf"], csrf_key(SECRET))
    assert f"{{&quot;X-CSRF-Token&quot;:&quot;{token}&quot;}}" in r.text
    assert f'<input type="hidden" name="csrf_token" value="{token}">' in r.text


@pytest.mark.parametrize("path", ["/act", "/submit", "/plain-protected"])
async def test_csrf_enforced_on_unsafe_hedron_routes(client: httpx.AsyncClient, path: str) -> None:
    assert (await client.post(path)).status_code == 403  # no cookie yet
    token = (await client.get("/token")).json()["token"]  # receive the cookie and its token
    assert (await client.post(path)).status_code == 403  # cookie but no token
    assert (await client.post(path, headers={"X-CSRF-Token": "x" * 43})).status_code == 403
    ok_header = await client.post(path, headers={"X-CSRF-Token": token})
    assert ok_header.status_code == 200
    ok_field = await client.post(path, data={"csrf_token": token, "name": "Ada"})
    assert ok_field.status_code == 200
    if path == "/act":  # the form was still readable by the handler after the check
        assert ok_field.text == (
            '<div class="h-alert h-tone-success" role="status"><p>hello Ada</p></div>'
        )


async def test_header_must_match_the_cookie() -> None:
    token = csrf_token_for("A" * 43, csrf_key(SECRET))  # the token issued with cookie A...A
    cases = [(None, 403), ("B" * 43, 403), ("bad token!", 403), (token, 403), ("A" * 43, 200)]
    for cookie, status in cases:
        transport = httpx.ASGITransport(app=make_app())
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            if cookie is not None:
                c.cookies.set("hedron_csrf", cookie)
            r = await c.post("/act", headers={"X-CSRF-Token": token})
            assert r.status_code == status, cookie


async def test_plain_routes_stay_plain(client: httpx.AsyncClient) -> None:
    assert (await client.post("/plain-open")).json() == {"ok": True}
    assert (await client.get("/plain")).json() == {"ok": True}


async def test_fragment_with_286_and_headers(client: httpx.AsyncClient) -> None:
    r = await client.get("/done")
    assert r.status_code == 286
    assert r.headers["x-a"] == "1"
    assert r.text == (
        '<div class="h-status h-tone-success" role="status" aria-live="polite">Done</div>'
    )


async def test_static_files_served_with_etag(client: httpx.AsyncClient) -> None:
    r = await client.get("/_hedron/static/vendor/htmx.min.js")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/javascript")
    assert b"2.0.11" in r.content
    again = await client.get(
        "/_hedron/static/vendor/htmx.min.js", headers={"If-None-Match": r.headers["etag"]}
    )
    assert again.status_code == 304
    assert again.content == b""
    assert (await client.get("/_hedron/static/../pyproject.toml")).status_code == 404
    assert (await client.get("/_hedron/static/nope.js")).status_code == 404
    own = await client.get("/_hedron/static/hedron.js")
    assert own.status_code == 200
    assert own.headers["content-type"].startswith("text/javascript")
    assert b'"htmx:afterRequest"' in own.content


async def test_explorer_development_lists_every_component() -> None:
    from hedron_core.components import registry

    transport = httpx.ASGITransport(app=make_app(explorer="development"))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        r = await c.get("/_hedron/explorer")
    assert r.status_code == 200
    for info in registry():
        assert f'id="component-{info.name.lower()}"' in r.text
        assert f"<caption>{info.name} props</caption>" in r.text
    assert r.text.count('class="h-preview" hx-disable') == len(registry())


async def test_explorer_off_mounts_nothing(client: httpx.AsyncClient) -> None:
    assert (await client.get("/_hedron/explorer")).status_code == 404
    assert (await client.get("/docs")).status_code == 404  # no off-origin Swagger page
    paths = {getattr(r, "path", "") for r in make_app().routes}
    assert not any("explorer" in p for p in paths)


def test_job_backend_is_stored_and_checked() -> None:
    from hedron_core.jobs import InMemoryJobBackend

    backend = InMemoryJobBackend()
    assert make_app(job_backend=backend).job_backend is backend
    assert make_app().job_backend is None
    with pytest.raises(TypeError, match=r"must implement hedron_core\.jobs\.JobBackend"):
        make_app(job_backend=object())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"security": "lax"}, "Hedron.security must be one of"),
        ({"explorer": "on"}, "Hedron.explorer must be 'off' or 'development'"),
        ({"static_prefix": "static"}, "Hedron.static_prefix"),
    ],
)
def test_bad_app_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Hedron(session_secret=SECRET, **kwargs)


def test_placeholder_secret_warns_in_development(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HEDRON_ENV", raising=False)
    with pytest.warns(HedronSecurityWarning, match="session_secret is too short or a placeholder"):
        Hedron(session_secret="replace-in-production")
    with pytest.warns(HedronSecurityWarning, match="session_secret is missing"):
        Hedron()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Hedron(session_secret=SECRET)  # a strong secret is quiet


@pytest.mark.parametrize(
    "secret",
    [
        "Kx9_dEv-2QwZr8TmPa0LbN4yHc7JsUo1VfGe",  # random text that contains "dEv"
        "tEsT" + "q7Zp3Lm9Rw2Xk8Vb5Nc1Hd6Jf4Gs0Ty" * 2,
    ],
)
def test_random_secret_containing_a_placeholder_word_is_accepted(
    monkeypatch: pytest.MonkeyPatch, secret: str
) -> None:
    monkeypatch.setenv("HEDRON_ENV", "production")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Hedron(session_secret=secret, security="strict")


@pytest.mark.parametrize(
    "secret",
    [None, "", "replace-in-production", "short", "x" * 31, "change me: this is the dev secret"],
)
def test_weak_secret_refused_in_production_and_strict(
    monkeypatch: pytest.MonkeyPatch, secret: str | None
) -> None:
    monkeypatch.setenv("HEDRON_ENV", "production")
    with pytest.raises(ValueError, match="refused because HEDRON_ENV=production"):
        Hedron(session_secret=secret)
    monkeypatch.delenv("HEDRON_ENV")
    with pytest.raises(ValueError, match='refused because security="strict"'):
        Hedron(session_secret=secret, security="strict")


def test_fragment_rejects_bad_input() -> None:
    with pytest.raises(TypeError, match=r"fragment\(component=\.\.\.\)"):
        fragment("<p>")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="status_code"):
        fragment(Text("x"), status_code=700)
    with pytest.raises(TypeError, match="status_code"):
        fragment(Text("x"), status_code="286")  # type: ignore[arg-type]


async def test_job_backend_is_current_inside_requests() -> None:
    from hedron.jobs import current_job_backend
    from hedron_core.jobs import InMemoryJobBackend

    backend = InMemoryJobBackend()
    app = Hedron(title="Jobs", session_secret=SECRET, job_backend=backend)
    seen: list[object] = []

    @app.page("/")
    async def home() -> Page:
        seen.append(current_job_backend())
        return Page(Text("x"))

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        assert (await c.get("/")).status_code == 200
    assert seen == [backend]
    assert app.job_backend is backend


async def test_session_cookie_written_only_when_changed_and_cleared_when_emptied() -> None:
    app = Hedron(title="S", session_secret=SECRET)

    @app.get("/read")
    async def read(request: Request) -> dict[str, Any]:
        return dict(request.session)

    @app.get("/write")
    async def write(request: Request) -> dict[str, bool]:
        request.session["user"] = "ada"
        return {"ok": True}

    @app.get("/logout")
    async def logout(request: Request) -> dict[str, bool]:
        request.session.clear()
        return {"ok": True}

    def session_cookies(r: httpx.Response) -> list[str]:
        return [c for c in r.headers.get_list("set-cookie") if c.startswith("hedron_session=")]

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        r = await c.get("/read")
        assert r.json() == {}
        assert session_cookies(r) == []
        r = await c.get("/write")
        (cookie,) = session_cookies(r)
        assert "HttpOnly" in cookie
        assert "SameSite=Lax" in cookie
        assert "Cookie" in r.headers["vary"]
        r = await c.get("/read")
        assert r.json() == {"user": "ada"}
        assert session_cookies(r) == []  # unchanged: not re-sent
        r = await c.get("/logout")
        (cleared,) = session_cookies(r)
        assert "Expires=Thu, 01 Jan 1970" in cleared
        assert (await c.get("/read")).json() == {}
        c.cookies.set("hedron_session", "forged.value.here")
        assert (await c.get("/read")).json() == {}

    other = Hedron(title="S2", session_secret=SECRET[::-1])

    @other.get("/read")
    async def read_other(request: Request) -> dict[str, Any]:
        return dict(request.session)

    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        await c.get("/write")
        signed = c.cookies["hedron_session"]
    other_transport = httpx.ASGITransport(app=other)
    async with httpx.AsyncClient(transport=other_transport, base_url="http://test") as c:
        c.cookies.set("hedron_session", signed)
        assert (await c.get("/read")).json() == {}  # another key: signature refused


async def test_route_can_set_its_own_security_header() -> None:
    app = Hedron(title="H", session_secret=SECRET)

    @app.get("/framed")
    async def framed() -> PlainTextResponse:
        return PlainTextResponse("x", headers={"X-Frame-Options": "SAMEORIGIN"})

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        r = await c.get("/framed")
    assert r.headers.get_list("x-frame-options") == ["SAMEORIGIN"]
    assert len(r.headers.get_list("content-security-policy")) == 1


async def test_sync_handlers_run_inline_in_the_browser_runtime(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    import hedron._blocking

    app = Hedron(title="P", session_secret=SECRET)
    threads: list[int] = []

    @app.page("/")
    def home() -> Page:
        threads.append(threading.get_ident())
        return Page(Text("x"))

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        await c.get("/")  # CPython: a worker thread, as FastAPI does for `def` endpoints
        monkeypatch.setattr(hedron._blocking, "_IN_BROWSER", True)
        await c.get("/")  # Pyodide has no threads: called on the event loop's thread
    assert threads[0] != threading.get_ident()
    assert threads[1] == threading.get_ident()


async def test_unhandled_error_500_still_carries_the_security_headers() -> None:
    app = Hedron(title="E", session_secret=SECRET)

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("boom")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        answer = await client.get("/boom")
    assert answer.status_code == 500
    assert "default-src" in answer.headers["content-security-policy"]
    assert answer.headers["x-frame-options"] == "DENY"
    assert answer.headers["x-content-type-options"] == "nosniff"


def test_job_backend_that_is_not_a_backend_is_refused_naming_the_argument() -> None:
    with pytest.raises(TypeError, match=r"Hedron\.job_backend must implement"):
        Hedron(session_secret=SECRET, job_backend=object())
