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
to the client's. Run: ``.venv/bin/python scripts/bench_resq.py [--quick] [--polls N]
[--only sockets]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import ctypes
import gc
import json
import multiprocessing
import multiprocessing.sharedctypes
import os
import pstats
import resource
import selectors
import signal
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
from resq._gate import DEFAULT_MAX_IN_FLIGHT
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


# -- 4. concurrent polls over real sockets ------------------------------------------------------
JOB_FAILS = 3  # every job answers 503 this many times, then 200
KEEP_ALIVE_S = 65  # a load balancer's usual idle timeout (uvicorn's default is 5 s)
SERVER_NOTE = (
    "a raw ASGI app (no framework: one counter per job) on uvicorn (h11), {workers} worker "
    "process(es) accepting on one socket and sharing the counters, so that the server is not "
    "the bottleneck (its CPU is shown next to the client's)"
)


def _job_app(counts: Any) -> Any:
    async def job_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        """``/job/<slot>``: 503 for the first JOB_FAILS calls of that slot, then 200."""
        if scope["type"] != "http":
            return
        slot = int(scope["path"].rpartition("/")[2])
        counts[slot] += 1  # one poll's requests never overlap: no lock needed
        status = 200 if counts[slot] > JOB_FAILS else 503
        headers = [(b"content-type", b"text/plain"), (b"content-length", b"2")]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"ok"})

    return job_app


def _serve_jobs(workers: int, slots: int) -> None:
    """``--serve-jobs W SLOTS``: W forked uvicorn workers on one listening socket."""
    import uvicorn

    counts = multiprocessing.sharedctypes.RawArray(ctypes.c_int, slots)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(4096)  # connections queue here until a worker accepts them
    config = uvicorn.Config(
        _job_app(counts), log_level="warning", loop="asyncio", http="h11", lifespan="off",
        backlog=4096, timeout_keep_alive=KEEP_ALIVE_S, timeout_graceful_shutdown=1,
    )  # fmt: skip
    fork = multiprocessing.get_context("fork")
    procs = [
        fork.Process(target=uvicorn.Server(config).run, kwargs={"sockets": [sock]})
        for _ in range(workers)
    ]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # so that `finally` stops the workers
    try:
        for proc in procs:
            proc.start()
        print(sock.getsockname()[1], flush=True)
        for proc in procs:
            proc.join()
    finally:
        for proc in procs:
            proc.terminate()
            proc.join(5)
            if proc.is_alive():
                proc.kill()


def _server_cpu(proc: subprocess.Popen[bytes]) -> float:
    times = [c.cpu_times() for c in psutil.Process(proc.pid).children()]
    return sum(t.user + t.system for t in times)


