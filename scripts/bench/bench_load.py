#!/usr/bin/env python3
"""A small wrk-style HTTP/1.1 load generator, run in its own process by ``bench_hedron.py``.

It keeps ``connections`` keep-alive connections to one server busy, each sending the next
``GET`` as soon as the previous answer is complete, for a fixed time, and reports how many
answers came back, how long that took and how much CPU time the *server* process spent in
that window (read with psutil from the server's pid, so the measurement window is exactly
the load window). Every answer's status is checked.

It is driven over stdin/stdout, one JSON object a line, so one generator serves every round::

    {"port": 8000, "path": "/status", "cookie": "...", "seconds": 3, "pid": 1234}
    -> {"count": 9000, "wall": 3.0, "server_cpu": 2.9, "bad": 0}

Run directly (``python scripts/bench/bench_load.py``) it reads such lines until end of input.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

import psutil

CONNECTIONS = 32
WARMUP_S = 0.3


class _Conn(asyncio.Protocol):
    """One keep-alive connection: sends ``request``, waits for the whole answer, repeats."""

    def __init__(self, request: bytes, stats: dict[str, Any]) -> None:
        self.request = request
        self.stats = stats
        self.buffer = b""
        self.need = -1  # bytes of the current answer (head + body), once the head is in
        self.transport: asyncio.Transport | None = None
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            if self.need < 0:
                end = self.buffer.find(b"\r\n\r\n")
                if end < 0:
                    return
                head = self.buffer[:end].lower()
                at = head.find(b"content-length:")
                length = 0
                if at >= 0:
                    eol = head.find(b"\r\n", at)
                    length = int(head[at + 15 : eol if eol >= 0 else end])
                self.need = end + 4 + length
                self.status = int(self.buffer[9:12])
            if len(self.buffer) < self.need:
                return
            self.buffer = self.buffer[self.need :]
            self.need = -1
            stats = self.stats
            if stats["timing"]:
                stats["count"] += 1
                if self.status != 200:
                    stats["bad"] += 1
            if stats["stop"]:
                assert self.transport is not None
                self.transport.close()
                return
            assert self.transport is not None
            self.transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


async def run(
    port: int, path: str, cookie: str, seconds: float, pid: int, connections: int = CONNECTIONS
) -> dict[str, Any]:
    """Load ``127.0.0.1:port`` with ``GET path`` for ``seconds``; the counts and server CPU."""
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: */*\r\n"
        f"User-Agent: bench-load\r\nCookie: {cookie}\r\n\r\n"
    ).encode("latin-1")
    stats: dict[str, Any] = {"count": 0, "bad": 0, "timing": False, "stop": False}
    loop = asyncio.get_running_loop()
    conns = []
    for _ in range(connections):
        _, proto = await loop.create_connection(lambda: _Conn(request, stats), "127.0.0.1", port)
        conns.append(proto)
    server = psutil.Process(pid)
    await asyncio.sleep(WARMUP_S)
    cpu_before = sum(server.cpu_times()[:2])
    start = time.perf_counter()
    stats["timing"] = True
    await asyncio.sleep(seconds)
    stats["timing"] = False
    wall = time.perf_counter() - start
    cpu = sum(server.cpu_times()[:2]) - cpu_before
    stats["stop"] = True
    await asyncio.wait_for(asyncio.gather(*(c.closed for c in conns)), 10)
    return {"count": stats["count"], "bad": stats["bad"], "wall": wall, "server_cpu": cpu}


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        result = asyncio.run(
            run(job["port"], job["path"], job["cookie"], job["seconds"], job["pid"])
        )
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
