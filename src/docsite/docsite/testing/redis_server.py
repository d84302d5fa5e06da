"""A real ``redis-server`` on a free loopback port, for tests and benchmarks.

``RedisServer`` starts Debian's ``redis-server`` (``scripts/bootstrap`` installs it) bound to
127.0.0.1 with a private temporary directory, waits until it answers ``PING``, and always stops
it (``SHUTDOWN NOSAVE``, then SIGTERM, then SIGKILL, each with a deadline). Persistence is off
by default (no RDB snapshots, no AOF), so a restart loses every key; pass ``persistence=True``
to turn on an fsync-always append-only file, so a restart keeps acknowledged writes.

Use it as a context manager (the test suite shares one through its ``redis_server`` fixture)::

    with RedisServer() as server:
        client = redis.Redis.from_url(server.url)
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 5.0


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ping(port: int, timeout: float = 0.5) -> bool:
    """Speak just enough RESP to send PING and read +PONG (no redis-py needed)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(b"*1\r\n$4\r\nPING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _send(port: int, *args: str, timeout: float = 1.0) -> None:
    """Send one command and ignore the reply (used for SHUTDOWN, which closes the socket)."""
    payload = f"*{len(args)}\r\n".encode()
    for arg in args:
        raw = arg.encode()
        payload += b"$%d\r\n%s\r\n" % (len(raw), raw)
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout) as s:
        s.sendall(payload)
        with contextlib.suppress(OSError):
            s.recv(64)


class RedisServer:
    """One ``redis-server`` process on loopback; restartable on the same port.

    Args:
        persistence: ``True`` keeps data across restarts (append-only file, fsync always);
            ``False`` (default) keeps nothing on disk.
        port: the port to bind; a free one is chosen when omitted.
        executable: the ``redis-server`` binary (found on ``PATH`` by default).
        extra_args: more ``redis-server`` options, e.g. ``("--min-replicas-to-write", "1")``
            for a server that refuses every write.
    """

    def __init__(
        self,
        *,
        persistence: bool = False,
        port: int | None = None,
        executable: str | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        exe = executable or shutil.which("redis-server") or "/usr/bin/redis-server"
        if not Path(exe).exists():
            raise RuntimeError(
                "redis-server is not installed; run scripts/bootstrap "
                "(it installs Debian's redis-server)"
            )
        self.executable = exe
        self.persistence = persistence
        self.extra_args = tuple(extra_args)
        self.port = port or free_port()
        self._tmp = tempfile.TemporaryDirectory(prefix="hedron-redis-")
        self.dir = Path(self._tmp.name)
        self._proc: subprocess.Popen[bytes] | None = None
        self._log = self.dir / "redis.log"

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:<port>/0``."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def running(self) -> bool:
        """Whether the process is alive."""
        return self._proc is not None and self._proc.poll() is None

    def _argv(self) -> list[str]:
        argv = [
            self.executable,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.dir),
            "--logfile",
            str(self._log),
            "--daemonize",
            "no",
            "--protected-mode",
            "yes",
            "--save",
            "",
        ]
        if self.persistence:
            argv += ["--appendonly", "yes", "--appendfsync", "always"]
        else:
            argv += ["--appendonly", "no"]
        return argv + list(self.extra_args)

    def start(self) -> RedisServer:
        """Start the server and wait (bounded) until it answers PING."""
        if self.running:
            return self
        self._proc = subprocess.Popen(
            self._argv(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                break
            if _ping(self.port):
                return self
            time.sleep(0.02)
        log = self._log.read_text(errors="replace") if self._log.exists() else ""
        self.stop()
        raise RuntimeError(f"redis-server did not start on port {self.port}:\n{log[-2000:]}")

    def stop(self) -> None:
        """Stop the server: SHUTDOWN NOSAVE, then SIGTERM, then SIGKILL (each bounded)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            _send(self.port, "SHUTDOWN", "NOSAVE")
            try:
                proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(STOP_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        else:
            proc.wait()

    def kill(self) -> None:
        """SIGKILL the server (a crash: nothing is flushed beyond what fsync already wrote)."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()

    def restart(self) -> None:
        """Stop and start again on the same port and directory."""
        self.stop()
        self.start()

    def close(self) -> None:
        """Stop the server and remove its directory."""
        self.stop()
        self._tmp.cleanup()

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def running_redis(
    *, persistence: bool = False, extra_args: tuple[str, ...] = ()
) -> Iterator[RedisServer]:
    """Context manager: a started :class:`RedisServer`, always closed afterwards."""
    server = RedisServer(persistence=persistence, extra_args=extra_args)
    try:
        yield server.start()
    finally:
        server.close()
