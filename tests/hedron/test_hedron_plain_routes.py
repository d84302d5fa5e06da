"""Plain ``@app.get``/``@app.post`` routes of a Hedron app: a returned component is HTML."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import Request
from hedron_support import SECRET
from pydantic import BaseModel

from hedron import Form, Hedron, Page, Status, Text
from hedron_core.security import csrf_key, csrf_token_for

pytestmark = pytest.mark.anyio

NONCE = "n" * 43
HX = {"HX-Request": "true"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Public(BaseModel):
    name: str


def make_app() -> Hedron:
    app = Hedron(title="Plain routes", session_secret=SECRET)

    @app.get("/status")
    def status():  # type: ignore[no-untyped-def]  # no annotation at all, a plain def
        return Status("Running", tone="info")

    @app.get("/page")
    async def page(request: Request, n: int = 1) -> Page:  # a component annotation
        request.session["seen"] = n
        return Page(Text(f"n={n}"), title="Counted")

    @app.get("/form")
    def form() -> Form:  # on a worker thread: the request's CSRF token still reaches it
        return Form(Text("f"), action="/go")

    @app.get("/either")
    async def either(html: bool = False) -> Any:
        return Status("as HTML") if html else {"as": "json"}

    @app.get("/model")
    async def model() -> Public:
        return {"name": "kept", "secret": "dropped"}  # type: ignore[return-value]

    @app.post("/made")
    async def made() -> Status:
        return Status("Created", tone="success")

    return app


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=make_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        c.cookies.set("hedron_csrf", NONCE)
        yield c


async def test_a_returned_component_is_a_document_and_htmx_gets_the_fragment(
    client: httpx.AsyncClient,
) -> None:
    full = await client.get("/status")
    assert full.status_code == 200
    assert full.headers["content-type"] == "text/html; charset=utf-8"
    assert full.text.startswith("<!DOCTYPE html>")
    assert "<title>Plain routes</title>" in full.text  # the app's title, as @app.page
    assert csrf_token_for(NONCE, csrf_key(SECRET)) in full.text
    assert full.headers["vary"] == "HX-Request"
    assert full.headers["cache-control"] == "no-store"
    assert "default-src 'self'" in full.headers["content-security-policy"]
    part = await client.get("/status", headers=HX)
    assert part.text == (
        '<div class="h-status h-tone-info" role="status" aria-live="polite">Running</div>'
    )
    assert part.headers["content-type"] == "text/html; charset=utf-8"


async def test_component_annotation_with_request_and_query_parameters(
    client: httpx.AsyncClient,
) -> None:
    answer = await client.get("/page", params={"n": "3"})
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    assert "<title>Counted</title>" in answer.text
    assert '<p class="h-text">n=3</p>' in answer.text
    assert "hedron_session=" in answer.headers["set-cookie"]  # the session still works
    bad = await client.get("/page", params={"n": "x"})
    assert bad.status_code == 422  # FastAPI's own validation, unchanged


async def test_a_form_from_a_plain_def_route_carries_the_token(
    client: httpx.AsyncClient,
) -> None:
    answer = await client.get("/form", headers=HX)
    token = csrf_token_for(NONCE, csrf_key(SECRET))
    assert f'name="csrf_token" value="{token}"' in answer.text


async def test_other_return_values_stay_fastapi_json(client: httpx.AsyncClient) -> None:
    plain = await client.get("/either")
    assert plain.headers["content-type"] == "application/json"
    assert plain.json() == {"as": "json"}
    html = await client.get("/either", params={"html": "true"}, headers=HX)
    assert html.headers["content-type"] == "text/html; charset=utf-8"
    assert "as HTML" in html.text
    model = await client.get("/model")
    assert model.json() == {"name": "kept"}  # the response model still filters


async def test_a_post_route_renders_its_component(client: httpx.AsyncClient) -> None:
    answer = await client.post("/made", headers=HX)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    assert "Created" in answer.text
