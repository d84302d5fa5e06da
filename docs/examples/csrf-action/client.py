"""A script posting to the app's actions: refused without the CSRF token, accepted with it."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from typing import Any

from resq import Requests
from resq.http import AsyncResponse


async def main(client: Requests[Coroutine[Any, Any, AsyncResponse]]) -> None:
    # Like a form on another site: a request that does not carry the token.
    r = await client.post("/notes", data={"text": "from elsewhere"})
    print(r.status_code, r.json()["detail"])  # 403: the action never ran

    # The token that goes with this client's cookie (the client keeps its cookies).
    token = (await client.get("/csrf-token")).json()["csrf_token"]
    with_token = {"X-CSRF-Token": token}  # what htmx sends from the page's hx-headers

    r = await client.post("/notes", data={"text": "buy milk"}, headers=with_token)
    print(r.status_code, "saved" if "Saved: buy milk" in r.text else "not saved")

    r = await client.post("/api/notes", json={"text": "call Ann"})
    print(r.status_code, r.json()["detail"])  # the plain route asked for csrf_protect
    r = await client.post("/api/notes", json={"text": "call Ann"}, headers=with_token)
    print(r.status_code, r.json())


async def run(base_url: str) -> None:
    async with Requests(base_url, adapter="httpx", timeout=5) as client:
        await main(client)


if __name__ == "__main__":
    asyncio.run(run(os.environ.get("BASE_URL", "http://127.0.0.1:8000")))
