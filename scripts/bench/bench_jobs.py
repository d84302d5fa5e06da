#!/usr/bin/env python
"""Benchmark hedron jobs: backend throughput and a loopback status-polling load test.

1. ``submit + mark + get`` throughput on ``InMemoryJobBackend`` and ``SQLiteJobBackend``
   (each iteration is three operations; the goal for SQLite is >= 5,000 ops/s), printed
   side by side with their ratio.
2. A loopback load test: a uvicorn process serving a ``Hedron`` app whose status endpoint
   (a plain ``def``, as in the recipes) answers ``job_status_response`` over a SQLite
   backend, and ``--pollers`` concurrent clients, each on its own keep-alive connection,
   polling it back to back for ``--duration`` seconds (counted from when every poller has
   its connection).
   Every answer must be 200 (job not finished) or 286 (finished); anything else, or a
   transport error, counts as an error.

Usage::

    .venv/bin/python scripts/bench/bench_jobs.py                 # 30 s, 200 pollers
    .venv/bin/python scripts/bench/bench_jobs.py --duration 5    # a quick run
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCOPE = {"auth_subject": "bench-user", "tenant_id": "bench-tenant"}


def bench_backend(backend: object, iterations: int) -> float:
    """Return operations per second for ``iterations`` x (submit, mark, get)."""
    from hedron_core.jobs import JobState

    submit = backend.submit  # type: ignore[attr-defined]
    mark = backend.mark  # type: ignore[attr-defined]
    get = backend.get  # type: ignore[attr-defined]
    start = time.perf_counter()
    for i in range(iterations):
        job = submit("bench", {"i": i}, **SCOPE)
        mark(job.id, JobState.SUCCEEDED, result={"i": i})
        status = get(job.id, **SCOPE)
        if status is None or status.state is not JobState.SUCCEEDED:
            raise RuntimeError("benchmark read back a wrong status")
    elapsed = time.perf_counter() - start
    return 3 * iterations / elapsed


def bench_raw_sqlite(path: Path, iterations: int) -> float:
    """The machine's ceiling: the same three statements on a minimal table, plain sqlite3
    (WAL, synchronous=NORMAL, one transaction per statement as the backend does)."""
    import secrets
    import sqlite3

    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("CREATE TABLE t (id TEXT PRIMARY KEY, state TEXT, payload TEXT, result TEXT)")
        start = time.perf_counter()
        for _ in range(iterations):
            key = secrets.token_urlsafe(18)
            conn.execute("INSERT INTO t VALUES (?, 'queued', '{}', NULL)", (key,))
            conn.execute("UPDATE t SET state = 'succeeded', result = '{}' WHERE id = ?", (key,))
            conn.execute("SELECT * FROM t WHERE id = ?", (key,)).fetchone()
        return 3 * iterations / (time.perf_counter() - start)
    finally:
        conn.close()


def run_throughput(iterations: int) -> None:
    from hedron_core.jobs import InMemoryJobBackend, SQLiteJobBackend

    memory = bench_backend(InMemoryJobBackend(), iterations)
    with tempfile.TemporaryDirectory() as tmp:
        with SQLiteJobBackend(Path(tmp) / "b.db") as sqlite:
            sqlite_ops = bench_backend(sqlite, iterations)
        raw = bench_raw_sqlite(Path(tmp) / "raw.db", iterations)
    goal = "meets" if sqlite_ops >= 5000 else "MISSES"
    print(f"== backend throughput: {iterations} x (submit + mark + get)")
    print(f"in-memory : {memory:10.0f} ops/s")
    print(f"sqlite    : {sqlite_ops:10.0f} ops/s  ({goal} the 5,000 ops/s goal)")
    print(f"raw       : {raw:10.0f} ops/s  (plain sqlite3, minimal table: this machine's ceiling)")
    ratios = f"in-memory/sqlite {memory / sqlite_ops:.1f}x, sqlite/raw {sqlite_ops / raw:.2f}"
    print(f"ratios    : {ratios}")


# --- the server process -------------------------------------------------------------------


def serve(port: int, db: str) -> None:
    """Run the status app on 127.0.0.1:port (the child process of the load test)."""
    import secrets

    import uvicorn
    from starlette.responses import Response

    from hedron import Hedron
    from hedron.jobs import job_status_response
    from hedron_core.jobs import SQLiteJobBackend

    backend = SQLiteJobBackend(db)
    app = Hedron(title="bench", session_secret=secrets.token_urlsafe(48), job_backend=backend)

    @app.get("/jobs/{job_id}/status")
    def status(job_id: str) -> Response:
        return job_status_response(backend.get(job_id, **SCOPE), **SCOPE)

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _prepare(db: str, count: int) -> list[str]:
    """Jobs in every state, one per poller."""
    from hedron_core.jobs import JobState, SQLiteJobBackend

    ids = []
    with SQLiteJobBackend(db) as backend:
        for i in range(count):
            job = backend.submit("bench", {"i": i}, **SCOPE)
            if i % 3 == 1:
                backend.mark(job.id, JobState.RUNNING)
                backend.progress(job.id, 1, 3, "working")
            elif i % 3 == 2:
                backend.mark(job.id, JobState.SUCCEEDED, result={"i": i})
            ids.append(job.id)
    return ids


async def _get(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes) -> int:
    """One keep-alive HTTP/1.1 GET on an open connection; return the status code."""
    writer.write(request)
    await writer.drain()
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("server closed the connection")
    code = int(status_line.split()[1])
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    await reader.readexactly(length)
    return code


async def _poll_load(port: int, ids: list[str], duration: float, interval: float) -> None:
    """``len(ids)`` pollers, each on its own keep-alive connection (a lean asyncio client,
    so the numbers measure the server rather than the client library)."""
    latencies: list[float] = []
    errors: list[str] = []
    counts = {200: 0, 286: 0}
    connected = asyncio.Event()  # every poller has its connection: the window starts
    deadline = 0.0
    waiting = len(ids)

    async def poller(job_id: str) -> None:
        nonlocal deadline, waiting
        request = (
            f"GET /jobs/{job_id}/status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "HX-Request: true\r\n\r\n"
        ).encode()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        waiting -= 1
        if not waiting:
            deadline = time.monotonic() + duration
            connected.set()
        await connected.wait()
        try:
            first = True  # each poller asks at least once, however late it starts
            while first or time.monotonic() < deadline:
                first = False
                t0 = time.perf_counter()
                try:
                    code = await _get(reader, writer, request)
                except (OSError, ValueError, asyncio.IncompleteReadError) as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
                    writer.close()
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
                    continue
                latencies.append(time.perf_counter() - t0)
                if code in counts:
                    counts[code] += 1
                else:
                    errors.append(f"HTTP {code}")
                if interval:
                    await asyncio.sleep(interval)
        finally:
            writer.close()
            await writer.wait_closed()

    await asyncio.gather(*(poller(job_id) for job_id in ids))
    elapsed = time.monotonic() - (deadline - duration)

    total = len(latencies)
    latencies.sort()
    p50 = statistics.median(latencies) if latencies else float("nan")
    p99 = latencies[int(0.99 * (total - 1))] if latencies else float("nan")
    print(f"== loopback load: {len(ids)} concurrent pollers for {elapsed:.1f} s")
    print(f"requests  : {total} ({total / elapsed:.0f}/s); 200: {counts[200]}, 286: {counts[286]}")
    print(f"latency   : p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")
    print(f"errors    : {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    if errors:
        raise SystemExit(1)


def run_load(pollers: int, duration: float, interval: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "load.db")
        ids = _prepare(db, pollers)
        port = _free_port()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), db], env=env)
        try:
            _wait_ready(port, server)
            asyncio.run(_poll_load(port, ids, duration, interval))
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)


def _wait_ready(port: int, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"server exited with {server.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("server did not start")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=5000, help="backend iterations")
    parser.add_argument("--pollers", type=int, default=200, help="concurrent pollers")
    parser.add_argument("--duration", type=float, default=30.0, help="load test seconds")
    parser.add_argument(
        "--interval", type=float, default=0.0, help="pause between a poller's requests"
    )
    parser.add_argument("--skip-load", action="store_true", help="only the backend numbers")
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(int(args.serve[0]), args.serve[1])
        return
    run_throughput(args.iterations)
    if not args.skip_load:
        run_load(args.pollers, args.duration, args.interval)


if __name__ == "__main__":
    main()
