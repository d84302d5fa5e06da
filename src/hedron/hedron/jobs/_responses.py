"""Status answers for a job: an htmx fragment (286 when finished), JSON, a resq-pollable result."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from fastapi.responses import HTMLResponse, JSONResponse
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from hedron_core import Component, render
from hedron_core.htmx import STOP_POLLING_STATUS
from hedron_core.jobs import JobStatus, job_status_view
from hedron_core.jobs._types import _require_text

__all__ = [
    "RESULT_NOT_READY_STATUS",
    "JobStatusResponse",
    "job_result_response",
    "job_status_response",
    "prefers_json",
]

RESULT_NOT_READY_STATUS: Final = 409
"""What :func:`job_result_response` answers while a job is not finished (``409 Conflict``).

A non-2xx status, so ``resq``'s ``client.get(url, timeout=..., delay=...)`` keeps polling
with both of its engines (``202`` would be a success and stop it)."""

NOT_FOUND_TEXT: Final = "Job not found"


def prefers_json(accept: str | None) -> bool:
    """Whether an ``Accept`` header asks for JSON rather than HTML.

    JSON wins when ``application/json`` has a higher ``q`` than ``text/html``; wildcards
    (``*/*``, what browsers and htmx send) choose HTML.

    Example:
        >>> prefers_json("application/json")
        True
        >>> prefers_json("text/html, application/json;q=0.9")
        False
        >>> prefers_json("*/*")
        False
    """
    if not accept:
        return False
    best = {"application/json": 0.0, "text/html": 0.0}
    for part in accept.split(","):
        media, *params = (p.strip() for p in part.split(";"))
        media = media.lower()
        if media not in best:
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        best[media] = max(best[media], q)
    return best["application/json"] > 0 and best["application/json"] > best["text/html"]


class JobStatusResponse(Response):
    """An HTML fragment by default, JSON when the request prefers it (chosen when sent).

    Attributes ``status_code``, ``body`` and ``headers`` describe the HTML variant;
    :attr:`json_response` is the JSON variant.
    """

    def __init__(
        self,
        html: HTMLResponse,
        json_response: JSONResponse,
        *,
        htmx_status_code: int | None = None,
    ) -> None:
        super().__init__(
            content=html.body, status_code=html.status_code, media_type=html.media_type
        )
        self.raw_headers = list(html.raw_headers)
        self.json_response = json_response
        #: Status of the HTML variant for an htmx request, when it differs (a missing job:
        #: 286, so a polling element shows "not found" and stops instead of polling forever).
        self.htmx_status_code = htmx_status_code

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        accept = None
        htmx = False
        for name, value in scope.get("headers", []):
            if name == b"accept":
                accept = value.decode("latin-1")
            elif name == b"hx-request":
                htmx = value == b"true"
        if prefers_json(accept):
            await self.json_response(scope, receive, send)
            return
        if htmx and self.htmx_status_code is not None:
            self.status_code = self.htmx_status_code
        await super().__call__(scope, receive, send)


def _headers(status: JobStatus | None, retry_after_s: int) -> dict[str, str]:
    headers = {"Cache-Control": "no-store", "Vary": "Accept, HX-Request"}
    if status is not None and not status.terminal:
        headers["Retry-After"] = str(retry_after_s)
    return headers


def _visible(status: JobStatus | None, auth_subject: str, tenant_id: str) -> JobStatus | None:
    _require_text(auth_subject, "auth_subject", "job_status_response")
    _require_text(tenant_id, "tenant_id", "job_status_response")
    if status is None:
        return None
    if not isinstance(status, JobStatus):
        raise TypeError(
            f"job_status_response(status=...) must be a JobStatus or None, "
            f"got {type(status).__name__}"
        )
    return status if status.owned_by(auth_subject, tenant_id) else None


def _check_retry(retry_after_s: object, where: str) -> int:
    if isinstance(retry_after_s, bool) or not isinstance(retry_after_s, int):
        raise TypeError(
            f"{where}(retry_after_s=...) must be an int, got {type(retry_after_s).__name__}"
        )
    if retry_after_s < 0:
        raise ValueError(f"{where}(retry_after_s=...) must be >= 0, got {retry_after_s}")
    return retry_after_s


def job_status_response(
    status: JobStatus | None,
    *,
    auth_subject: str,
    tenant_id: str,
    retry_after_s: int = 2,
    result_view: Callable[[JobStatus], Component] | None = None,
    view: Callable[[JobStatus], Component] | None = None,
) -> JobStatusResponse:
    """Answer a job-status request: an htmx fragment, or JSON when the client asks for it.

    - HTML (default): the job's status fragment (tone and message per state, progress while
      RUNNING, the error text when FAILED). ``200`` while the job is not finished (with
      ``Retry-After``), **``286`` once it is terminal** — htmx swaps that last answer into
      the ``Poll`` and stops polling.
    - JSON (``Accept: application/json``): ``status.to_public_dict()`` with ``200`` (and
      ``Retry-After`` while not finished).
    - A job of another subject or tenant answers exactly like a missing one (``None``):
      ``404`` with the same body; to an htmx request the same body with ``286``, so a ``Poll``
      shows "not found" and stops (e.g. after a restart emptied an in-memory backend)
      instead of polling forever.
    - Always ``Cache-Control: no-store``.

    Args:
        status: The job, as returned by the scoped ``backend.get(...)`` (or ``None``).
        auth_subject: The caller's subject; the job must belong to it.
        tenant_id: The caller's tenant; the job must belong to it.
        retry_after_s: Seconds advertised in ``Retry-After`` while the job runs.
        result_view: Renders a SUCCEEDED job's result inside the fragment.
        view: Replaces the whole fragment (default ``hedron_core.jobs.job_status_view``).

    Example:
        >>> @app.get("/jobs/{job_id}/status")  # doctest: +SKIP
        ... def job_status(job_id: str, request: Request):
        ...     scope = current_scope(request)
        ...     return job_status_response(backend.get(job_id, **scope), **scope)
    """
    retry = _check_retry(retry_after_s, "job_status_response")
    for name, hook in (("result_view", result_view), ("view", view)):
        if hook is not None and not callable(hook):
            raise TypeError(
                f"job_status_response({name}=...) must be callable (status) -> Component, "
                f"got {type(hook).__name__}"
            )
    visible = _visible(status, auth_subject, tenant_id)
    headers = _headers(visible, retry)
    if visible is None:
        html = HTMLResponse(render(_not_found_view()), status_code=404, headers=headers)
        payload: dict[str, Any] = {"detail": NOT_FOUND_TEXT}
        return JobStatusResponse(
            html,
            JSONResponse(payload, status_code=404, headers=headers),
            htmx_status_code=STOP_POLLING_STATUS,
        )
    component = (
        view(visible) if view is not None else job_status_view(visible, result_view=result_view)
    )
    code = STOP_POLLING_STATUS if visible.terminal else 200
    html = HTMLResponse(render(component), status_code=code, headers=headers)
    return JobStatusResponse(
        html, JSONResponse(visible.to_public_dict(), status_code=200, headers=headers)
    )


def job_result_response(
    status: JobStatus | None,
    *,
    auth_subject: str,
    tenant_id: str,
    retry_after_s: int = 2,
) -> JSONResponse:
    """A result endpoint ``resq`` can wait on: non-2xx until the job is finished.

    - not finished: ``409`` (:data:`RESULT_NOT_READY_STATUS`) with ``Retry-After`` and the
      job's public JSON (state, progress);
    - finished (any terminal state): ``200`` with the public JSON, whose ``result`` holds
      the job's result (``state`` tells SUCCEEDED from FAILED/CANCELLED, ``error`` the why);
    - missing or another scope's job: the same ``404``.

    So ``client.get(url, timeout=30, delay=2)`` returns as soon as the job ends.

    Example:
        >>> @app.get("/jobs/{job_id}/result")  # doctest: +SKIP
        ... def result(job_id: str, request: Request):
        ...     scope = current_scope(request)
        ...     return job_result_response(backend.get(job_id, **scope), **scope)
    """
    retry = _check_retry(retry_after_s, "job_result_response")
    visible = _visible(status, auth_subject, tenant_id)
    headers = _headers(visible, retry)
    if visible is None:
        return JSONResponse({"detail": NOT_FOUND_TEXT}, status_code=404, headers=headers)
    code = 200 if visible.terminal else RESULT_NOT_READY_STATUS
    return JSONResponse(visible.to_public_dict(), status_code=code, headers=headers)


def _not_found_view() -> Component:
    from hedron_core.components import Status

    return Status(NOT_FOUND_TEXT, tone="error")


def dumps(value: Any) -> str:
    """Compact JSON (used by the SSE helper)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
