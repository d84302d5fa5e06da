#!/usr/bin/env python3
"""Benchmark hedron against bare FastAPI, side by side in one run, and time Table rendering.

Prints, for a hedron page (``@app.page``, full document, rendered per request), a status
fragment route (``fragment(Status(...))``) and a job-status fragment
(``job_status_response(backend.get(...))`` over an in-memory backend; one running job that
does not change, so after the first poll hedron answers it from the answer it remembered):

* **under load** (the goal): each app in its own uvicorn process on 127.0.0.1 (same uvicorn
  settings), loaded by a wrk-style generator in another process (``bench_load.py``: 32
  keep-alive connections, each sending its next request as soon as the answer is in), for
  ``ROUNDS`` interleaved rounds (the order of the servers rotates every round). Requests per
  second (wall clock) and per second of the server's CPU time (robust to the machine's other
  load). Two bare FastAPI routes answer each path with the bytes hedron sends, checked before
  measuring: **bare+headers** also sends the same response headers (security headers, cache
  and vary headers; the comparison fair to what hedron adds), **bare** sends only FastAPI's
  own (plain). Goal: hedron >= 0.85x bare+headers.
* in-process through the ASGI interface (requests per CPU-second; framework cost without
  sockets), against the constant answer and against a bare route that renders the same HTML
  with ``hedron_core`` per request (which isolates hedron's app layer).
* render time of a 1,000-row ``Table`` (text cells, then with a component in every row).

Ratios are of the medians; in brackets the lowest and highest ratio of one round's pair.
The load average is printed before and after (the machine is shared).

Run: ``.venv/bin/python scripts/bench/bench_hedron.py`` (about four minutes).
"""

from __future__ import annotations

import asyncio
import http.client
import json
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

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from starlette.responses import Response

from hedron import Badge, ComponentRef, Hedron, Page, Poll, Status, Table, Text, fragment, render
from hedron.jobs import job_status_response
from hedron_core.document import render_document
from hedron_core.jobs import InMemoryJobBackend, JobState
from hedron_core.security import csrf_key, csrf_token_for, security_headers

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
LOAD_ROUNDS = 10
LOAD_SECONDS = 1.5
SCOPE = {"auth_subject": "bench", "tenant_id": "bench"}
PATHS = {"page (full document)": "/page", "status fragment": "/status", "job-status": "/job"}


def make_page() -> Page:
    ref = ComponentRef(logical_id="job-status", path="/status", method="GET")
    return Page(
        Text("Job 42 (poll every 2s)"),
        Poll(ref=ref, interval_ms=2000, content=Status("Queued…")),
        title="Jobs poll",
    )


def make_backend() -> tuple[InMemoryJobBackend, str]:
    """An in-memory backend holding one RUNNING job at 3 of 10 (and the job's id)."""
    backend = InMemoryJobBackend()
    job = backend.submit("export", {"rows": 10}, **SCOPE)
    backend.mark(job.id, JobState.RUNNING)
    backend.progress(job.id, 3, 10, "Exporting rows")
    return backend, job.id


def build_hedron() -> Hedron:
    hedron_app = Hedron(title="Bench", session_secret=SECRET)
    backend, job_id = make_backend()

    @hedron_app.page("/page")
    async def page() -> Page:
        return make_page()

    @hedron_app.get("/status")
    async def status() -> HTMLResponse:
        return fragment(Status("Running 3 of 10"))

    @hedron_app.get("/job")
    async def job() -> Response:
        return job_status_response(backend.get(job_id, **SCOPE), **SCOPE)

    return hedron_app


def answers() -> dict[str, tuple[int, bytes, dict[str, str]]]:
    """What hedron answers on each path: status, body, and the headers its routes add (the
    security headers come on top of these)."""
    backend, job_id = make_backend()
    job = job_status_response(backend.get(job_id, **SCOPE), **SCOPE)
    job_headers = {
        k: v for k, v in job.headers.items() if k not in ("content-length", "content-type")
    }
    return {
        "/page": (
            200,
            render_document(make_page(), title="Bench", csrf_token=TOKEN).encode(),
            {"cache-control": "no-store", "vary": "HX-Request"},
        ),
        "/status": (200, render(Status("Running 3 of 10")).encode(), {}),
        "/job": (job.status_code, bytes(job.body), job_headers),
    }


def _constant(body: bytes, code: int, headers: dict[str, str] | None) -> Callable[[], Any]:
    async def answer() -> HTMLResponse:  # no parameters: nothing for FastAPI to parse
        return HTMLResponse(body, status_code=code, headers=headers)

    return answer


def build_bare(*, with_headers: bool, rendered: bool = False) -> FastAPI:
    """Bare FastAPI answering hedron's bytes as constants; ``with_headers`` adds the response
    headers hedron sends; ``rendered`` adds routes that render the HTML per request."""
    bare = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    secure = {k.decode(): v.decode() for k, v in security_headers("standard")}
    for path, (code, body, extra) in answers().items():
        headers = {**extra, **secure} if with_headers else None

        bare.add_api_route(
            path, _constant(body, code, headers), methods=["GET"], response_model=None
        )
    if rendered:
        # The same HTML built per request with hedron_core on a bare FastAPI route: the ratio
        # against these isolates hedron's app layer (sessions, headers, CSRF cookie, routing).
        @bare.get("/page-rendered")
        async def bare_page_rendered() -> HTMLResponse:
            return HTMLResponse(render_document(make_page(), title="Bench", csrf_token=TOKEN))

        @bare.get("/status-rendered")
        async def bare_status_rendered() -> HTMLResponse:
            return HTMLResponse(render(Status("Running 3 of 10")))

    return bare


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


