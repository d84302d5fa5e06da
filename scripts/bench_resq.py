#!/usr/bin/env python
"""Benchmark resq against its raw engines, side by side in one run.

1. Per-attempt overhead: polling a URL that always answers 503 with resq (``poll`` with
   ``delay=0``) vs a hand-written loop on the raw engine doing the same requests and status
   checks (requests.Session, requests.get, httpx.AsyncClient). Goal: ratio <= 1.05.
2. Window overshoot in real time: how far past ``timeout`` a poll returns, compared with the
   duration of one request, and whether any request started after the deadline. Goal:
   overshoot <= one request, zero requests after the deadline.
3. 10,000 concurrent async polls in one event loop (each polls twice, then succeeds), through
   an in-process ASGI app, vs the same with raw httpx tasks: wall time and RSS (psutil).

The HTTP server for 1 and 2 is uvicorn in a child process on 127.0.0.1 (so it does not share
the GIL with the client). Run: ``.venv/bin/python scripts/bench_resq.py [--quick]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import selectors
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import httpx
import psutil
import requests
import requests.adapters

from resq import Requests, Session
from resq.http import poll


# -- the server ------------------------------------------------------------------------------
async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Raw ASGI: /fail -> 503, /slow?ms=N -> 503 after N ms, /job?n=K -> 503 K times then 200."""
    if scope["type"] != "http":
        return
    path, query = scope["path"], scope["query_string"].decode()
    status = 503
    if path == "/slow":
        await asyncio.sleep(int(query.split("=")[1]) / 1000)
    elif path == "/job":
        key, n = dict(p.split("=") for p in query.split("&"))["k"], 2
        app.counts[key] = app.counts.get(key, 0) + 1  # type: ignore[attr-defined]
        status = 200 if app.counts[key] > n else 503  # type: ignore[attr-defined]
    headers = [(b"content-type", b"text/plain"), (b"content-length", b"2")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"ok"})


app.counts = {}  # type: ignore[attr-defined]


def _serve_child() -> None:
    import uvicorn

    sock = socket.socket()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # inherited by accepted sockets
    sock.bind(("127.0.0.1", 0))

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            print(sock.getsockname()[1], flush=True)

    config = uvicorn.Config(app, log_level="warning", loop="asyncio", http="h11", lifespan="off")
    Server(config).run(sockets=[sock])


@contextlib.contextmanager
def server() -> Iterator[str]:
    proc = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout=15):
                raise RuntimeError("server did not start")
        yield f"http://127.0.0.1:{int(proc.stdout.readline())}"
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout:
            proc.stdout.close()


# -- 1. per-attempt overhead -------------------------------------------------------------------
def _median_ratio(
    resq_fn: Callable[[], float], raw_fn: Callable[[], float], rounds: int
) -> tuple[float, float, float]:
    resq_t, raw_t = [], []
    for _ in range(rounds):  # interleaved, so drift hits both
        raw_t.append(raw_fn())
        resq_t.append(resq_fn())
    a, b = statistics.median(resq_t), statistics.median(raw_t)
    return a, b, a / b


