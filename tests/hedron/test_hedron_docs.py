"""The code in the hedron docs pages runs as written."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from hedron_support import ROOT, SECRET, page_token

from hedron import Hedron, Page, Text
from hedron_core import render

DOCS = ROOT / "docs" / "hedron"


def blocks(page: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def run_block(code: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(code, "<docs>", "exec"), namespace)
    return namespace


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("index", range(len(blocks("getting-started.md"))))
async def test_getting_started_blocks_run(index: int, anyio_backend: str) -> None:
    namespace = run_block(blocks("getting-started.md")[index])
    app = namespace.get("app")
    if app is None:
        return  # the render-only block asserts by itself
    assert isinstance(app, Hedron)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        if app.explorer_mode == "development":  # the explorer example has no page of its own
            assert (await client.get("/_hedron/explorer")).status_code == 200
            return
        page = await client.get("/")
        assert page.status_code == 200
        assert page.text.startswith("<!DOCTYPE html>")
        if "/report/status" in page.text:  # the Poll example runs to its 286
            codes = [(await client.get("/report/status")).status_code for _ in range(3)]
            assert codes == [200, 200, 286]
        if "/subscribe" in page.text:  # the action example, with the page's CSRF token
            token = page_token(page.text)
            r = await client.post("/subscribe", data={"email": "a@b.c", "csrf_token": token})
            assert "Subscribed a@b.c." in r.text


def test_components_page_blocks_run() -> None:
    code = blocks("components.md")
    panel = run_block(code[0])["panel"]
    assert 'value="42"' in render(panel)
    kbd_block = next(b for b in code if "class Kbd" in b)
    kbd = run_block(kbd_block)["Kbd"]
    assert render(kbd("Ctrl")) == '<kbd class="kbd">Ctrl</kbd>'
    with pytest.raises(ValueError, match=r"Kbd\.key"):
        kbd("")


def test_security_page_blocks_run(monkeypatch: pytest.MonkeyPatch) -> None:
    code = blocks("security.md")
    app = Hedron(title="Docs", session_secret=SECRET)

    @app.page("/")
    def home() -> Page:
        return Page(Text("x"))

    for block in code[:2]:  # the plain-route examples extend an existing app
        namespace = {"__name__": "docs_example", "app": app}
        exec(compile(block, "<docs>", "exec"), namespace)
    monkeypatch.setenv("HEDRON_SESSION_SECRET", SECRET)
    strict = run_block(code[2])["app"]
    assert strict.security_profile == "strict"
    monkeypatch.setenv("HEDRON_SESSION_SECRET", "change-me")
    with pytest.raises(ValueError, match="session_secret"):
        run_block(code[2])
