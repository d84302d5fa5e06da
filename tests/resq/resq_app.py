"""The FastAPI app the resq tests poll (count-based, deterministic; no timing but /slow)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import anyio
from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse

app = FastAPI()
calls: dict[str, list[dict[str, Any]]] = defaultdict(list)


async def _record(key: str, request: Request) -> int:
    calls[key].append(
        {
            "method": request.method,
            "query": str(request.url.query),
            "body": (await request.body()).decode("latin-1"),
            "cookie": request.cookies.get("sid"),
            "header": request.headers.get("x-test"),
        }
    )
    return len(calls[key])


@app.api_route("/job/{key}", methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
async def job(key: str, request: Request, fail: int = 503, n: int = 0) -> Response:
    """Answer ``fail`` for the first ``n`` calls, then 200 with JSON."""
    count = await _record(key, request)
    if count <= n:
        if fail == 304:
            return Response(status_code=304)
        return JSONResponse({"state": "pending", "attempt": count}, status_code=fail)
    return JSONResponse({"state": "done", "attempt": count})


@app.api_route("/job/{key}", methods=["HEAD"])
async def job_head(key: str, request: Request, fail: int = 503, n: int = 0) -> Response:
    count = await _record(key, request)
    return Response(status_code=fail if count <= n else 200)


@app.get("/state/{key}")
async def state(key: str, request: Request, n: int = 0) -> JSONResponse:
    """Always 200; the JSON state is "running" for the first ``n`` calls, then "done"."""
    count = await _record(key, request)
    return JSONResponse({"state": "running" if count <= n else "done", "attempt": count})


@app.get("/ra/{key}")
async def retry_after(key: str, request: Request, n: int = 1, after: str = "1") -> JSONResponse:
    """503 with ``Retry-After: after`` for the first ``n`` calls, then 200."""
    count = await _record(key, request)
    if count <= n:
        return JSONResponse({"attempt": count}, status_code=503, headers={"Retry-After": after})
    return JSONResponse({"attempt": count})


@app.get("/slow")
async def slow(s: float = 2.0) -> JSONResponse:
    """Answer after ``s`` seconds (read timeouts)."""
    await anyio.sleep(s)
    return JSONResponse({"slept": s})


@app.get("/login")
async def login() -> JSONResponse:
    response = JSONResponse({"ok": True})
    response.set_cookie("sid", "abc")
    return response


@app.get("/calls/{key}")
async def get_calls(key: str) -> JSONResponse:
    """What the server received for ``key`` (not counted)."""
    return JSONResponse(calls[key])


@app.get("/echo/{rest:path}")
async def echo(rest: str, request: Request) -> JSONResponse:
    return JSONResponse({"path": request.url.path, "query": str(request.url.query)})
