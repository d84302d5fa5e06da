"""Status answers for a job: an htmx fragment (286 when finished), JSON, a resq-pollable result."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, Final

from fastapi.responses import HTMLResponse, JSONResponse
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from hedron_core import Component, render
from hedron_core.htmx import STOP_POLLING_STATUS
from hedron_core.jobs import JobProgress, JobState, JobStatus, job_status_view
from hedron_core.jobs._checks import MAX_RETRY_AFTER_S, shown
from hedron_core.jobs._machine import validate_scope
from hedron_core.jobs._types import DEFAULT_RETRY_AFTER_S

from ._answers import AnswerCache, StatusAnswer

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


# Clients send the same few Accept headers on every poll: each is parsed once (a long one,
# which no browser sends, every time: the remembered values stay small).
_remembered_prefers_json = functools.lru_cache(maxsize=256)(prefers_json)


def _prefers_json(accept: str) -> bool:
    return _remembered_prefers_json(accept) if len(accept) <= 256 else prefers_json(accept)


class JobStatusResponse(Response):
    """An HTML fragment by default, JSON when the request prefers it (chosen when sent).

    Attributes ``status_code``, ``body`` and ``headers`` describe the HTML variant;
    :attr:`json_response` is the JSON variant (built when first needed).
    """

    media_type = "text/html"

    def __init__(
        self,
        html: HTMLResponse,
        json_response: JSONResponse,
        *,
        htmx_status_code: int | None = None,
    ) -> None:
        self._answer(html.body, html.status_code, list(html.raw_headers), htmx_status_code)
        self._json: JSONResponse | None = json_response
        self._json_args: tuple[Callable[[], Any], int, dict[str, str]] | None = None

    def _answer(
        self,
        body: bytes | memoryview,
        status_code: int,
        raw_headers: list[tuple[bytes, bytes]],
        htmx_status_code: int | None,
    ) -> None:
        self.status_code = status_code
        self.background = None
        self.body = body
        self.raw_headers = raw_headers
        #: Status of the HTML variant for an htmx request, when it differs (a missing job:
        #: 286, so a polling element shows "not found" and stops instead of polling forever).
        self.htmx_status_code = htmx_status_code

    @classmethod
    def _lazy(
        cls,
        answer: StatusAnswer,
        payload: Callable[[], Any],
        json_status_code: int,
        json_headers: dict[str, str],
        *,
        htmx_status_code: int | None = None,
    ) -> JobStatusResponse:
        """The HTML ``answer`` whose JSON variant is made from ``payload()`` only when a
        request asks for it (most polls are htmx's, which take the HTML)."""
        self = cls.__new__(cls)
        # The response's own list: a handler may still change its headers.
        self._answer(answer.body, answer.status_code, list(answer.raw_headers), htmx_status_code)
        self._json = None
        self._json_args = (payload, json_status_code, json_headers)
        return self

    @property
    def json_response(self) -> JSONResponse:
        """The JSON variant (``status.to_public_dict()``, or the not-found detail)."""
        if self._json is None:
            assert self._json_args is not None
            payload, code, headers = self._json_args
            self._json = JSONResponse(payload(), status_code=code, headers=headers)
        return self._json

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        accept = None
        htmx = False
        for name, value in scope.get("headers", []):
            if name == b"accept":
                accept = value.decode("latin-1")
            elif name == b"hx-request":
                htmx = value == b"true"
        if accept is not None and _prefers_json(accept):
            await self.json_response(scope, receive, send)
            return
        if htmx and self.htmx_status_code is not None:
            self.status_code = self.htmx_status_code
        await super().__call__(scope, receive, send)


_HTML_TYPE = (b"content-type", b"text/html; charset=utf-8")


class _Headers:
    """The headers of a status answer, as a mapping and as ASGI pairs (made once)."""

    __slots__ = ("mapping", "raw")

    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping
        self.raw = tuple(
            (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in mapping.items()
        )


@functools.lru_cache(maxsize=64)
def _headers(running: bool, retry_after_s: int) -> _Headers:
    """``Cache-Control`` and ``Vary`` always, ``Retry-After`` while the job runs."""
    headers = {"Cache-Control": "no-store", "Vary": "Accept, HX-Request"}
    if running:
        headers["Retry-After"] = str(retry_after_s)
    return _Headers(headers)


def _headers_for(status: JobStatus | None, retry_after_s: int) -> _Headers:
    return _headers(status is not None and not status.terminal, retry_after_s)


def _visible(
    status: JobStatus | None, auth_subject: str, tenant_id: str, where: str
) -> JobStatus | None:
    validate_scope(auth_subject, tenant_id, where)
    if status is None:
        return None
    if not isinstance(status, JobStatus):
        raise TypeError(
            f"{where}(status=...) must be a JobStatus or None, got {type(status).__name__}"
        )
    return status if status.owned_by(auth_subject, tenant_id) else None


def _check_retry(retry_after_s: object, where: str) -> int:
    """Whole seconds for ``Retry-After``: an int from 0 to :data:`MAX_RETRY_AFTER_S`."""
    if isinstance(retry_after_s, bool) or not isinstance(retry_after_s, int):
        raise TypeError(
            f"{where}(retry_after_s=...) must be an int (whole seconds), "
            f"got {type(retry_after_s).__name__}"
        )
    if not 0 <= retry_after_s <= MAX_RETRY_AFTER_S:
        raise ValueError(
            f"{where}(retry_after_s=...) must be between 0 and {MAX_RETRY_AFTER_S:,} "
            f"(one day), got {shown(retry_after_s)}"
        )
    return retry_after_s


def job_status_response(
    status: JobStatus | None,
    *,
    auth_subject: str,
    tenant_id: str,
    retry_after_s: int = DEFAULT_RETRY_AFTER_S,
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
        retry_after_s: Seconds advertised in ``Retry-After`` while the job runs: an int from
            0 to 86,400 (one day).
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
    # on every request, cached or not:
    visible = _visible(status, auth_subject, tenant_id, "job_status_response")
    if visible is None:
        return JobStatusResponse._lazy(
            _not_found_answer(),
            _not_found_payload,
            404,
            _headers(False, retry).mapping,
            htmx_status_code=STOP_POLLING_STATUS,
        )
    headers = _headers_for(visible, retry)
    look = _look(visible) if view is None else None
    if look is None:  # a custom view (it may read more than the job), or a finished job
        if visible.terminal and type(visible.id) is str:  # polling stops: free its slot
            _ANSWERS.discard((visible.id, auth_subject, tenant_id, retry))
        component = (
            view(visible) if view is not None else job_status_view(visible, result_view=result_view)
        )
        code = STOP_POLLING_STATUS if visible.terminal else 200
        answer = _make_answer(render(component), code, headers)
    else:
        # The caller owns the job (checked above) and is part of the key: an answer is only
        # ever reused for the same caller's same job, shown the same way.
        key = (visible.id, auth_subject, tenant_id, retry)
        cached = _ANSWERS.get(key, look)
        if cached is None:
            cached = _make_answer(render(job_status_view(visible)), 200, headers)
            _ANSWERS.put(key, look, cached)
        answer = cached
    return JobStatusResponse._lazy(answer, visible.to_public_dict, 200, headers.mapping)


#: How many jobs' last status answers are remembered (about 1 KB each).
ANSWER_CACHE_SIZE: Final = 4096
_ANSWERS = AnswerCache(ANSWER_CACHE_SIZE)


def _look(status: JobStatus) -> tuple[object, ...] | None:
    """What the default view of a job that is not finished shows: its state, whether a
    cancel was asked for and its progress (the view reads nothing else of such a job).

    ``None`` (render afresh) for a finished job (answered once: htmx stops polling) and for
    values a custom backend may hand over that the view could show differently although
    they compare equal (a subclass, a plain ``str`` for the state, a non-str id).
    """
    state = status.state
    if type(status) is not JobStatus or type(state) is not JobState or state.terminal:
        return None
    progress = status.progress
    if type(status.id) is not str or (progress is not None and type(progress) is not JobProgress):
        return None
    return (state, status.cancel_requested, progress)


def _make_answer(html: str, status_code: int, headers: _Headers) -> StatusAnswer:
    body = html.encode("utf-8")
    raw = (*headers.raw, (b"content-length", str(len(body)).encode()), _HTML_TYPE)
    return StatusAnswer(body, status_code, raw)


@functools.cache
def _not_found_answer() -> StatusAnswer:
    """The answer for a missing job (or another scope's): always the same bytes."""
    return _make_answer(render(_not_found_view()), 404, _headers(False, 0))


def job_result_response(
    status: JobStatus | None,
    *,
    auth_subject: str,
    tenant_id: str,
    retry_after_s: int = DEFAULT_RETRY_AFTER_S,
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
    visible = _visible(status, auth_subject, tenant_id, "job_result_response")
    headers = _headers_for(visible, retry).mapping
    if visible is None:
        return JSONResponse(_not_found_payload(), status_code=404, headers=headers)
    code = 200 if visible.terminal else RESULT_NOT_READY_STATUS
    return JSONResponse(visible.to_public_dict(), status_code=code, headers=headers)


def _not_found_payload() -> dict[str, Any]:
    return {"detail": NOT_FOUND_TEXT}


def _not_found_view() -> Component:
    from hedron_core.components import Status

    return Status(NOT_FOUND_TEXT, tone="error")


def dumps(value: Any) -> str:
    """Compact JSON (used by the SSE helper)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
