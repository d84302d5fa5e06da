"""Real worker and web processes of a scaled-out deployment: loopback only, bounded, always
stopped."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx

from docsite.paths import REPO
from docsite.testing import processes
from docsite.testing.processes import wait_until

VENV_BIN = Path(sys.executable).parent


class ManagedProcess(processes.ManagedProcess):
    """A process of a scaled-out deployment, run from the repository's root."""

    def __init__(
        self, name: str, argv: list[str], env: Mapping[str, str], *, cwd: Path = REPO
    ) -> None:
        super().__init__(name, argv, env, cwd=cwd)


@contextlib.contextmanager
def managed(name: str, argv: list[str], env: Mapping[str, str]) -> Iterator[ManagedProcess]:
    proc = ManagedProcess(name, argv, env)
    try:
        yield proc
    finally:
        proc.close()


def celery_argv(app: str, queue: str, *, hostname: str, pool: str = "solo") -> list[str]:
    """A Celery worker running one task at a time: by default a single process (solo pool,
    fast start); ``pool="prefork"`` is the production set-up (a parent and a pool child)."""
    return [
        str(VENV_BIN / "celery"),
        "-A",
        app,
        "worker",
        f"--pool={pool}",
        "--concurrency=1",
        "-Q",
        queue,
        "-n",
        hostname,
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "--loglevel=INFO",
    ]


def rq_argv(redis_url: str, queue: str, *, name: str) -> list[str]:
    """An RQ worker (forks a work horse per job), loopback Redis only."""
    return [
        str(VENV_BIN / "rq"),
        "worker",
        "-u",
        redis_url,
        "-n",
        name,
        "--logging_level",
        "INFO",
        "-c",
        "docsite.testing.scale.rq_settings",
        queue,
    ]


def uvicorn_argv(app: str, port: int) -> list[str]:
    return [
        str(VENV_BIN / "python"),
        "-m",
        "uvicorn",
        app,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-access-log",
        "--log-level",
        "warning",
    ]


def wait_http_ready(base_url: str, path: str = "/healthz", *, timeout: float = 15.0) -> None:
    def ok() -> bool:
        try:
            return httpx.get(base_url + path, timeout=0.5).status_code < 500
        except httpx.HTTPError:
            return False

    wait_until(ok, timeout=timeout, what=f"{base_url}{path} to answer", interval=0.05)
