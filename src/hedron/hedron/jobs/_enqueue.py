"""``enqueue_durable`` and ``authorize_submit``: submitting work under an explicit scope."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fastapi import HTTPException

from hedron_core.jobs import JobBackend, JobScope
from hedron_core.jobs._checks import dump_json
from hedron_core.jobs._machine import validate_submit

from ._binding import resolve_backend

__all__ = ["SubmitPolicy", "authorize_submit", "enqueue_durable"]

SubmitPolicy = Callable[[JobScope, str, Any], bool]
"""``policy(scope, job_type, payload) -> bool``: may this scope submit this job?"""


def enqueue_durable(
    job_type: str,
    payload: Any,
    *,
    auth_subject: str,
    tenant_id: str,
    idempotency_key: str | None = None,
    backend: JobBackend | None = None,
) -> str:
    """Store a job durably in the given scope and return its id.

    The job is acknowledged (stored) before this returns. Without ``backend=``, the backend
    bound to the app serving the current request is used (``Hedron(job_backend=...)``).
    With an ``idempotency_key``, submitting again in the same scope returns the same id.

    Args:
        job_type: What kind of job (the runner's task name).
        payload: JSON-serialisable input for the task.
        auth_subject: Who submits (explicit; never inferred).
        tenant_id: For which tenant.
        idempotency_key: Optional key making retries safe (scoped to subject and tenant).
        backend: The backend to use (default: the current app's).

    Returns:
        The job id (at least 128 random bits, URL-safe).

    Example:
        >>> from hedron_core.jobs import InMemoryJobBackend
        >>> backend = InMemoryJobBackend()
        >>> job_id = enqueue_durable(
        ...     "demo", {"n": 1}, auth_subject="u", tenant_id="t", backend=backend
        ... )
        >>> backend.get(job_id, auth_subject="u", tenant_id="t").state.value
        'queued'
    """
    validate_submit(job_type, auth_subject, tenant_id, idempotency_key, "enqueue_durable")
    dump_json(payload, "payload", "enqueue_durable")
    store = resolve_backend(backend, where="enqueue_durable")
    status = store.submit(
        job_type,
        payload,
        auth_subject=auth_subject,
        tenant_id=tenant_id,
        idempotency_key=idempotency_key,
    )
    return status.id


def _as_scope(scope: object) -> JobScope | None:
    if scope is None or isinstance(scope, JobScope):
        return scope
    if isinstance(scope, Mapping):
        unknown = set(scope) - {"auth_subject", "tenant_id"}
        if unknown:
            raise TypeError(f"authorize_submit(scope=...) has unknown keys: {sorted(unknown)}")
        return JobScope(scope.get("auth_subject"), scope.get("tenant_id"))  # type: ignore[arg-type]
    raise TypeError(
        "authorize_submit(scope=...) must be a JobScope, a mapping with auth_subject and "
        f"tenant_id, or None; got {type(scope).__name__}"
    )


def authorize_submit(
    scope: JobScope | Mapping[str, str] | None,
    job_type: str,
    payload: Any = None,
    *,
    policy: SubmitPolicy | None = None,
) -> JobScope:
    """Check that an explicit identity may submit ``job_type``; return its ``JobScope``.

    The identity is always given by the caller (from its own authentication), never
    inferred. No identity answers ``401``; a ``policy`` that returns ``False`` answers
    ``403``. Both are raised as ``fastapi.HTTPException`` before anything is stored.

    Args:
        scope: The caller's ``JobScope`` (or ``{"auth_subject", "tenant_id"}``), or ``None``
            when the request is not authenticated.
        job_type: The job about to be submitted.
        payload: Its payload (passed to ``policy``).
        policy: ``policy(scope, job_type, payload) -> bool``.

    Example:
        >>> scope = authorize_submit(
        ...     JobScope("alice", "acme"), "export", policy=lambda s, t, p: t == "export"
        ... )
        >>> scope.auth_subject
        'alice'
    """
    resolved = _as_scope(scope)
    if resolved is None:
        raise HTTPException(status_code=401, detail="Authentication required to submit jobs")
    if policy is not None and not policy(resolved, job_type, payload):
        raise HTTPException(status_code=403, detail=f"Not allowed to submit {job_type!r} jobs")
    return resolved
