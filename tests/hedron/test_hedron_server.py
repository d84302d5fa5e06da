"""The app over real HTTP (uvicorn on 127.0.0.1), and hedron_core's Pyodide-friendliness."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import requests
from hedron_support import SECRET, page_token

from hedron import ComponentRef, Hedron, Page, Poll, Status, Text, fragment
from hedron_core.htmx import STOP_POLLING_STATUS


def build_app() -> Hedron:
    app = Hedron(title="Real", session_secret=SECRET)
    state = {"n": 0}

    @app.page("/")
    def home() -> Page:
        ref = ComponentRef(logical_id="job-status", path="/status")
        return Page(Text("hi"), Poll(ref=ref, interval_ms=100, content=Status("Queued…")))

    @app.get("/status")
    async def status() -> Any:
        state["n"] += 1
        if state["n"] >= 3:
            return fragment(Status("Done", tone="success"), status_code=STOP_POLLING_STATUS)
        return fragment(Status(f"Step {state['n']}"))

    @app.action("/echo")
    async def echo() -> Status:
        return Status("echo")

    return app


def test_real_server_page_poll_answers_and_csrf(live_server: Any) -> None:
    base = live_server(build_app())
    with requests.Session() as http:
        page = http.get(base + "/", timeout=5)
        assert page.status_code == 200
        assert page.text.startswith("<!DOCTYPE html>")
        assert page.headers["x-frame-options"] == "DENY"
        token = page_token(page.text)
        assert token != http.cookies["hedron_csrf"]  # the token is made from the cookie
        codes = [
            http.get(base + "/status", headers={"HX-Request": "true"}, timeout=5).status_code
            for _ in range(3)
        ]
        assert codes == [200, 200, STOP_POLLING_STATUS]
        assert http.post(base + "/echo", timeout=5).status_code == 403
        ok = http.post(base + "/echo", headers={"X-CSRF-Token": token}, timeout=5)
        assert ok.status_code == 200
        assert "echo" in ok.text
        js = http.get(base + "/_hedron/static/vendor/htmx.min.js", timeout=5)
        assert js.status_code == 200
        assert js.headers["content-type"].startswith("text/javascript")


def test_hedron_core_imports_no_web_framework_and_starts_no_thread() -> None:
    code = (
        "import sys, threading\n"
        "before = threading.active_count()\n"
        "import hedron_core\n"
        "from hedron_core import render, render_document, registry, Page\n"
        "from hedron_core.explorer import explorer_page\n"
        "for info in registry(): render(info.example)\n"
        "render_document(explorer_page(), title='x')\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('fastapi', 'starlette', 'pydantic', 'anyio', 'asyncio', 'threading_extra'))\n"
        "print(bad, threading.active_count() - before)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[] 0"
