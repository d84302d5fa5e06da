"""A recipe's real run, in processes of its own, as a reader runs it.

The recipe's files are copied into a temporary folder (a SQLite file or anything else the app
writes stays there) and everything runs in that folder, on loopback:

1. for a recipe with a ``[real]`` table, the services it names: ``redis``, a real
   ``redis-server`` on a free port, whose URL is ``HEDRON_REDIS_URL`` for every process after
   it;
2. the table's workers (Celery, RQ), each waited for until it prints its ``ready`` text;
3. the app (``server.py`` or ``app.py``), under uvicorn in a process of its own
   (:mod:`replay.recording_server`) behind the same recorder as every run, its jobs on
   ``local_runner``'s threads as under ``uvicorn app:app``; with ``restart``, it is stopped at
   ``stop`` seconds as Ctrl+C stops it, and started again at ``start`` (``# t=...`` lines in
   the transcript say when).

A process of its own, not a thread of the caller's: many runs go side by side, and on a busy
machine apps sharing one interpreter delayed each other's jobs past a poll.

The client (``python client.py``, or the page in Chromium) is the caller's
(:mod:`replay.real`). Every process is stopped at the end, whatever happened.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import IO, Any

from docsite.testing.processes import ManagedProcess
from docsite.testing.redis_server import RedisServer, free_port
from tryit._record import Recorder
from tryit.recipe import Recipe

START_TIMEOUT_S = 60.0  # a worker or the app on a busy machine
STOP_TIMEOUT_S = 15.0


@dataclass(frozen=True)
class Served:
    """Where a real run's app answers, the folder it runs in and the run's environment."""

    base_url: str
    folder: Path
    env: dict[str, str]


class AppProcess:
    """The recipe's app under uvicorn in a process of its own, its requests recorded (and,
    given ``output``, the read end of the client's standard output, what the client printed
    before each)."""

    def __init__(
        self,
        recipe: Recipe,
        served: Served,
        recorder: Recorder,
        port: int,
        log: IO[bytes],
        output: int | None = None,
    ) -> None:
        self.recipe, self.served, self.recorder, self.port = recipe, served, recorder, port
        self._output = output
        self._proc: subprocess.Popen[bytes] | None = None
        self._ready = threading.Event()
        self._reader: threading.Thread | None = None
        self._log = log

    def spawn(self) -> None:
        """Start the process: Python and the libraries load; the app waits for :meth:`go`."""
        read, write = os.pipe()
        env = {**self.served.env, "PYTHONPATH": os.pathsep.join(self._pythonpath())}
        self._ready.clear()
        self._proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "docsite.replay.recording_server",
                f"{Path(self.recipe.app_file).stem}:app",
                str(self.port),
                str(write),
                *([] if self._output is None else [str(self._output)]),
            ],
            cwd=self.served.folder,
            env=env,
            stdin=subprocess.PIPE,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            pass_fds=(write,) if self._output is None else (write, self._output),
            start_new_session=True,
        )
        os.close(write)
        self._reader = threading.Thread(target=self._read, args=(read,), daemon=True)
        self._reader.start()

    def _pythonpath(self) -> list[str]:
        extra = self.served.env.get("PYTHONPATH", "")
        return [str(self.served.folder), *([extra] if extra else [])]

    def go(self) -> None:
        """Import the app and listen; returns once it listens (bounded)."""
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise RuntimeError("go() before spawn()")
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
        if not self._ready.wait(START_TIMEOUT_S):
            raise RuntimeError(f"{self.recipe.name}: the app did not start\n{self.log()}")

    def _read(self, fd: int) -> None:
        with os.fdopen(fd, encoding="utf-8") as told:
            for line in told:
                message: dict[str, Any] = json.loads(line)
                if "ready" in message:
                    self._ready.set()
                elif "printed" in message:
                    self.recorder.printed(message["printed"])
                elif "arrived" in message:
                    self.recorder.arrived(message["arrived"])
                else:
                    self.recorder.answered(*message["answered"])

    def stop(self) -> None:
        """Ctrl+C: SIGINT, then wait (bounded) until it has exited and told everything."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()  # a process still waiting for its start ends here
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            proc.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(STOP_TIMEOUT_S)
        if self._reader is not None:
            self._reader.join(STOP_TIMEOUT_S)

    def log(self) -> str:
        """What the process printed (its errors)."""
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-3000:]


