"""The async flavour of the easy way: await a verb with a timeout."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from typing import Any

from resq import Requests
from resq.http import AsyncResponse


async def main(client: Requests[Coroutine[Any, Any, AsyncResponse]]) -> AsyncResponse:
    r = await client.get("/job/42", timeout=30, delay=2)  # polls; the loop stays free
    print(r.status_code, r.text)
    return r


async def run(base_url: str) -> None:
    async with Requests(base_url, adapter="httpx", timeout=5) as client:
        await main(client)


if __name__ == "__main__":
    asyncio.run(run(os.environ.get("BASE_URL", "http://127.0.0.1:8000")))
