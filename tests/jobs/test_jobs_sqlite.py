"""SQLiteJobBackend durability: restarts, ``kill -9`` mid-run, several processes on one file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hedron_core.jobs import JobState, SQLiteJobBackend, TaskContext, ThreadPoolRunner

HERE = Path(__file__).resolve().parent
CHILD = HERE / "_sqlite_child.py"
SCOPE = {"auth_subject": "alice", "tenant_id": "acme"}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "jobs.db"


@pytest.fixture
def backend(db: Path) -> Iterator[SQLiteJobBackend]:
    with SQLiteJobBackend(db) as b:
        yield b


def _wait_for(condition: Any, timeout: float = 15.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"{what} not met within {timeout}s")


def _child(*args: str, stdin: int | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), *args],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_uses_wal_and_refuses_memory_databases(backend: SQLiteJobBackend, db: Path) -> None:
    mode = backend._conn().execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    with pytest.raises(ValueError, match="path"):
        SQLiteJobBackend(":memory:")
    with pytest.raises(ValueError, match="synchronous"):
        SQLiteJobBackend(db, synchronous="SOMETIMES")
    with pytest.raises(TypeError, match="path"):
        SQLiteJobBackend(42)  # type: ignore[arg-type]


def test_a_restart_keeps_every_job_and_its_state(db: Path) -> None:
    with SQLiteJobBackend(db) as first:
        queued = first.submit("demo", {"n": 1}, **SCOPE, idempotency_key="k1")
        running = first.mark(first.submit("demo", {"n": 2}, **SCOPE).id, JobState.RUNNING)
        running = first.progress(running.id, 1, 2, "half")
        done = first.mark(
            first.submit("demo", {"n": 3}, **SCOPE).id, JobState.SUCCEEDED, result={"ok": 1}
        )
    with SQLiteJobBackend(db) as second:
        for before in (queued, running, done):
            assert second.get(before.id, **SCOPE) == before
        assert second.submit("demo", {"n": 1}, **SCOPE, idempotency_key="k1").id == queued.id


def test_closed_backend_refuses_calls(db: Path) -> None:
    backend = SQLiteJobBackend(db)
    backend.close()
    backend.close()
    with pytest.raises(RuntimeError, match="closed"):
        backend.submit("demo", {}, **SCOPE)


def test_kill_9_mid_run_loses_no_acknowledged_job(db: Path) -> None:
    child = _child(str(db), "submit-then-run", "20")
    try:
        assert child.stdout is not None
        acked = [child.stdout.readline().strip() for _ in range(20)]
        assert all(acked)
        with SQLiteJobBackend(db) as watcher:
            _wait_for(
                lambda: (s := watcher.load(acked[0])) is not None and s.progress is not None,
                what="the child to be running the first job",
            )
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        child.stdout.close()  # type: ignore[union-attr]
        child.stderr.close()  # type: ignore[union-attr]
    assert child.returncode == -signal.SIGKILL

    async def finish(ctx: TaskContext) -> dict[str, Any]:
        await ctx.sleep(0)
        return {"i": ctx.payload["i"], "attempt": ctx.attempt}

    with SQLiteJobBackend(db) as backend:
        states = {backend.get(job_id, **SCOPE).state for job_id in acked}  # type: ignore[union-attr]
        assert JobState.RUNNING in states
        assert states <= {JobState.QUEUED, JobState.RUNNING}
        with ThreadPoolRunner(backend, {"slow": finish}, max_workers=4) as runner:
            _wait_for(
                lambda: all(backend.load(j).terminal for j in acked),  # type: ignore[union-attr]
                what="every acknowledged job to finish after the crash",
            )
            runner.stop()
        results = [backend.load(j) for j in acked]
        assert [r.state for r in results] == [JobState.SUCCEEDED] * 20  # type: ignore[union-attr]
        assert sorted(r.result["i"] for r in results) == list(range(20))  # type: ignore[union-attr,index]
        resumed = [r for r in results if r.attempts == 2]  # type: ignore[union-attr]
        assert resumed, "the job running at the kill was resumed as attempt 2"
        assert all(r.result["attempt"] == r.attempts for r in results)  # type: ignore[union-attr,index]


def test_several_processes_share_one_file_and_run_each_job_once(db: Path) -> None:
    with SQLiteJobBackend(db):
        pass
    submitters = [_child(str(db), "submit", "40", f"s{i}") for i in range(3)]
    outs = []
    for proc in submitters:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        outs.extend(line for line in out.split() if line)
    assert len(outs) == 120
    assert len(set(outs)) == 120
    workers = [_child(str(db), "work", "40", stdin=subprocess.PIPE) for _ in range(3)]
    for proc in workers:  # every worker has imported everything: none starts ahead
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
    for proc in workers:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in workers:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    with SQLiteJobBackend(db) as backend:
        jobs = [backend.load(j) for j in outs]
    assert all(j is not None and j.state is JobState.SUCCEEDED for j in jobs)
    assert all(j.attempts == 1 for j in jobs)  # type: ignore[union-attr]
    pids = {j.result["pid"] for j in jobs}  # type: ignore[union-attr,index]
    assert len(pids) >= 2, "work was spread over several processes"


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


JOBS = 16


@pytest.mark.slow
def test_several_uvicorn_workers_share_the_sqlite_backend(db: Path) -> None:
    import httpx

    with SQLiteJobBackend(db):
        pass
    port = _free_port()
    env = {**os.environ, "JOBS_TEST_DB": str(db)}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "_multiworker_app:app",
            "--app-dir",
            str(HERE),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "2",
            "--log-level",
            "warning",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        base = f"http://127.0.0.1:{port}"

        def up() -> bool:
            try:
                return httpx.get(base + "/jobs/x/result", timeout=1).status_code == 404
            except httpx.HTTPError:
                return False

        _wait_for(up, timeout=30, what="uvicorn --workers 2 to answer")
        ids: dict[int, str] = {}
        web_pids: set[int] = set()
        # "Connection: close": a new connection per request, so both processes take some.
        with httpx.Client(base_url=base, timeout=10, headers={"Connection": "close"}) as client:
            for i in range(JOBS):
                answer = client.post("/jobs", json={"i": i}).json()
                ids[i] = answer["id"]
                web_pids.add(answer["pid"])
                # The same idempotency key answers the same job from any process.
                assert client.post("/jobs", json={"i": i}).json()["id"] == ids[i]
            # Which process accepts a connection is the kernel's choice; under load one may
            # take a long run of them. Resubmit (idempotent) until both have answered.
            for n in range(400):
                if len(web_pids) == 2:
                    break
                answer = client.post("/jobs", json={"i": n % JOBS}).json()
                assert answer["id"] == ids[n % JOBS]
                web_pids.add(answer["pid"])

        def finished() -> list[dict[str, Any]] | None:
            with httpx.Client(base_url=base, timeout=10) as client:
                answers = [client.get(f"/jobs/{ids[i]}/result") for i in range(JOBS)]
            if any(a.status_code != 200 for a in answers):
                return None
            return [a.json() for a in answers]

        results = _wait_for(finished, timeout=30, what="every job to finish")
    finally:
        server.terminate()
        _, err = server.communicate(timeout=20)
    assert all(r["state"] == "succeeded" for r in results)
    assert [r["result"]["i"] for r in results] == list(range(JOBS))
    with SQLiteJobBackend(db) as backend:
        assert all(backend.load(ids[i]).attempts == 1 for i in range(JOBS))  # type: ignore[union-attr]
        assert len(backend) == JOBS
    assert len(web_pids) == 2, f"requests reached only {web_pids}: {err}"
