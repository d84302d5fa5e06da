"""A recipe's app in a process of its own, each request it answers told to the parent.

Run by :mod:`replay.stack` for a recipe with a ``[real]`` table::

    python -m docsite.replay.recording_server app:app PORT FD

The process imports the libraries at once, then waits for a line on stdin before it imports
the app and listens on 127.0.0.1:PORT: a restart's new process has Python and the libraries
loaded ahead, and starts the app itself at the restart's time, as a warm machine would. The
app runs under uvicorn behind the same recorder middleware as every other run
(``tryit._record.RecordingApp``); each request becomes JSON lines on the file descriptor FD:
``{"arrived": t}``, then ``{"answered": [t, method, path, status, body, content_type, region,
error]}``
(``t`` in wall-clock seconds), and ``{"ready": true}`` once the app listens. Ctrl+C (SIGINT)
stops it as it stops uvicorn: the app's shutdown runs, then the process exits.
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


class _Told:
    """What ``RecordingApp`` calls on its recorder, written to the parent instead."""

    def __init__(self, fd: int) -> None:
        self._out = os.fdopen(fd, "w", buffering=1, encoding="utf-8")
        self._lock = threading.Lock()

    def tell(self, message: dict[str, Any]) -> None:
        with self._lock:
            self._out.write(json.dumps(message) + "\n")
            self._out.flush()

    def arrived(self, at: float | None = None) -> float:
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
    import fastapi  # noqa: F401  (loaded ahead: only the app's own import waits for the start)
    import uvicorn

    import hedron  # noqa: F401
    from tryit._record import RecordingApp
    from tryit._server import static_prefix

    told = _Told(fd)
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
