"""``TaskFlow``: submit form → status region that polls → result view → optional cancel."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from fastapi import Request
from pydantic import BaseModel
from starlette.responses import Response

from hedron_core import Component
from hedron_core._base import check_required_id
from hedron_core._html import check_path_prefix
from hedron_core.components import (
    Alert,
    Button,
    ComponentRef,
    Form,
    Poll,
    Region,
    Stack,
)
from hedron_core.htmx import check_interval_ms
from hedron_core.jobs import JobBackend, JobScope, JobStatus, job_status_view
from hedron_core.jobs._checks import check_key, check_text

from .._blocking import run_blocking
from ._binding import check_backend
from ._enqueue import SubmitPolicy, _as_scope, authorize_submit
from ._responses import job_status_response
from ._taskflow_keywords import PollPolicy, keyword_form, legacy_attribute, scope_caller

__all__ = ["PollPolicy", "ScopeResolver", "TaskFlow"]

ScopeResolver = Callable[[Request], JobScope | Mapping[str, str] | None]
"""``scope(request) -> JobScope | None``: the caller's identity, from your own auth."""

_SLUG = re.compile(r"[^a-z0-9-]+")
_CSRF_FIELD = "csrf_token"


class TaskFlow:
    """A ready-made job UI: a submit form, a status region that polls, the result, a cancel.

    Mount it on a :class:`~hedron.Hedron` app and put :meth:`form` on any page. Submitting
    (CSRF-protected) checks :func:`~hedron.jobs.authorize_submit` with the explicit identity
    returned by ``scope(request)``, enqueues the job and swaps the form for a ``Poll`` of
    the job's status; the status endpoint answers ``286`` once the job is finished, so
    polling stops on the final view (the result for SUCCEEDED, the error text for FAILED).
    While the job is not finished a *Cancel* button asks the backend to stop it; on the
    final view a *Start another* button brings the form back.

    Routes (``path`` defaults to ``/tasks/<job_type>``): ``POST {path}`` submits,
    ``GET {path}/{job_id}/status`` answers the status, ``POST {path}/{job_id}/cancel``
    cancels, ``GET {path}/form`` answers a fresh form (what *Start another* fetches). Status
    and cancel are scoped: another identity's job is a 404 like a missing one.

    Args:
        job_type: The job type to submit (a task name of your runner or workers).
        scope: ``scope(request)`` returns the caller's ``JobScope`` (or a mapping with
            ``auth_subject`` and ``tenant_id``), or ``None`` when not signed in (401).
        fields: Form fields (``Field(...)`` components) shown above the submit button.
        payload: Turns the submitted form fields (a ``dict[str, str]``) into the job's
            payload; raise ``ValueError`` to show the message next to the form.
        backend: The job backend (default: the app's ``job_backend`` at :meth:`mount`).
        runner: An optional local runner (``ThreadPoolRunner``/``SteppingRunner``); it is
            woken after each submit. Leave ``None`` when separate workers run the jobs.
        policy: ``policy(scope, job_type, payload) -> bool`` for ``authorize_submit``.
        result_view: Renders a SUCCEEDED job's result (default: its JSON).
        cancel: Offer a Cancel button while the job is not finished.
        restart: Offer a *Start another* button on the final view (any terminal state).
        poll_interval_ms: How often the status region polls, in milliseconds (1 to
            ``2**31 - 1``, the browser's longest timer).
        submit_label: The submit button's text.
        path: Root-relative URL prefix of the flow's routes.
        name: Element-id prefix (default: derived from ``job_type``).
        input_model: A pydantic model instead of ``fields``: one form field per model field;
            the submitted form is validated into the model (errors shown next to the form)
            and ``payload(instance)`` (default: the instance as JSON) is the job's payload.
        authorize_submit: A FastAPI dependency (``Depends(check)``, or a plain callable) run
            before every route of the flow; raise ``HTTPException`` in it to refuse.
        result: ``result(value)`` renders a SUCCEEDED job's result value (instead of
            ``result_view``, which gets the whole status).
        poll: A :class:`PollPolicy` instead of ``poll_interval_ms``.

    ``scope`` may also take no argument (``scope=lambda: JobScope(...)``).

    Example:
        >>> flow = TaskFlow(  # doctest: +SKIP
        ...     "resize",
        ...     scope=lambda request: JobScope(request.session["user"], "acme"),
        ...     fields=[Field("Steps", Input("steps", type="number", value="3"))],
        ...     payload=lambda form: {"steps": int(form["steps"])},
        ...     runner=runner,
        ... )
        >>> flow.mount(app)  # doctest: +SKIP
        >>> @app.page("/")  # doctest: +SKIP
        ... def home() -> Page:
        ...     return Page(flow.form(), title="Resize")
    """

    def __init__(
        self,
        job_type: str,
        *,
        scope: ScopeResolver | Callable[[], JobScope | Mapping[str, str] | None],
        fields: Sequence[Component] = (),
        payload: Callable[[dict[str, str]], Any] | None = None,
        backend: JobBackend | None = None,
        runner: Any = None,
        policy: SubmitPolicy | None = None,
        result_view: Callable[[JobStatus], Component] | None = None,
        cancel: bool = True,
        restart: bool = True,
        poll_interval_ms: int = 1000,
        submit_label: str = "Start",
        path: str | None = None,
        name: str | None = None,
        input_model: type[BaseModel] | None = None,
        authorize_submit: Any = None,
        result: Callable[[Any], Component | str] | None = None,
        poll: PollPolicy | None = None,
    ) -> None:
        check_key(job_type, "job_type", "TaskFlow")
        if not callable(scope):
            raise TypeError("TaskFlow: scope must be a callable scope(request) -> JobScope | None")
        if isinstance(fields, str) or not isinstance(fields, Sequence):
            raise TypeError(
                f"TaskFlow: fields must be a sequence of components, got {type(fields).__name__}"
            )
        given = keyword_form(
            fields=fields, payload=payload, result_view=result_view,
            poll_interval_ms=poll_interval_ms, input_model=input_model, result=result,
            poll=poll, authorize_submit=authorize_submit,
        )  # fmt: skip
        fields, payload, result_view = given.fields, given.payload, given.result_view
        poll_interval_ms = given.poll_interval_ms
        for label, hook in (("payload", payload), ("policy", policy), ("result_view", result_view)):
            if hook is not None and not callable(hook):
                raise TypeError(f"TaskFlow: {label} must be callable, got {type(hook).__name__}")
        for i, field in enumerate(fields):
            if not isinstance(field, Component):
                raise TypeError(f"TaskFlow: fields[{i}] must be a Component")
        if backend is not None:
            check_backend(backend, where="TaskFlow(backend=...)")
        check_interval_ms(poll_interval_ms, where="TaskFlow(poll_interval_ms=...)")
        slug = _SLUG.sub("-", job_type.lower()).strip("-")
        if not slug[:1].isalpha():  # element ids start with a letter
            slug = f"task-{slug}".rstrip("-")
        self.job_type = job_type
        self.scope = scope_caller(scope)
        self.dependencies = list(given.dependencies)
        self.fields = tuple(fields)
        self.payload = payload
        self.backend = backend
        self.runner = runner
        self.policy = policy
        self.result_view = result_view
        self.cancel = bool(cancel)
        self.restart = bool(restart)
        self.poll_interval_ms = poll_interval_ms
        self.submit_label = check_text(submit_label, "submit_label", "TaskFlow")
        if path is not None and not isinstance(path, str):
            raise TypeError(f"TaskFlow: path must be a str, got {type(path).__name__}")
        self.path = (path or f"/tasks/{slug}").rstrip("/")
        check_path_prefix(self.path, where="TaskFlow(path=...)", example="/tasks/resize")
        if name is not None:
            check_required_id(name, where="TaskFlow(name=...)")
        self.name = name or slug[:50]
        self.region_id = check_required_id(f"{self.name}-flow", where="TaskFlow(name=...)")
        self.status_id = check_required_id(f"{self.name}-status", where="TaskFlow(name=...)")

    if not TYPE_CHECKING:  # type checkers keep reporting unknown attributes themselves

        def __getattr__(self, name: str) -> Any:
            raise legacy_attribute(type(self).__name__, name)

    # --- components ----------------------------------------------------------------------

    def form(self, *, error: str | None = None) -> Component:
        """The flow's region with its submit form (put it on a page)."""
        return Region(self._form(error), id=self.region_id, label=self.job_type)

    def _form(self, error: str | None) -> Component:
        parts: list[Component] = []
        if error:
            parts.append(Alert(error, tone="error"))
        form = Form(
            *self.fields,
            Button(self.submit_label, type="submit"),
            action=self.path,
            target=f"#{self.region_id}",
            swap="innerHTML",
        )
        parts.append(form)
        return Stack(*parts, gap="sm")

    def status_view(self, status: JobStatus) -> Component:
        """What the polled status region shows for ``status``: with a Cancel button while the
        job is not finished (``cancel``), with a Start another button once it is (``restart``).
        """
        view = job_status_view(status, result_view=self.result_view or _default_result)
        if status.terminal:
            if not self.restart:
                return view
            again = ComponentRef(
                logical_id=self.region_id, path=f"{self.path}/form", method="GET", swap="innerHTML"
            )
            return Stack(view, Button("Start another", variant="secondary", ref=again), gap="sm")
        if not self.cancel or status.cancel_requested:
            return view
        ref = ComponentRef(
            logical_id=self.status_id,
            path=f"{self.path}/{status.id}/cancel",
            method="POST",
            swap="innerHTML",
        )
        return Stack(view, Button("Cancel", variant="secondary", ref=ref), gap="sm")

    def _poll(self, status: JobStatus) -> Component:
        ref = ComponentRef(logical_id=self.status_id, path=f"{self.path}/{status.id}/status")
        return Poll(ref=ref, interval_ms=self.poll_interval_ms, content=self.status_view(status))

    # --- routes --------------------------------------------------------------------------

    def mount(self, app: Any) -> None:
        """Register the flow's routes on a :class:`~hedron.Hedron` app."""
        if not callable(getattr(app, "action", None)):
            raise TypeError("TaskFlow.mount(app=...) must be a hedron.Hedron application")
        if self.backend is None:
            bound = getattr(app, "job_backend", None)
            if bound is None:
                raise ValueError(
                    "TaskFlow.mount: no backend; pass TaskFlow(backend=...) or create the app "
                    "with Hedron(job_backend=...)"
                )
            self.backend = check_backend(bound, where="Hedron(job_backend=...)")
        flow = self

        async def submit(request: Request) -> Component:
            return await flow._submit(request)

        # The backend is called on a worker thread: a slow backend (a SQLite write lock held
        # by another process, a Redis that stalls) must not stall every request of the app.
        async def status(job_id: str, request: Request) -> Response:
            return await run_blocking(partial(flow._status, job_id, request, cancel=False))

        async def cancel(job_id: str, request: Request) -> Response:
            return await run_blocking(partial(flow._status, job_id, request, cancel=True))

        async def form() -> Component:
            return flow._form(None)

        def route(register: Any, suffix: str, kind: str, handler: Any, **extra: Any) -> None:
            register(
                f"{flow.path}{suffix}",
                name=f"{flow.name}-{kind}",
                dependencies=flow.dependencies,
                **extra,
            )(handler)

        route(app.action, "", "submit", submit)
        route(app.action, "/form", "form", form, methods=("GET",))
        route(app.get, "/{job_id}/status", "status", status)
        route(app.action, "/{job_id}/cancel", "cancel", cancel)

    async def _submit(self, request: Request) -> Component:
        form = await request.form()
        fields = {k: v for k, v in form.items() if isinstance(v, str) and k != _CSRF_FIELD}
        return await run_blocking(partial(self._submit_fields, request, fields))

    def _submit_fields(self, request: Request, fields: dict[str, str]) -> Component:
        scope = authorize_submit(_as_scope(self.scope(request)), self.job_type, fields)
        try:
            payload = self.payload(fields) if self.payload is not None else fields
        except ValueError as exc:
            return self._form(str(exc))
        if self.policy is not None:
            authorize_submit(scope, self.job_type, payload, policy=self.policy)
        assert self.backend is not None
        status = self.backend.submit(self.job_type, payload, **scope.as_kwargs())
        wake = getattr(self.runner, "wake", None)
        if callable(wake):
            wake()
        return self._poll(status)

    def _status(self, job_id: str, request: Request, *, cancel: bool) -> Response:
        assert self.backend is not None
        scope = _as_scope(self.scope(request))
        if scope is None:
            return job_status_response(None, auth_subject="-", tenant_id="-")
        kwargs = scope.as_kwargs()
        found = self.backend.request_cancel(job_id, **kwargs) if cancel else None
        if found is None:  # not a cancel, or none recorded (a finished job): show the job
            found = self.backend.get(job_id, **kwargs)
        return job_status_response(
            found,
            auth_subject=scope.auth_subject,
            tenant_id=scope.tenant_id,
            view=self.status_view,
        )


def _default_result(status: JobStatus) -> Component:
    from hedron_core.jobs import job_result_view

    return job_result_view(status)
