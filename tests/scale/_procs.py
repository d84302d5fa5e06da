"""Real worker and web processes for the scale tests: loopback only, bounded, always stopped."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
HERE = Path(__file__).resolve().parent


def wait_until(
    condition: Callable[[], object], *, timeout: float, what: str, interval: float = 0.02
) -> object:
    """Poll ``condition`` until it returns a truthy value; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


class ManagedProcess:
    """A subprocess with its output in a temp log file; ``stop()`` is bounded and idempotent."""

    def __init__(
        self, name: str, argv: list[str], env: Mapping[str, str], *, cwd: Path = HERE
    ) -> None:
        self.name = name
        self.argv = argv
        self._logdir = tempfile.TemporaryDirectory(prefix=f"hedron-{name}-")
        self.log_path = Path(self._logdir.name) / "out.log"
        self._log = self.log_path.open("wb")
        full_env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
        path = os.pathsep.join([str(cwd), str(HERE), str(ROOT), full_env.get("PYTHONPATH", "")])
        full_env["PYTHONPATH"] = path
        self.proc = subprocess.Popen(
            argv,
            cwd=str(cwd),
            env=full_env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log(self) -> str:
        """Everything the process wrote so far."""
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait_for_log(self, text: str, *, timeout: float) -> None:
        """Wait until ``text`` appears in the output (fails early if the process exits)."""

        def seen() -> bool:
            if text in self.log():
                return True
            if not self.alive():
                raise RuntimeError(f"{self.name} exited early:\n{self.log()[-3000:]}")
            return False

        try:
            wait_until(seen, timeout=timeout, what=f"{self.name} to print {text!r}")
        except TimeoutError as exc:
            raise TimeoutError(f"{exc}\n{self.log()[-3000:]}") from None

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` to the process and every descendant (RQ's work horse runs in its own
        session, so the process group alone would miss it)."""
        try:
            children = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            children = []
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, sig)
        for child in children:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.send_signal(sig)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM the group, wait, then SIGKILL; close the log file."""
        if self.alive():
            self.kill_group(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill_group(signal.SIGKILL)
                self.proc.wait(timeout)
        else:
            self.proc.wait()
        # Children of a killed leader may linger in the group; reap them as well.
        self.kill_group(signal.SIGKILL)
        if not self._log.closed:
            self._log.close()

    def close(self) -> None:
        self.stop()
        self._logdir.cleanup()


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
        "rq_settings",
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
