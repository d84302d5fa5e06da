"""Scenario 4 of ``bench_resq.py``: many concurrent polls over real loopback sockets.

``bench_resq.py`` runs it (``--only sockets``) and is the entry point of its child processes
(``--serve-jobs``, the server; ``--client``, one round of one client): see that script's
docstring.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import multiprocessing
import multiprocessing.sharedctypes
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import psutil

from resq import Requests
from resq._gate import DEFAULT_MAX_IN_FLIGHT

BENCH = Path(__file__).with_name("bench_resq.py")  # the entry point of the child processes
Server = Callable[..., contextlib.AbstractContextManager[tuple[str, "subprocess.Popen[bytes]"]]]


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
    server: Server, polls: int, rounds: int, workers: int, gate: int, window: float, delay: float
) -> bool:
    """Print scenario 4; return whether resq met the goal in every round. ``server(*args)``
    runs ``bench_resq.py *args`` (a server that prints its port): its URL and process."""
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
                [sys.executable, str(BENCH), "--client", *args],
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
