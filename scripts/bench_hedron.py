#!/usr/bin/env python3
"""Benchmark hedron against bare FastAPI, side by side in one run, and time Table rendering.

Prints:

* requests/s of a hedron page (``@app.page``, full document, rendered per request) and of a
  status fragment route (``fragment(Status(...))``) against a bare FastAPI route returning the
  same HTML as a constant string (and, in-process, against a bare route that renders the same
  HTML with ``hedron_core`` per request, which isolates hedron's app layer), measured (a)
  in-process through the ASGI interface in CPU time, which isolates framework cost from the
  machine's load, and (b) over real HTTP: each app in its own uvicorn process on 127.0.0.1,
  one keep-alive client connection (wall clock and server CPU time). Both sides answer
  byte-identical bodies (checked before measuring; the servers render with the client's
  CSRF token), run under the same uvicorn settings and are measured in alternating order.
  Goal: hedron >= 0.8x the bare route.
* render time of a 1,000-row ``Table`` (text cells, then with a component in every row).

Run: ``.venv/bin/python scripts/bench_hedron.py`` (about a minute and a half).
"""

from __future__ import annotations

import asyncio
import http.client
import os
import secrets
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from hedron import Badge, ComponentRef, Hedron, Page, Poll, Status, Table, Text, fragment, render
from hedron_core.document import render_document
from hedron_core.security import csrf_key, csrf_token_for

# The uvicorn processes import this module too: they take the token from the environment so
# both servers render exactly the HTML (and expect exactly the cookie) the client uses.
_TOKEN_ENV = "BENCH_HEDRON_TOKEN"
_SECRET_ENV = "BENCH_HEDRON_SECRET"
NONCE = os.environ.get(_TOKEN_ENV) or secrets.token_urlsafe(32)
SECRET = os.environ.get(_SECRET_ENV) or secrets.token_urlsafe(48)
COOKIE = f"hedron_csrf={NONCE}"
# The token hedron's pages carry is made from the cookie's value and the session secret.
TOKEN = csrf_token_for(NONCE, csrf_key(SECRET))
ROUNDS = 7


def make_page() -> Page:
    ref = ComponentRef(logical_id="job-status", path="/status", method="GET")
    return Page(
        Text("Job 42 (poll every 2s)"),
        Poll(ref=ref, interval_ms=2000, content=Status("Queued…")),
        title="Jobs poll",
    )


def build_apps() -> tuple[Hedron, FastAPI]:
    hedron_app = Hedron(title="Bench", session_secret=SECRET)

    @hedron_app.page("/page")
    async def page() -> Page:
        return make_page()

    @hedron_app.get("/status")
    async def status() -> HTMLResponse:
        return fragment(Status("Running 3 of 10"))

    page_html = render_document(make_page(), title="Bench", csrf_token=TOKEN)
    status_html = render(Status("Running 3 of 10"))
    bare = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @bare.get("/page")
    async def bare_page() -> HTMLResponse:
        return HTMLResponse(page_html)

    @bare.get("/status")
    async def bare_status() -> HTMLResponse:
        return HTMLResponse(status_html)

    # The same HTML built per request with hedron_core on a bare FastAPI route: the ratio
    # against these isolates hedron's app layer (sessions, headers, CSRF cookie, routing).
    @bare.get("/page-rendered")
    async def bare_page_rendered() -> HTMLResponse:
        return HTMLResponse(render_document(make_page(), title="Bench", csrf_token=TOKEN))

    @bare.get("/status-rendered")
    async def bare_status_rendered() -> HTMLResponse:
        return HTMLResponse(render(Status("Running 3 of 10")))

    return hedron_app, bare


# -- in-process ASGI ---------------------------------------------------------------------


async def asgi_rps(app: Any, path: str, seconds: float, expect_body: bytes | None = None) -> float:
    """Requests per CPU-second of ``app`` for ``GET path`` (optionally checking the body)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"bench"), (b"cookie", COOKIE.encode())],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    status: list[int] = []
    body: list[bytes] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
        elif not body:
            body.append(message.get("body", b""))

    await app(dict(scope), receive, send)
    if expect_body is not None and body != [expect_body]:
        raise SystemExit(f"in-process: {path} answers different HTML on the two sides")
    for _ in range(200):  # warm up
        await app(dict(scope), receive, send)
    count = 0
    start = time.process_time()
    end = start + seconds
    while time.process_time() < end:
        for _ in range(50):
            await app(dict(scope), receive, send)
        count += 50
    elapsed = time.process_time() - start
    assert set(status) == {200}, set(status)
    return count / elapsed


# -- real HTTP ---------------------------------------------------------------------------


def make_hedron() -> Hedron:
    """uvicorn factory: the hedron app."""
    return build_apps()[0]


def make_bare() -> FastAPI:
    """uvicorn factory: the bare FastAPI app."""
    return build_apps()[1]


class Served:
    """uvicorn serving ``factory`` in its own process on a free loopback port."""

    def __init__(self, factory: str) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.command = [
            sys.executable, "-m", "uvicorn", f"bench_hedron:{factory}", "--factory",
            "--app-dir", str(Path(__file__).resolve().parent), "--host", "127.0.0.1",
            "--port", str(self.port), "--log-level", "warning", "--http", "h11",
            "--lifespan", "off",
        ]  # fmt: skip
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Served:
        self.proc = subprocess.Popen(
            self.command, env={**os.environ, _TOKEN_ENV: NONCE, _SECRET_ENV: SECRET}
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.__exit__()
                    raise RuntimeError(f"uvicorn did not start: {self.command}") from None
                time.sleep(0.05)

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def http_body(served: Served, path: str) -> bytes:
    """One GET of ``path`` with the benchmark's cookie; the response body."""
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        conn.request("GET", path, headers={"Cookie": COOKIE})
        response = conn.getresponse()
        assert response.status == 200, (path, response.status)
        return response.read()
    finally:
        conn.close()


