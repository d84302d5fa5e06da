"""A recipe's app in a process of its own, each request it answers told to the parent.

Run by :mod:`replay.stack` for a recipe with a ``[real]`` table::

    python -m docsite.replay.recording_server app:app PORT FD [OUTPUT_FD]

The process imports the libraries at once, then waits for a line on stdin before it imports
the app and listens on 127.0.0.1:PORT: a restart's new process has Python and the libraries
loaded ahead, and starts the app itself at the restart's time, as a warm machine would. The
app runs under uvicorn behind the same recorder middleware as every other run
(``tryit._record.RecordingApp``); each request becomes JSON lines on the file descriptor FD:
``{"arrived": t}``, then ``{"answered": [t, method, path, status, body, content_type, region,
error]}``
(``t`` in wall-clock seconds), and ``{"ready": true}`` once the app listens. Ctrl+C (SIGINT)
stops it as it stops uvicorn: the app's shutdown runs, then the process exits.

OUTPUT_FD, for a recipe run with ``python client.py``, is the read end of the client's
standard output: as each request arrives, what the client printed before it becomes
``{"printed": line}`` messages ahead of the request's, so each ``> `` line keeps its place
between the requests however late the parent reads them (an answer is told before it is
sent, so a line printed on reading it always comes after it).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import socket
import sys
import threading
import time
from typing import Any


def printed_lines(fd: int) -> list[str]:
    """The lines a client has printed into the pipe ``fd`` so far, read without waiting (the
    last one even without its newline: a client sends its next request only once its
    ``print`` has returned)."""
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    text = b"".join(chunks).decode("utf-8", "replace")
    return [line.rstrip("\r") for line in text.splitlines()]


class _Told:
    """What ``RecordingApp`` calls on its recorder, written to the parent instead."""

    def __init__(self, fd: int, output: int | None = None) -> None:
        self._out = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
        self._output = output
        self._lock = threading.Lock()

    def tell(self, message: dict[str, Any]) -> None:
        with self._lock:
            self._out.write(json.dumps(message) + "\n")
            self._out.flush()

    def arrived(self, at: float | None = None) -> float:
        if self._output is not None:
            for line in printed_lines(self._output):
                self.tell({"printed": line})
        now = time.time() if at is None else at
        self.tell({"arrived": now})
        return now

    def answered(
        self,
        at: float,
        method: str,
        path: str,
        status: int,
        body: str,
        content_type: str,
        region: str = "",
        error: str = "",
    ) -> None:
        self.tell({"answered": [at, method, path, status, body, content_type, region, error]})


def main(argv: list[str]) -> int:
    target, port, fd = argv[1], int(argv[2]), int(argv[3])
    output = int(argv[4]) if len(argv) > 4 else None
    import fastapi  # noqa: F401  (loaded ahead: only the app's own import waits for the start)
    import uvicorn

    import hedron  # noqa: F401
    from tryit._record import RecordingApp
    from tryit._server import static_prefix

    told = _Told(fd, output)
    if not sys.stdin.readline():  # the start (or, at the end of its stdin, no start)
        return 0
    module, _, name = target.partition(":")
    app = getattr(importlib.import_module(module), name)
    recorded = RecordingApp(app, told, skip=static_prefix(app))  # type: ignore[arg-type]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)  # connections wait here until uvicorn has started the app
    told.tell({"ready": True})
    config = uvicorn.Config(recorded, log_level="warning", access_log=False)
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
