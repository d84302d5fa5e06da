"""Experimental: job status as Server-Sent Events (prefer Poll + 286, the supported path)."""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Callable
from functools import partial

import anyio
from fastapi.responses import JSONResponse
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from hedron_core.jobs import JobBackend
from hedron_core.jobs._checks import check_key

from .._blocking import run_blocking
from ._binding import check_backend
from ._responses import NOT_FOUND_TEXT, dumps

__all__ = ["job_status_events"]


def job_status_events(
    backend: JobBackend,
    job_id: str,
    *,
    auth_subject: str,
    tenant_id: str,
    interval_s: float = 1.0,
    max_duration_s: float = 300.0,
) -> Response:
    """**Experimental.** Stream a job's status as Server-Sent Events until it finishes.

    Sends ``event: status`` with the job's public JSON whenever it changes, then
    ``event: end`` once the job is terminal (or ``event: timeout`` after ``max_duration_s``)
    and closes. A missing job, or another scope's, is the same ``404`` as
    :func:`job_status_response` gives. The backend is read every ``interval_s`` seconds on
    the server, on a worker thread (never on the event loop, even from an ``async def``
    route); one open connection per watcher. The API may change; for production use
    ``Poll`` with ``job_status_response``.

    Args:
        backend: The job backend.
        job_id: The job to follow.
        auth_subject: The caller's subject.
        tenant_id: The caller's tenant.
        interval_s: Seconds between backend reads.
        max_duration_s: Close the stream after this long.

    Example:
        >>> @app.get("/jobs/{job_id}/events")  # doctest: +SKIP
        ... def events(job_id: str, request: Request):
        ...     return job_status_events(backend, job_id, **current_scope(request))
    """
    check_backend(backend, where="job_status_events(backend=...)")
    check_key(auth_subject, "auth_subject", "job_status_events")
    check_key(tenant_id, "tenant_id", "job_status_events")
    for name, value in (("interval_s", interval_s), ("max_duration_s", max_duration_s)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"job_status_events: {name} must be a number of seconds")
        if not (value > 0 and math.isfinite(value)):
            raise ValueError(f"job_status_events: {name} must be a finite number > 0")
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    read = partial(backend.get, job_id, auth_subject=auth_subject, tenant_id=tenant_id)

    async def stream() -> AsyncIterator[str]:
        deadline = time.monotonic() + max_duration_s
        last = None
        while True:
            status = await run_blocking(read)
            if status is None:  # cleaned up meanwhile
                yield "event: end\ndata: {}\n\n"
                return
            data = dumps(status.to_public_dict())
            if data != last:
                yield f"event: status\ndata: {data}\n\n"
                last = data
            if status.terminal:
                yield "event: end\ndata: {}\n\n"
                return
            if time.monotonic() >= deadline:
                yield "event: timeout\ndata: {}\n\n"
                return
            await anyio.sleep(interval_s)

    return _EventsResponse(
        read,
        JSONResponse({"detail": NOT_FOUND_TEXT}, status_code=404, headers=headers),
        StreamingResponse(stream(), media_type="text/event-stream", headers=headers),
    )


class _EventsResponse(Response):
    """Looks the job up when sent (on a worker thread), then answers 404 or the stream."""

    def __init__(
        self, read: Callable[[], object], missing: Response, events: StreamingResponse
    ) -> None:
        super().__init__(status_code=200, headers=dict(events.headers))
        self._read = read
        self._missing = missing
        self._events = events

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = await run_blocking(self._read)
        await (self._events if found is not None else self._missing)(scope, receive, send)
