"""Answer 503 (not a crash, not a bare 500) while Redis is down."""

from __future__ import annotations

import logging
from typing import Any

from hedron_core.jobs.redis_backend import RedisUnavailableError

__all__ = ["UNAVAILABLE_DETAIL", "install_unavailable_handler"]

log = logging.getLogger("hedron.jobs")

UNAVAILABLE_DETAIL = "Job status is temporarily unavailable; please retry shortly."
"""What clients see while Redis is down (the Redis address only goes to the log)."""


def install_unavailable_handler(app: Any, *, retry_after_s: int = 5) -> None:
    """Make ``app`` answer ``503`` + ``Retry-After`` when the job store cannot be reached.

    The full error (which Redis, which operation) is logged on the server; clients get
    :data:`UNAVAILABLE_DETAIL` so internal addresses never leak. Pollers (htmx ``Poll``, resq)
    keep polling through a 503 and recover once Redis is back.

    Args:
        app: A FastAPI/Starlette application (``Hedron`` included).
        retry_after_s: The ``Retry-After`` value in seconds.

    Example:
        ```python
        app = Hedron(job_backend=jobs.backend)
        install_unavailable_handler(app)
        ```
    """
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response

    if isinstance(retry_after_s, bool) or not isinstance(retry_after_s, int) or retry_after_s < 0:
        raise ValueError(f"retry_after_s must be an int >= 0, got {retry_after_s!r}")

    async def handler(request: Request, exc: Exception) -> Response:
        log.error("%s %s: %s", request.method, request.url.path, exc)
        return JSONResponse(
            {"detail": UNAVAILABLE_DETAIL},
            status_code=503,
            headers={"Retry-After": str(retry_after_s), "Cache-Control": "no-store"},
        )

    app.add_exception_handler(RedisUnavailableError, handler)