def bench_overhead(base: str, attempts: int, rounds: int) -> list[tuple[str, float, float, float]]:
    url = base + "/fail"
    rows = []

    # requests.Session vs resq.Session
    raw_session = requests.Session()
    resq_session = Session(base, adapter="requests")

    def raw_sess() -> float:
        t = time.perf_counter()
        for _ in range(attempts):
            r = raw_session.get(url)
            if r.ok:
                break
        return (time.perf_counter() - t) / attempts

    def resq_sess() -> float:
        t = time.perf_counter()
        r = resq_session.get("/fail")
        poll(r, 3600, 0, max_attempts=attempts)
        return (time.perf_counter() - t) / attempts

    rows.append(
        ("Session (persistent) vs requests.Session", *_median_ratio(resq_sess, raw_sess, rounds))
    )
    raw_session.close()
    resq_session.close()

    # requests.get (new connection each time) vs resq.Requests
    resq_req = Requests(base, adapter="requests")
    few = max(10, attempts // 4)

    def raw_get() -> float:
        t = time.perf_counter()
        for _ in range(few):
            r = requests.get(url)
            if r.ok:
                break
        return (time.perf_counter() - t) / few

    def resq_get() -> float:
        t = time.perf_counter()
        poll(resq_req.get("/fail"), 3600, 0, max_attempts=few)
        return (time.perf_counter() - t) / few

    rows.append(
        ("Requests (fresh connection) vs requests.get", *_median_ratio(resq_get, raw_get, rounds))
    )
    resq_req.close()

    # httpx.AsyncClient vs resq httpx
    async def async_pair() -> tuple[float, float, float]:
        raw_t, resq_t = [], []
        async with httpx.AsyncClient() as raw, Requests(base, adapter="httpx") as client:
            for _ in range(rounds):
                t = time.perf_counter()
                for _ in range(attempts):
                    r = await raw.get(url)
                    if r.is_success:
                        break
                raw_t.append((time.perf_counter() - t) / attempts)
                t = time.perf_counter()
                await poll(await client.get("/fail"), 3600, 0, max_attempts=attempts)
                resq_t.append((time.perf_counter() - t) / attempts)
        a, b = statistics.median(resq_t), statistics.median(raw_t)
        return a, b, a / b

    rows.append(("httpx adapter vs httpx.AsyncClient", *anyio.run(async_pair)))
    return rows


# -- 2. window overshoot -----------------------------------------------------------------------
class _Timed(requests.adapters.HTTPAdapter):
    def __init__(self) -> None:
        super().__init__()
        self.spans: list[tuple[float, float]] = []

    def send(self, request: Any, **kwargs: Any) -> Any:
        start = time.monotonic()
        try:
            return super().send(request, **kwargs)
        finally:
            self.spans.append((start, time.monotonic()))


def bench_overshoot(base: str, runs: int) -> list[dict[str, float]]:
    results = []
    for timeout, delay, ms in [(1.0, 0.15, 50), (0.9, 0.2, 120), (0.5, 0.05, 10)][:runs]:
        adapter = _Timed()
        with Session(base, adapter="requests", transport=adapter) as s:
            t0 = time.monotonic()
            s.get(f"/slow?ms={ms}", timeout=timeout, delay=delay)
            total = time.monotonic() - t0
        starts = [a - t0 for a, _ in adapter.spans]
        last_request = adapter.spans[-1][1] - adapter.spans[-1][0]
        results.append({
            "timeout": timeout, "delay": delay, "request_ms": ms,
            "requests": len(starts),
            "overshoot": total - timeout,
            "last_request": last_request,
            "late_starts": sum(1 for s_ in starts if s_ > timeout + 0.02),
            "latest_start": max(starts) - timeout,
        })  # fmt: skip
    return results


# -- 3. 10,000 concurrent async polls ------------------------------------------------------------
def _rss() -> int:
    return int(psutil.Process().memory_info().rss)


async def _many(n: int, use_resq: bool) -> tuple[float, float, int, int]:
    app.counts.clear()  # type: ignore[attr-defined]
    gc.collect()
    base_rss = _rss()
    peak = base_rss
    done = anyio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _rss())
            await anyio.sleep(0.05)

    transport = httpx.ASGITransport(app=app)
    t, cpu = time.perf_counter(), time.process_time()
    ok = 0
    if use_resq:
        async with Requests("http://bench", adapter="httpx", transport=transport) as client:

            async def one(i: int) -> None:
                nonlocal ok
                r = await client.get(f"/job?k={i}", timeout=60, delay=0.5)
                ok += r.ok

            async with anyio.create_task_group() as outer:
                outer.start_soon(sample)
                async with anyio.create_task_group() as tg:
                    for i in range(n):
                        tg.start_soon(one, i)
                done.set()
    else:
        async with httpx.AsyncClient(transport=transport) as raw:

            async def one(i: int) -> None:
                nonlocal ok
                deadline = time.monotonic() + 60
                while True:
                    r = await raw.get(f"http://bench/job?k={i}")
                    if r.is_success or time.monotonic() >= deadline:
                        break
                    await anyio.sleep(0.5)
                ok += r.is_success

            async with anyio.create_task_group() as outer:
                outer.start_soon(sample)
                async with anyio.create_task_group() as tg:
                    for i in range(n):
                        tg.start_soon(one, i)
                done.set()
    return time.perf_counter() - t, time.process_time() - cpu, peak - base_rss, ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="fewer rounds and polls")
    args = parser.parse_args()
    if args.serve:
        _serve_child()
        return
    attempts, rounds, polls = (50, 5, 1000) if args.quick else (200, 9, 10_000)
    print(f"resq benchmark (python {sys.version.split()[0]}, {os.cpu_count()} cpus, "
          f"load {os.getloadavg()[0]:.1f})\n")  # fmt: skip
    with server() as base:
        print(
            f"1. per-attempt overhead ({attempts} attempts x {rounds} rounds, median;"
            " goal <= 1.05x)"
        )
        print(f"   {'pair':46} {'resq':>9} {'raw':>9} {'ratio':>7}")
        for name, a, b, ratio in bench_overhead(base, attempts, rounds):
            print(f"   {name:46} {a * 1e3:7.3f}ms {b * 1e3:7.3f}ms {ratio:6.3f}x")
        print("\n2. window overshoot in real time (goal: overshoot <= one request, 0 late starts)")
        print(f"   {'timeout':>7} {'delay':>6} {'req':>6} {'requests':>8} {'overshoot':>10} "
              f"{'last req':>9} {'latest start - deadline':>24} {'late':>5}")  # fmt: skip
        for r in bench_overshoot(base, 3):
            print(f"   {r['timeout']:6.2f}s {r['delay']:5.2f}s {r['request_ms']:4.0f}ms "
                  f"{r['requests']:8d} "
                  f"{r['overshoot'] * 1e3:8.1f}ms {r['last_request'] * 1e3:7.1f}ms "
                  f"{r['latest_start'] * 1e3:22.1f}ms {r['late_starts']:5d}")  # fmt: skip
    print(
        f"\n3. {polls:,} concurrent async polls in one loop (in-process ASGI app, 3 requests each)"
    )
    anyio.run(_many, 100, True)  # warm up both paths (imports, caches) before measuring
    anyio.run(_many, 100, False)
    for label, use_resq in (("raw httpx tasks", False), ("resq verbs", True)):
        wall, cpu, rss, ok = anyio.run(_many, polls, use_resq)
        print(f"   {label:16} wall {wall:6.2f}s  cpu {cpu:6.2f}s  peak RSS +{rss / 2**20:6.1f} MiB "
              f"({rss / polls / 1024:5.2f} KiB/poll)  succeeded {ok:,}")  # fmt: skip


if __name__ == "__main__":
    main()
