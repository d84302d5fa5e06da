"""Start the real parts of a scaled-out deployment: workers and uvicorn processes."""

from __future__ import annotations

import contextlib
import secrets
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

from docsite.testing.redis_server import free_port
from docsite.testing.scale.procs import (
    ManagedProcess,
    celery_argv,
    rq_argv,
    uvicorn_argv,
    wait_http_ready,
)

ENGINES = ("celery", "rq")
APP = "docsite.testing.scale.app"  #: the web app and the Celery app: ``APP:app``, ``APP:celery``
READY_TEXT = {"celery": " ready.", "rq": "Listening on"}
WORKER_START_S = 45.0
#: The session secret every web process of the test deployments shares.
SECRET = secrets.token_urlsafe(48)


def engine_env(
    engine: str,
    redis_url: str,
    prefix: str,
    *,
    queue: str | None = None,
    lease_s: float = 30.0,
    max_attempts: int = 3,
) -> dict[str, str]:
    """The environment every process of one deployment shares."""
    return {
        "HEDRON_TEST_ENGINE": engine,
        "HEDRON_REDIS_URL": redis_url,
        "HEDRON_JOBS_PREFIX": prefix,
        "HEDRON_JOBS_QUEUE": queue or f"{prefix}queue",
        "HEDRON_TEST_LEASE_S": str(lease_s),
        "HEDRON_TEST_MAX_ATTEMPTS": str(max_attempts),
        "HEDRON_TEST_SECRET": SECRET,
    }


def worker_argv(engine: str, env: dict[str, str], name: str, *, pool: str = "solo") -> list[str]:
    """The command of a worker; ``name`` gets a unique suffix (RQ refuses duplicate names,
    even of a killed worker whose registration has not expired)."""
    queue = env["HEDRON_JOBS_QUEUE"]
    name = f"{name}-{uuid.uuid4().hex[:6]}"
    if engine == "celery":
        return celery_argv(f"{APP}:celery", queue, hostname=f"{name}@%h", pool=pool)
    return rq_argv(env.get("HEDRON_BROKER_URL") or env["HEDRON_REDIS_URL"], queue, name=name)


def start_worker(
    engine: str, env: dict[str, str], name: str, *, pool: str = "solo"
) -> ManagedProcess:
    """Start a real worker process; returns once it listens on its queue (bounded)."""
    proc = ManagedProcess(f"{engine}-{name}", worker_argv(engine, env, name, pool=pool), env)
    try:
        proc.wait_for_log(READY_TEXT[engine], timeout=WORKER_START_S)
    except BaseException:
        proc.close()
        raise
    return proc


@dataclass
class Web:
    proc: ManagedProcess
    base_url: str


@dataclass
class Stack:
    engine: str
    env: dict[str, str]
    webs: list[Web] = field(default_factory=list)
    workers: list[ManagedProcess] = field(default_factory=list)


@contextlib.contextmanager
def stack(engine: str, env: dict[str, str], *, webs: int = 2, workers: int = 1) -> Iterator[Stack]:
    """``webs`` uvicorn processes and ``workers`` worker processes, all stopped at exit."""
    st = Stack(engine, env)
    with contextlib.ExitStack() as exits:
        pending: list[ManagedProcess] = []
        for i in range(workers):
            proc = ManagedProcess(f"{engine}-w{i}", worker_argv(engine, env, f"w{i}"), env)
            exits.callback(proc.close)
            st.workers.append(proc)
            pending.append(proc)
        for _ in range(webs):
            port = free_port()
            proc = ManagedProcess(f"web-{port}", uvicorn_argv(f"{APP}:app", port), env)
            exits.callback(proc.close)
            st.webs.append(Web(proc, f"http://127.0.0.1:{port}"))
        for proc in pending:
            proc.wait_for_log(READY_TEXT[engine], timeout=WORKER_START_S)
        for web in st.webs:
            try:
                wait_http_ready(web.base_url, timeout=30)
            except TimeoutError as exc:
                raise TimeoutError(f"{exc}\n{web.proc.log()[-3000:]}") from None
        yield st