async def _poll_many(
    kind: str, base: str, polls: int, offset: int, window: float, delay: float, cap: float,
    gate: int,
) -> None:  # fmt: skip
    """One round: ``polls`` concurrent polls through resq or a plain httpx loop; prints a JSON
    line when they have all ended, or at the cap."""
    within: list[float] = []  # when each poll that got its 200 in time ended (s from t0)
    late = failed = errors = 0

    async with contextlib.AsyncExitStack() as stack:
        if kind == "resq":
            options = {} if gate == 0 else {"max_in_flight": gate}  # 0: resq's default
            client = await stack.enter_async_context(Requests(base, "httpx", **options))

            async def one(i: int) -> bool:
                r = await client.get(f"/job/{offset + i}", timeout=window, delay=delay)
                return r.ok
        else:
            raw = await stack.enter_async_context(httpx.AsyncClient(timeout=None))

            async def one(i: int) -> bool:  # the same rules: no request after the deadline
                url, deadline = f"{base}/job/{offset + i}", time.monotonic() + window
                while True:
                    r = await raw.get(url)
                    left = deadline - time.monotonic()
                    if r.is_success or left <= 0:
                        return r.is_success
                    await anyio.sleep(min(delay, left))

        async def run(i: int) -> None:
            nonlocal late, failed, errors
            start = time.monotonic()
            try:
                ok = await one(i)
            except Exception:  # a transport error, a pool timeout...
                errors += 1
                return
            if not ok:
                failed += 1
            elif time.monotonic() - start > window:
                late += 1
            else:
                within.append(time.monotonic() - t0)

        def report() -> None:
            within.sort()
            print(json.dumps({
                "completed": len(within), "late": late, "failed": failed, "errors": errors,
                "unfinished": polls - len(within) - late - failed - errors,
                "wall": time.monotonic() - t0, "cpu": time.process_time() - cpu0,
                "median_done": within[len(within) // 2] if within else None,
                "last_done": within[-1] if within else None,
                "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,  # KiB on Linux
            }), flush=True)  # fmt: skip

        def stop_at_the_cap(signum: int, frame: object) -> None:
            # A signal, not a task: a loop starved by the pool's bookkeeping may not wake a
            # sleeping task for minutes, but the handler runs at the next bytecode.
            report()  # and leave at once: unwinding thousands of requests queued in httpcore's
            os._exit(0)  # pool would take minutes (every removal rescans its waiting list)

        t0, cpu0 = time.monotonic(), time.process_time()
        signal.signal(signal.SIGALRM, stop_at_the_cap)
        signal.setitimer(signal.ITIMER_REAL, cap)
        async with anyio.create_task_group() as tg:
            for i in range(polls):
                tg.start_soon(run, i)
        signal.setitimer(signal.ITIMER_REAL, 0)
        report()


def _client_child(kind: str, base: str, *numbers: str) -> None:
    """``--client KIND BASE POLLS OFFSET WINDOW DELAY CAP GATE``: one round, in a fresh process."""
    polls, offset, gate = int(numbers[0]), int(numbers[1]), int(numbers[5])
    window, delay, cap = map(float, numbers[2:5])
    anyio.run(_poll_many, kind, base, polls, offset, window, delay, cap, gate)


def _span(values: list[float], fmt: str) -> str:
    low, high = min(values), max(values)
    return format(low, fmt) if f"{low:{fmt}}" == f"{high:{fmt}}" else f"{low:{fmt}}–{high:{fmt}}"


def bench_sockets(
    polls: int, rounds: int, workers: int, gate: int, window: float, delay: float
) -> bool:
    """Print scenario 4; return whether resq met the goal in every round."""
    cap = window + 30
    print(f"\n4. {polls:,} concurrent polls over real loopback sockets, one event loop "
          f"(503 x{JOB_FAILS} then 200; window {window:g} s, delay {delay:g} s; each client in "
          f"a fresh process; a round stops at {cap:g} s)")  # fmt: skip
    print(f"   server: {SERVER_NOTE.format(workers=workers)}; keep-alive {KEEP_ALIVE_S} s")
    print(f"   resq: Requests(base, 'httpx', max_in_flight={gate or DEFAULT_MAX_IN_FLIGHT}); raw: "
          "httpx.AsyncClient(timeout=None), its default pool (100 connections)")  # fmt: skip
    print(f"   load average before: {os.getloadavg()[0]:.1f}")
    warm = min(polls, 500)
    results: dict[str, list[dict[str, Any]]] = {"raw": [], "resq": []}
    with server("--serve-jobs", str(workers), str(polls * 2 * rounds + warm)) as (base, proc):
        offset = 0

        def one_round(kind: str, n: int) -> dict[str, Any]:
            nonlocal offset
            before = _server_cpu(proc)
            args = [kind, base, str(n), str(offset), str(window), str(delay), str(cap), str(gate)]
            out = subprocess.run(
                [sys.executable, __file__, "--client", *args],
                capture_output=True, text=True, timeout=cap + 120, check=True,
            )  # fmt: skip
            offset += n
            result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
            result["server_cpu"] = _server_cpu(proc) - before
            return result

        one_round("resq", warm)  # the workers' first connections and imports
        print(f"   {'round':5} {'client':9} {'completed':>15} {'late':>5} {'failed':>6} "
              f"{'errors':>6} {'unfinished':>10} {'wall':>7} {'median/last done':>17} "
              f"{'cpu':>6} {'server cpu':>10} {'peak RSS':>9}")  # fmt: skip
        for i in range(rounds):  # interleaved, alternating who goes first
            for kind in ("raw", "resq") if i % 2 == 0 else ("resq", "raw"):
                r = one_round(kind, polls)
                results[kind].append(r)
                done = "-"
                if r["completed"]:
                    done = f"{r['median_done']:6.1f}/{r['last_done']:5.1f} s"
                print(f"   {i + 1:<5} {'resq' if kind == 'resq' else 'raw httpx':9} "
                      f"{r['completed']:>7,}/{polls:<7,} {r['late']:5,} {r['failed']:6,} "
                      f"{r['errors']:6,} {r['unfinished']:10,} {r['wall']:6.1f}s "
                      f"{done:>17} {r['cpu']:5.1f}s {r['server_cpu']:9.1f}s "
                      f"{r['rss'] / 2**20:6.0f} MB", flush=True)  # fmt: skip
    print(f"   summary, [min–max] over {rounds} rounds:")
    for kind, label in (("resq", "resq"), ("raw", "raw httpx")):
        rs = results[kind]
        print(f"     {label:9} completed {_span([r['completed'] for r in rs], ',.0f')} of "
              f"{polls:,}, wall {_span([r['wall'] for r in rs], '.1f')} s, client cpu "
              f"{_span([r['cpu'] for r in rs], '.1f')} s, server cpu "
              f"{_span([r['server_cpu'] for r in rs], '.1f')} s, peak RSS "
              f"{_span([r['rss'] / 2**20 for r in rs], '.0f')} MB")  # fmt: skip
    pairs = list(zip(results["resq"], results["raw"], strict=True))
    if all(raw["completed"] for _, raw in pairs):
        ratios = [q["completed"] / raw["completed"] for q, raw in pairs]
        completions = f"{_span(ratios, '.2f')}x as many polls completed"
    else:
        completions = "raw httpx completed none in some round (ratio unbounded)"
    walls = _span([q["wall"] / raw["wall"] for q, raw in pairs], ".2f")
    print(f"     resq vs raw httpx: {completions}; wall time {walls}x")
    met = all(
        r["completed"] == polls and r["wall"] < 60 and r["rss"] <= 300 * 2**20
        for r in results["resq"]
    )
    print(f"   goal (all {polls:,} complete within their window, < 60 s wall, peak RSS <= 300 MB,"
          f" in every round): {'met' if met else 'NOT met'}")  # fmt: skip
    print(f"   load average after: {os.getloadavg()[0]:.1f}")
    return met


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
        args.polls, args.rounds, args.workers, args.max_in_flight, window=60, delay=0.5
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
