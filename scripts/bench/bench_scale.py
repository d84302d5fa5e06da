#!/usr/bin/env python
"""Benchmark the scale-out path, side by side in one run (loopback only, real processes).

1. Backend ops/s: ``mark`` + ``get`` on the in-memory, SQLite and Redis backends (Redis also
   with pipelined reads via ``load_many``).
2. End-to-end job latency: ``enqueue`` -> SUCCEEDED seen by a poller, through a real Celery
   worker and a real RQ worker on a real redis-server.

Usage: ``.venv/bin/python scripts/bench/bench_scale.py [--jobs 2000] [--e2e 30]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from docsite.testing.redis_server import running_redis
from docsite.testing.scale.stack import engine_env, start_worker
from docsite.testing.scale.tasks import TASKS
from hedron.integrations import ScaleConfig
from hedron_core.jobs import InMemoryJobBackend, JobBackend, JobState, SQLiteJobBackend
from hedron_core.jobs.redis_backend import RedisJobBackend

SCOPE = {"auth_subject": "bench", "tenant_id": "bench"}


def mark_get_ops(backend: JobBackend, n: int) -> float:
    """ops/s of mark(RUNNING), get, mark(SUCCEEDED), get over ``n`` submitted jobs."""
    ids = [backend.submit("bench", {"i": i}, **SCOPE).id for i in range(n)]
    start = time.perf_counter()
    for job_id in ids:
        backend.mark(job_id, JobState.RUNNING)
        backend.get(job_id, **SCOPE)
        backend.mark(job_id, JobState.SUCCEEDED, result={"ok": True})
        backend.get(job_id, **SCOPE)
    return 4 * n / (time.perf_counter() - start)


def pipelined_get_ops(backend: RedisJobBackend, n: int, batch: int = 100) -> float:
    ids = [backend.submit("bench", {"i": i}, **SCOPE).id for i in range(n)]
    start = time.perf_counter()
    for i in range(0, n, batch):
        backend.load_many(ids[i : i + batch])
    return n / (time.perf_counter() - start)


def plain_get_ops(backend: RedisJobBackend, n: int) -> float:
    ids = [backend.submit("bench", {"i": i}, **SCOPE).id for i in range(n)]
    start = time.perf_counter()
    for job_id in ids:
        backend.get(job_id, **SCOPE)
    return n / (time.perf_counter() - start)


def ping_ops(backend: RedisJobBackend, n: int) -> float:
    """Bare PING round trips/s: the floor under any unpipelined Redis call on this machine."""
    start = time.perf_counter()
    for _ in range(n):
        backend.client.ping()
    return n / (time.perf_counter() - start)


def e2e_latency(engine: str, redis_url: str, runs: int) -> list[float]:
    """Seconds from enqueue to a poller seeing SUCCEEDED, for ``runs`` sequential jobs."""
    prefix = f"bench-{engine}:"
    config = ScaleConfig(redis_url=redis_url, key_prefix=prefix, queue=prefix + "q")
    env = engine_env(engine, redis_url, prefix, queue=config.queue)
    jobs: Any
    if engine == "celery":
        from hedron.integrations.celery import CeleryJobs

        jobs = CeleryJobs(config, TASKS)
    else:
        from hedron.integrations.rq import RQJobs

        jobs = RQJobs(config, TASKS)
    worker = start_worker(engine, env, "bench")
    try:
        latencies: list[float] = []
        for i in range(runs + 2):  # two warm-up jobs
            t0 = time.perf_counter()
            job = jobs.backend.submit("count", {"n": 1, "step_s": 0}, **SCOPE)
            deadline = t0 + 30
            while True:
                status = jobs.backend.load(job.id)
                if status is not None and status.terminal:
                    break
                if time.perf_counter() > deadline:
                    raise TimeoutError(f"{engine}: job {job.id} did not finish in 30 s")
                time.sleep(0.001)
            if status.state is not JobState.SUCCEEDED:
                raise RuntimeError(f"{engine}: job ended {status.state}: {status.error}")
            if i >= 2:
                latencies.append(time.perf_counter() - t0)
        return latencies
    finally:
        worker.close()
        jobs.close()


def _row(name: str, value: float, base: float, unit: str = "ops/s") -> str:
    return f"  {name:<34} {value:>12,.0f} {unit}   ({value / base:5.2f}x in-memory)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2000, help="jobs per backend benchmark")
    parser.add_argument("--e2e", type=int, default=30, help="jobs per engine for latency")
    args = parser.parse_args()
    n = args.jobs
    os.environ.pop("HEDRON_ENV", None)

    with running_redis() as server, tempfile.TemporaryDirectory() as tmp:
        results: dict[str, float] = {}
        results["in-memory"] = mark_get_ops(InMemoryJobBackend(), n)
        sqlite = SQLiteJobBackend(Path(tmp) / "bench.db")
        try:
            results["sqlite (WAL)"] = mark_get_ops(sqlite, n)
        finally:
            sqlite.close()
        redis_backend = RedisJobBackend(server.url, prefix="bench:")
        try:
            results["redis (1 round trip per op)"] = mark_get_ops(redis_backend, n)
            get_plain = plain_get_ops(redis_backend, n)
            get_piped = pipelined_get_ops(redis_backend, n)
            pings = ping_ops(redis_backend, n)
        finally:
            redis_backend.close()

        base = results["in-memory"]
        print(f"mark+get ops/s ({n} jobs x 4 ops: mark RUNNING, get, mark SUCCEEDED, get)")
        for name, value in results.items():
            print(_row(name, value, base))
        print(f"redis round trips (load average now {os.getloadavg()[0]:.1f})")
        print(f"  {'PING (the floor)':<34} {pings:>12,.0f} ops/s")
        print(f"  {'get, one round trip each':<34} {get_plain:>12,.0f} ops/s")
        print(
            f"  {'load_many, pipelined x100':<34} {get_piped:>12,.0f} ops/s"
            f"   ({get_piped / get_plain:5.2f}x unpipelined)"
        )

        print(f"end-to-end latency, enqueue -> SUCCEEDED seen by a poller ({args.e2e} jobs)")
        for engine in ("celery", "rq"):
            lat = sorted(e2e_latency(engine, server.url, args.e2e))
            p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))]
            print(
                f"  {engine:<8} p50 {statistics.median(lat) * 1000:8.1f} ms   "
                f"p95 {p95 * 1000:8.1f} ms   mean {statistics.fmean(lat) * 1000:8.1f} ms"
            )


if __name__ == "__main__":
    main()
