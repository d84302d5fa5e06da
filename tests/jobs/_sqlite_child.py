"""Child process for the SQLite durability tests (run as a script, never imported by pytest).

Usage: python _sqlite_child.py DB MODE [ARGS...]

- ``submit-then-run DB COUNT``: submit COUNT jobs, print each acknowledged id (flushed),
  then run them on a thread pool whose task sleeps forever (the parent kills us).
- ``work DB SECONDS``: print ``ready``, wait for a line on stdin (so that every worker starts
  at once), then run a thread-pool worker on DB for up to SECONDS, until no job is left.
- ``submit DB COUNT TAG``: submit COUNT jobs tagged TAG and print their ids.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time

from hedron_core.jobs import SQLiteJobBackend, TaskContext, ThreadPoolRunner

SCOPE = {"auth_subject": "alice", "tenant_id": "acme"}


async def forever(ctx: TaskContext) -> None:
    ctx.progress(0, 1, "started")
    await ctx.sleep(3600)


async def record(ctx: TaskContext) -> dict[str, object]:
    await ctx.sleep(0.001)
    return {"pid": os.getpid(), "i": ctx.payload["i"]}


def main() -> None:
    db, mode = sys.argv[1], sys.argv[2]
    backend = SQLiteJobBackend(db)
    if mode == "submit-then-run":
        for i in range(int(sys.argv[3])):
            job = backend.submit("slow", {"i": i}, **SCOPE)
            print(job.id, flush=True)
        runner = ThreadPoolRunner(backend, {"slow": forever}, lease_s=1.0)
        time.sleep(3600)
        runner.stop()
    elif mode == "work":
        print("ready", flush=True)
        sys.stdin.readline()  # the parent says go once every worker is ready
        deadline = time.monotonic() + float(sys.argv[3])
        with ThreadPoolRunner(backend, {"record": record}, max_workers=2) as runner:
            while time.monotonic() < deadline and _remaining(db):
                runner.wait_idle(timeout=0.2)
    elif mode == "submit":
        for i in range(int(sys.argv[3])):
            job = backend.submit("record", {"i": i, "tag": sys.argv[4]}, **SCOPE)
            print(job.id, flush=True)
    backend.close()


def _remaining(db: str) -> int:
    conn = sqlite3.connect(db, timeout=10)
    try:
        row = conn.execute(
            "SELECT COUNT(*) FROM hedron_jobs WHERE state IN ('queued', 'running')"
        ).fetchone()
    finally:
        conn.close()
    return int(row[0])


if __name__ == "__main__":
    main()
