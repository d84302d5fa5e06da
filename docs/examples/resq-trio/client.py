"""The async client under trio: the same awaitable verbs, started with trio.run()."""

from __future__ import annotations

import os
from collections.abc import Coroutine
from typing import Any

from resq import Requests
from resq.http import AsyncResponse


async def main(client: Requests[Coroutine[Any, Any, AsyncResponse]]) -> AsyncResponse:
    # resq pauses through anyio, so under trio.run() this waits with trio's own sleep
    r = await client.get("/job/42", timeout=30, delay=2)
    print(r.status_code, r.text)
    return r


async def run(base_url: str) -> None:
    async with Requests(base_url, adapter="httpx", timeout=5) as client:
        await main(client)


if __name__ == "__main__":
    import trio  # only this entry point needs trio: main() runs under any anyio backend

    trio.run(run, os.environ.get("BASE_URL", "http://127.0.0.1:8000"))
