"""Which job backend a request uses: bound per app, visible to ``enqueue_durable``."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from hedron_core.jobs import JobBackend

__all__ = ["bind_job_backend", "current_job_backend", "resolve_backend", "use_job_backend"]

_current: contextvars.ContextVar[JobBackend | None] = contextvars.ContextVar(
    "hedron_job_backend", default=None
)

_METHODS = ("submit", "get", "load", "mark", "progress", "request_cancel", "cleanup_expired")


def check_backend(backend: object, *, where: str) -> JobBackend:
    """Raise a ``TypeError`` naming ``where`` unless ``backend`` implements ``JobBackend``."""
    if isinstance(backend, type):
        raise TypeError(
            f"{where} must be a job backend instance, not the class {backend.__name__}; "
            f"pass {backend.__name__}() (with its arguments) instead"
        )
    missing = [m for m in _METHODS if not callable(getattr(backend, m, None))]
    if missing:
        raise TypeError(
            f"{where} must implement hedron_core.jobs.JobBackend "
            f"(missing: {', '.join(missing)}), got {type(backend).__name__}"
        )
    return backend  # type: ignore[return-value]


class _BackendMiddleware:
    """Pure ASGI middleware making ``backend`` the current job backend during a request."""

    def __init__(self, app: ASGIApp, backend: JobBackend) -> None:
        self.app = app
        self.backend = backend

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = _current.set(self.backend)
        try:
            await self.app(scope, receive, send)
        finally:
            _current.reset(token)


def bind_job_backend(app: Any, backend: JobBackend) -> None:
    """Make ``backend`` the job backend of every request ``app`` serves.

    ``Hedron(job_backend=...)`` calls this; call it yourself for a plain FastAPI/Starlette
    app. Inside a request, ``enqueue_durable(...)`` without ``backend=`` then uses it.

    Args:
        app: A Starlette/FastAPI/Hedron application (before it serves its first request).
        backend: The job backend.

    Example:
        >>> from fastapi import FastAPI
        >>> from hedron_core.jobs import InMemoryJobBackend
        >>> bind_job_backend(FastAPI(), InMemoryJobBackend())
    """
    check_backend(backend, where="bind_job_backend(backend=...)")
    if not callable(getattr(app, "add_middleware", None)):
        raise TypeError(f"bind_job_backend(app=...) must be a Starlette app, got {type(app)!r}")
    app.add_middleware(_BackendMiddleware, backend=backend)


def current_job_backend() -> JobBackend | None:
    """The job backend bound to the request being served (or set by ``use_job_backend``)."""
    return _current.get()


@contextlib.contextmanager
def use_job_backend(backend: JobBackend) -> Iterator[JobBackend]:
    """Make ``backend`` current inside the ``with`` block (scripts, tests, workers).

    Example:
        >>> from hedron_core.jobs import InMemoryJobBackend
        >>> with use_job_backend(InMemoryJobBackend()) as backend:
        ...     current_job_backend() is backend
        True
    """
    check_backend(backend, where="use_job_backend(backend=...)")
    token = _current.set(backend)
    try:
        yield backend
    finally:
        _current.reset(token)


def resolve_backend(backend: JobBackend | None, *, where: str) -> JobBackend:
    """``backend`` if given, else the current one; a clear error when there is none."""
    if backend is not None:
        return check_backend(backend, where=f"{where}(backend=...)")
    current = _current.get()
    if current is None:
        raise RuntimeError(
            f"{where}: no job backend; pass backend=..., create the app with "
            "Hedron(job_backend=...), or call hedron.jobs.bind_job_backend(app, backend)"
        )
    return current