# -- under load ---------------------------------------------------------------------------


def make_hedron() -> Hedron:
    """uvicorn factory: the hedron app."""
    return build_hedron()


def make_bare_headers() -> FastAPI:
    """uvicorn factory: bare FastAPI sending hedron's bytes and headers."""
    return build_bare(with_headers=True)


def make_bare_plain() -> FastAPI:
    """uvicorn factory: bare FastAPI sending hedron's bytes only."""
    return build_bare(with_headers=False)


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
            "--lifespan", "off", "--no-access-log",
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


_TRANSPORT_HEADERS = frozenset({"date", "server"})


def http_answer(served: Served, path: str) -> tuple[int, bytes, list[tuple[str, str]]]:
    """One GET of ``path`` with the benchmark's cookie: status, body and headers (without
    ``date``/``server``, which uvicorn adds to both), sorted."""
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    try:
        conn.request("GET", path, headers={"Cookie": COOKIE, "Accept": "*/*"})
        response = conn.getresponse()
        headers = sorted(
            (k.lower(), v) for k, v in response.getheaders() if k.lower() not in _TRANSPORT_HEADERS
        )
        return response.status, response.read(), headers
    finally:
        conn.close()


class LoadGenerator:
    """``bench_load.py`` in its own process, driven one JSON line per run."""

    def __enter__(self) -> LoadGenerator:
        script = Path(__file__).resolve().parent / "bench_load.py"
        self.proc = subprocess.Popen(
            [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        return self

    def run(self, served: Served, path: str, seconds: float) -> tuple[float, float]:
        """(requests per wall-clock second, requests per second of server CPU time)."""
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        assert served.proc is not None
        job = {"port": served.port, "path": path, "cookie": COOKIE, "seconds": seconds}
        self.proc.stdin.write(json.dumps({**job, "pid": served.proc.pid}) + "\n")
        self.proc.stdin.flush()
        result = json.loads(self.proc.stdout.readline())
        if result["bad"]:
            raise SystemExit(f"{path}: {result['bad']} answers were not 200")
        return result["count"] / result["wall"], result["count"] / max(result["server_cpu"], 1e-9)

    def __exit__(self, *exc: object) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)


def load_average() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


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
    spread = f"[{min(rounds):.2f}-{max(rounds):.2f}]"
    print(f"  {name:<52}{a:>9,.0f}{b:>9,.0f}{a / b:>7.2f}x  {spread}")


def in_process() -> None:
    hedron_app = build_hedron()
    bare = build_bare(with_headers=True, rendered=True)
    expected = {path: body for path, (_, body, _) in answers().items()}
    print(f"\nin-process, requests per CPU-second; median of {ROUNDS} interleaved rounds")
    print(f"{'':54}{'hedron':>9}{'bare':>9}{'ratio':>8}  {'[per round]'}")
    cases = (
        ("page vs constant+headers", "/page", "/page"),
        ("fragment vs constant+headers", "/status", "/status"),
        ("job-status vs constant+headers", "/job", "/job"),
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
        report(label, ours, theirs)


def under_load() -> None:
    names = ("hedron", "bare+headers", "bare")
    factories = ("make_hedron", "make_bare_headers", "make_bare_plain")
    print(
        f"\nunder load: uvicorn (one process each) and a load generator in another process, "
        f"{LOAD_ROUNDS} interleaved rounds of {LOAD_SECONDS:g} s per server and path"
    )
    with (
        Served(factories[0]) as ours,
        Served(factories[1]) as fair,
        Served(factories[2]) as plain,
        LoadGenerator() as load,
    ):
        servers = (ours, fair, plain)
        for path in PATHS.values():  # the comparison is only fair for identical answers
            got = [http_answer(s, path) for s in servers]
            if len({(code, body) for code, body, _ in got}) != 1:
                raise SystemExit(f"hedron and bare answer {path} with different bytes")
            if got[0][2] != got[1][2]:
                raise SystemExit(f"{path}: bare+headers sends {got[1][2]}, hedron {got[0][2]}")
        print("(same bytes on all three, same headers on hedron and bare+headers: checked)")
        print(f"{'':54}{'hedron':>9}{'bare':>9}{'ratio':>8}  {'[per round]'}")
        for label, path in PATHS.items():
            runs: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
            for r in range(LOAD_ROUNDS):  # rotate which server goes first
                order = [(r + i) % 3 for i in range(3)]
                for i in order if r % 2 == 0 else reversed(order):
                    runs[names[i]].append(load.run(servers[i], path, LOAD_SECONDS))
            for other in names[1:]:
                for k, kind in enumerate(("req/s", "req/CPU-s")):
                    report(
                        f"{label}, {kind} vs {other}",
                        [x[k] for x in runs["hedron"]],
                        [x[k] for x in runs[other]],
                    )


def main() -> None:
    print(f"hedron vs bare FastAPI ({load_average()})")
    under_load()
    in_process()
    print(f"({load_average()})")

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