def http_rps(served: Served, path: str, seconds: float) -> tuple[float, float]:
    """(requests per wall-clock second, requests per second of server CPU time)."""
    assert served.proc is not None
    server = psutil.Process(served.proc.pid)
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    conn.connect()
    assert conn.sock is not None
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    headers = {"Cookie": COOKIE}
    try:
        for _ in range(100):
            conn.request("GET", path, headers=headers)
            conn.getresponse().read()
        count = 0
        cpu_before = sum(server.cpu_times()[:2])
        start = time.perf_counter()
        end = start + seconds
        while time.perf_counter() < end:
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            response.read()
            assert response.status == 200
            count += 1
        wall = time.perf_counter() - start
        cpu = sum(server.cpu_times()[:2]) - cpu_before
        return count / wall, count / max(cpu, 1e-9)
    finally:
        conn.close()


# -- rendering ---------------------------------------------------------------------------


def time_render(make: Callable[[], Any], repeat: int = 20) -> float:
    component = make()
    render(component)
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        render(component)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def report(name: str, ours: list[float], theirs: list[float]) -> None:
    """One line: both medians, their ratio and the range of the per-round ratios."""
    a, b = statistics.median(ours), statistics.median(theirs)
    rounds = [x / y for x, y in zip(ours, theirs, strict=True)]
    spread = f"({min(rounds):.2f}-{max(rounds):.2f})"
    print(f"  {name:<48}{a:>10,.0f}{b:>10,.0f}{a / b:>7.2f}x  {spread}")


def main() -> None:
    hedron_app, bare = build_apps()
    expected = {
        "/page": render_document(make_page(), title="Bench", csrf_token=TOKEN).encode(),
        "/status": render(Status("Running 3 of 10")).encode(),
    }
    print("hedron vs bare FastAPI (same HTML, checked); median of", ROUNDS, "interleaved rounds")
    print("(in-process: requests per CPU-second of the benchmark process)")
    print("(ratio of the medians; in brackets the lowest and highest ratio of one round's pair)")
    print(f"{'':50}{'hedron':>10}{'bare':>10}{'ratio':>8}   {'per round':<11}")
    cases = (
        ("page vs constant HTML", "/page", "/page"),
        ("fragment vs constant", "/status", "/status"),
        ("page vs bare+render", "/page", "/page-rendered"),
        ("fragment vs bare+render", "/status", "/status-rendered"),
    )
    for label, path, bare_path in cases:
        ours, theirs = [], []
        for r in range(ROUNDS):  # alternate which side goes first
            for side in (0, 1) if r % 2 else (1, 0):
                if side == 0:
                    ours.append(asyncio.run(asgi_rps(hedron_app, path, 0.4, expected[path])))
                else:
                    theirs.append(asyncio.run(asgi_rps(bare, bare_path, 0.4, expected[path])))
        report(f"in-process req/CPU-s, {label}", ours, theirs)
    with Served("make_hedron") as ours_srv, Served("make_bare") as bare_srv:
        for path in ("/page", "/status"):  # the comparison is only fair for identical bodies
            if http_body(ours_srv, path) != http_body(bare_srv, path):
                raise SystemExit(f"hedron and bare answer {path} with different HTML")
        for label, path in (("page (full document)", "/page"), ("status fragment", "/status")):
            ours_http, bare_http = [], []
            for r in range(ROUNDS):  # alternate which server goes first
                for side in (0, 1) if r % 2 else (1, 0):
                    if side == 0:
                        ours_http.append(http_rps(ours_srv, path, 1.5))
                    else:
                        bare_http.append(http_rps(bare_srv, path, 1.5))
            for i, kind in enumerate(("req/s (wall)", "req/server-CPU-s")):
                ours_i = [x[i] for x in ours_http]
                report(f"uvicorn {kind}, {label}", ours_i, [x[i] for x in bare_http])

    rows = 1000
    text_rows = [[f"job-{i}", "succeeded", i, f"note <{i}> & more"] for i in range(rows)]
    badge_rows = [[f"job-{i}", Badge("succeeded", tone="success"), i, "x"] for i in range(rows)]
    cols = ["Job", "State", "Rows", "Note"]
    plain = time_render(lambda: Table(cols, text_rows))
    with_badges = time_render(lambda: Table(cols, badge_rows))
    build_start = time.perf_counter()
    Table(cols, text_rows)
    build = time.perf_counter() - build_start
    print(f"\nTable, {rows:,} rows x {len(cols)} columns:")
    print(f"  construct + validate:        {build * 1e3:8.2f} ms")
    per_row = plain / rows * 1e6
    print(f"  render, text cells:          {plain * 1e3:8.2f} ms  ({per_row:.2f} µs/row)")
    per_component = (with_badges - plain) / rows
    print(
        f"  render, a Badge in each row: {with_badges * 1e3:8.2f} ms  "
        f"({with_badges / rows * 1e6:.2f} µs/row, ~{max(per_component, 0) * 1e6:.2f} µs "
        "per Badge component)"
    )


if __name__ == "__main__":
    main()