def _restarts(
    apps: tuple[AppProcess, AppProcess],
    recorder: Recorder,
    done: threading.Event,
    failed: list[BaseException],
) -> None:
    try:
        _restart(*apps, recorder, done)
    except BaseException as exc:  # raised by real_stack when the run is over
        failed.append(exc)


def _restart(
    app: AppProcess, standby: AppProcess, recorder: Recorder, done: threading.Event
) -> None:
    """Stop the app at ``restart.stop`` and start ``standby`` (a new process, its Python and
    libraries loaded since the run began) at ``restart.start``, both in seconds from the run's
    time origin."""
    restart = app.recipe.real.restart if app.recipe.real else None
    if restart is None or not recorder.wait_for_origin(START_TIMEOUT_S):
        return
    for at, act in ((restart.stop, "stop"), (restart.start, "start")):
        if done.wait(max(0.0, recorder.origin_time() + at - time.time())):
            return  # the run is over
        if act == "stop":
            recorder.event(at, "the server stops (Ctrl+C)")
            app.stop()
        else:
            recorder.event(at, "the server starts again")
            standby.go()


def _environment(recipe: Recipe, folder: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("HEDRON_JOB_RUNNER", None)  # local_runner picks threads, as under uvicorn
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(dict(recipe.real.env if recipe.real else ()))
    return env


@contextlib.contextmanager
def real_stack(
    recipe: Recipe, recorder: Recorder, client_output: int | None = None
) -> Iterator[Served]:
    """The recipe's services and workers (its ``[real]`` table's) and its app, running; where
    the app answers. ``client_output``: the read end of the pipe the caller's client will
    print into (:class:`AppProcess`)."""
    real = recipe.real
    services = real.services if real is not None else ()
    workers = real.workers if real is not None else ()
    restart = real.restart if real is not None else None
    with tempfile.TemporaryDirectory(prefix=f"real-{recipe.name}-") as tmp:
        folder = Path(tmp) / recipe.name
        shutil.copytree(recipe.folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
        env = _environment(recipe, folder)
        with contextlib.ExitStack() as stack:
            if "redis" in services:
                env["HEDRON_REDIS_URL"] = stack.enter_context(RedisServer()).url
            for i, worker in enumerate(workers):
                argv = [Template(word).safe_substitute(env) for word in worker.argv]
                proc = ManagedProcess(f"{recipe.name}-worker{i}", argv, env, cwd=folder)
                stack.callback(proc.close)
                proc.wait_for_log(worker.ready, timeout=START_TIMEOUT_S)
            port = free_port()
            served = Served(f"http://127.0.0.1:{port}", folder, env)
            log = stack.enter_context(tempfile.TemporaryFile())
            app = AppProcess(recipe, served, recorder, port, log, client_output)
            stack.callback(app.stop)
            app.spawn()
            standby = AppProcess(recipe, served, recorder, port, log, client_output)  # restart's
            if restart is not None:
                stack.callback(standby.stop)
                standby.spawn()
            app.go()
            failed: list[BaseException] = []
            done = threading.Event()
            apps = (app, standby)
            thread = threading.Thread(target=_restarts, args=(apps, recorder, done, failed))
            if restart is not None:
                thread.start()
            try:
                yield served
            finally:
                done.set()
                if thread.is_alive():
                    thread.join(STOP_TIMEOUT_S * 2)
            if failed:
                raise RuntimeError(f"{recipe.name}: the restart failed: {failed[0]!r}\n{app.log()}")
