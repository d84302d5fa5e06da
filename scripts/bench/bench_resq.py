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
4. 10,000 concurrent ``await client.get("/job/{i}", timeout=60, delay=0.5)`` on one event loop
   over real loopback sockets (503 three times per job, then 200), vs a plain
   ``httpx.AsyncClient`` polling loop with the same window rules, interleaved rounds, each
   client in a fresh process: polls that reached 200, wall time, client CPU and peak RSS.
   Goal: every poll completes within its window, < 60 s wall, RSS <= 300 MB.

The HTTP server for 1 and 2 is uvicorn in a child process on 127.0.0.1 (so it does not share
the GIL with the client). The server for 4 must not be the bottleneck: a raw ASGI app (no
framework: a route lookup and a counter) on uvicorn with one worker process per core, sharing
one listening socket and a table of per-job counters; the script prints the CPU it used next
to the client's. Run: ``.venv/bin/python scripts/bench/bench_resq.py [--quick] [--polls N]
[--only sockets]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import os
import pstats
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
from bench_resq_sockets import _client_child, _serve_jobs, bench_sockets

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
def server(*args: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Run this script with ``args`` (a server that prints its port); yield its URL and process."""
    proc = subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            if not sel.select(timeout=15):
                raise RuntimeError("server did not start")
        yield f"http://127.0.0.1:{int(proc.stdout.readline())}", proc
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout:
            proc.stdout.close()


# -- 1. per-attempt overhead -------------------------------------------------------------------
Timing = tuple[float, float]  # (wall seconds, client CPU seconds) per attempt


def _timed(fn: Callable[[], object], attempts: int) -> Timing:
    t, cpu = time.perf_counter(), time.process_time()
    fn()
    return (time.perf_counter() - t) / attempts, (time.process_time() - cpu) / attempts


def _calls(fn: Callable[[], object]) -> int:
    """Python function calls made by ``fn``: a deterministic cost measure, immune to load."""
    profiler = cProfile.Profile()
    profiler.runcall(fn)
    return int(pstats.Stats(profiler).total_calls)  # type: ignore[attr-defined]


def _medians(resq_t: list[Timing], raw_t: list[Timing]) -> tuple[float, ...]:
    rw, rc = (statistics.median(x) for x in zip(*resq_t, strict=True))
    bw, bc = (statistics.median(x) for x in zip(*raw_t, strict=True))
    return rw, bw, rw / bw, rc, bc, rc / bc


def _pair(
    resq_fn: Callable[[], Timing], raw_fn: Callable[[], Timing], rounds: int
) -> tuple[float, ...]:
    resq_t, raw_t = [], []
    for i in range(rounds):  # interleaved, alternating who goes first, so drift hits both
        if i % 2:
            resq_t.append(resq_fn())
            raw_t.append(raw_fn())
        else:
            raw_t.append(raw_fn())
            resq_t.append(resq_fn())
    return _medians(resq_t, raw_t)


def bench_overhead(base: str, attempts: int, rounds: int) -> list[tuple[str, tuple[float, ...]]]:
    """Same requests and status checks; a hand loop checks ``ok`` like resq checks the status."""
    url = base + "/fail"
    rows = []
    few = max(10, attempts // 4)

    with requests.Session() as raw, Session(base, adapter="requests") as sess:

        def raw_loop() -> None:
            for _ in range(attempts):
                if raw.get(url).ok:
                    break

        def resq_loop() -> None:
            poll(sess.get("/fail"), 3600, 0, max_attempts=attempts)

        pair = _pair(
            lambda: _timed(resq_loop, attempts), lambda: _timed(raw_loop, attempts), rounds
        )
        rows.append(("Session vs requests.Session", pair))

    with Requests(base, adapter="requests") as fresh:

        def raw_get() -> None:
            for _ in range(few):
                if requests.get(url).ok:
                    break

        def resq_get() -> None:
            poll(fresh.get("/fail"), 3600, 0, max_attempts=few)

        pair = _pair(lambda: _timed(resq_get, few), lambda: _timed(raw_get, few), rounds)
        rows.append(("Requests vs requests.get (new connections)", pair))

    class Canned(requests.adapters.BaseAdapter):
        """No network at all: the worst case for resq, whose bookkeeping is all that is left."""

        def send(self, request: Any, *args: Any, **kwargs: Any) -> requests.Response:
            r = requests.Response()
            r.status_code, r.reason, r._content, r.url = 503, "Service Unavailable", b"ok", url
            r.request = request
            return r

        def close(self) -> None:
            pass

    with (
        requests.Session() as raw_c,
        Session(base, adapter="requests", transport=Canned()) as canned,
    ):
        raw_c.mount("http://", Canned())
        n = attempts * 10

        def raw_canned() -> None:
            for _ in range(n):
                if raw_c.get(url).ok:
                    break

        def resq_canned() -> None:
            poll(canned.get("/fail"), 3600, 0, max_attempts=n)

        pair = _pair(lambda: _timed(resq_canned, n), lambda: _timed(raw_canned, n), rounds)
        rows.append(("Session vs requests.Session, no network", pair))
        calls_resq, calls_raw = _calls(resq_canned) / n, _calls(raw_canned) / n
        rows.append(
            (
                "  Python calls per attempt, no network",
                (calls_resq, calls_raw, calls_resq / calls_raw),
            )
        )

    async def async_pair() -> tuple[float, ...]:
        resq_t: list[Timing] = []
        raw_t: list[Timing] = []
        async with httpx.AsyncClient() as raw, Requests(base, adapter="httpx") as client:
            for i in range(rounds):
                for who in ("resq", "raw") if i % 2 else ("raw", "resq"):
                    t, cpu = time.perf_counter(), time.process_time()
                    if who == "raw":
                        for _ in range(attempts):
                            if (await raw.get(url)).is_success:
                                break
                    else:
                        await poll(await client.get("/fail"), 3600, 0, max_attempts=attempts)
                    timing = (
                        (time.perf_counter() - t) / attempts,
                        (time.process_time() - cpu) / attempts,
                    )
                    (raw_t if who == "raw" else resq_t).append(timing)
        return _medians(resq_t, raw_t)

    rows.append(("httpx adapter vs httpx.AsyncClient", anyio.run(async_pair)))
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
    parser.add_argument("--serve-jobs", nargs=2, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--client", nargs=8, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="fewer rounds and polls (1 to 3)")
    parser.add_argument("--polls", type=int, default=10_000, help="polls in 4 (10,000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of 4 (default 3)")
    parser.add_argument("--workers", type=int, default=os.cpu_count(), help="servers in 4")
    parser.add_argument("--only", choices=["sockets"], help="run only scenario 4")
    parser.add_argument("--max-in-flight", type=int, default=0, help="resq's in 4 (its default)")
    args = parser.parse_args()
    if args.serve:
        _serve_child()
        return
    if args.serve_jobs:
        _serve_jobs(*args.serve_jobs)
        return
    if args.client:
        _client_child(*args.client)
        return
    print(f"resq benchmark (python {sys.version.split()[0]}, {os.cpu_count()} cpus, "
          f"load {os.getloadavg()[0]:.1f})")  # fmt: skip
    if args.only != "sockets":
        bench_in_process(args.quick)
    met = bench_sockets(
        server, args.polls, args.rounds, args.workers, args.max_in_flight, window=60, delay=0.5
    )
    sys.exit(0 if met else 1)


def bench_in_process(quick: bool) -> None:
    """Print scenarios 1 to 3."""
    attempts, rounds, polls = (50, 5, 1000) if quick else (200, 9, 10_000)
    print()
    with server("--serve") as (base, _):
        print(
            f"1. per-attempt overhead ({attempts} attempts x {rounds} rounds, median;"
            " goal <= 1.05x)"
        )
        print(f"   {'pair':43} {'resq wall':>10} {'raw wall':>9} {'ratio':>6}   "
              f"{'resq cpu':>9} {'raw cpu':>8} {'ratio':>6}")  # fmt: skip
        for name, values in bench_overhead(base, attempts, rounds):
            if len(values) == 3:
                print(f"   {name:43} {values[0]:8.0f}   {values[1]:7.0f}   {values[2]:5.3f}x")
                continue
            rw, bw, wr, rc, bc, cr = values
            print(f"   {name:43} {rw * 1e3:8.3f}ms {bw * 1e3:7.3f}ms {wr:5.3f}x   "
                  f"{rc * 1e3:7.3f}ms {bc * 1e3:6.3f}ms {cr:5.3f}x")  # fmt: skip
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
