"""``InMemoryJobBackend``: a dict behind a lock, for local demos and tests only."""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from collections.abc import Callable, Collection
from typing import Any

from ._checks import (
    check_job_id,
    check_job_types,
    check_key,
    check_number,
    dump_json,
    is_job_id,
)
from ._clock import clock_or_current
from ._machine import (
    IdempotencyConflictError,
    IllegalTransitionError,
    JobNotFoundError,
    check_transition,
    cleanup_now,
    coerce_state,
    make_progress,
    new_job_id,
    validate_lease,
    validate_mark,
    validate_scope,
    validate_submit,
)
from ._types import JobScope, JobState, JobStatus

__all__ = ["InMemoryJobBackend", "ProductionRefusedError"]

DEFAULT_RETENTION_S = 24 * 3600.0


class ProductionRefusedError(RuntimeError):
    """The in-memory backend was created while ``HEDRON_ENV=production``."""


class InMemoryJobBackend:
    """Keeps jobs in process memory: lost on restart, invisible to other processes.

    Meant for local demos, tests and the in-browser docs. Creating one while the environment
    variable ``HEDRON_ENV`` is ``production`` raises :class:`ProductionRefusedError`; use
    :class:`~hedron_core.jobs.SQLiteJobBackend` (one host) or a Redis backend instead.

    Args:
        clock: Returns "now" in seconds (default: the current clock, see
            :func:`~hedron_core.jobs.use_clock`, which is ``time.time`` unless set); inject a
            virtual clock for deterministic tests and demos.
        retention_s: How long terminal jobs are kept before ``cleanup_expired`` removes them.

    Example:
        >>> backend = InMemoryJobBackend()
        >>> job = backend.submit("demo", {"n": 1}, auth_subject="u", tenant_id="t")
        >>> backend.get(job.id, auth_subject="u", tenant_id="t").state.value
        'queued'
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] | None = None,
        retention_s: float = DEFAULT_RETENTION_S,
    ) -> None:
        if os.environ.get("HEDRON_ENV", "").strip().lower() == "production":
            raise ProductionRefusedError(
                "InMemoryJobBackend is for local demos only and is refused when "
                "HEDRON_ENV=production (jobs would be lost on restart and invisible to other "
                "workers); use SQLiteJobBackend or a Redis backend"
            )
        retention = check_number(
            retention_s, "retention_s", "InMemoryJobBackend", infinite="keep finished jobs for ever"
        )
        self._clock = clock_or_current(clock, "InMemoryJobBackend")
        self._retention_s = retention
        self._lock = threading.Lock()
        self._jobs: dict[str, JobStatus] = {}
        self._payload_json: dict[str, str] = {}
        self._idem: dict[tuple[str, str, str], str] = {}
        self._leases: dict[str, tuple[str, float]] = {}

    # --- user-facing -------------------------------------------------------------------

    def submit(
        self,
        job_type: str,
        payload: Any,
        *,
        auth_subject: str,
        tenant_id: str,
        idempotency_key: str | None = None,
    ) -> JobStatus:
        """Store a new QUEUED job (see :meth:`JobBackend.submit`)."""
        validate_submit(job_type, auth_subject, tenant_id, idempotency_key)
        payload_json = dump_json(payload, "payload", "submit")
        with self._lock:
            if idempotency_key is not None:
                existing_id = self._idem.get((auth_subject, tenant_id, idempotency_key))
                if existing_id is not None and existing_id in self._jobs:
                    existing = self._jobs[existing_id]
                    if existing.type != job_type or self._payload_json[existing_id] != payload_json:
                        raise IdempotencyConflictError(
                            f"submit: idempotency_key {idempotency_key!r} was already used in "
                            "this scope with a different job_type or payload"
                        )
                    return existing
            now = self._clock()
            status = JobStatus(
                id=new_job_id(),
                state=JobState.QUEUED,
                type=job_type,
                scope=JobScope(auth_subject, tenant_id),
                payload=_copy(payload_json),
                created_at=now,
                updated_at=now,
                idempotency_key=idempotency_key,
            )
            self._jobs[status.id] = status
            self._payload_json[status.id] = payload_json
            if idempotency_key is not None:
                self._idem[(auth_subject, tenant_id, idempotency_key)] = status.id
            return status

    def get(self, job_id: str, *, auth_subject: str, tenant_id: str) -> JobStatus | None:
        """The job if it exists in this scope, else ``None``."""
        validate_scope(auth_subject, tenant_id, "get")
        if not is_job_id(job_id, "get"):
            return None
        status = self._jobs.get(job_id)
        if status is None or not status.owned_by(auth_subject, tenant_id):
            return None
        return status

    def request_cancel(self, job_id: str, *, auth_subject: str, tenant_id: str) -> JobStatus | None:
        """Cancel a QUEUED job, flag a RUNNING one and return it; ``None`` when no cancel was
        recorded (missing, foreign or finished job)."""
        validate_scope(auth_subject, tenant_id, "request_cancel")
        if not is_job_id(job_id, "request_cancel"):
            return None
        with self._lock:
            status = self._jobs.get(job_id)
            if status is None or status.terminal or not status.owned_by(auth_subject, tenant_id):
                return None
            now = self._clock()
            if status.state is JobState.QUEUED:
                new = dataclasses.replace(
                    status,
                    state=JobState.CANCELLED,
                    cancel_requested=True,
                    updated_at=now,
                    finished_at=now,
                )
            else:
                new = dataclasses.replace(status, cancel_requested=True, updated_at=now)
            self._jobs[job_id] = new
            return new

    # --- worker-side -------------------------------------------------------------------

    def load(self, job_id: str) -> JobStatus | None:
        """Unscoped read for workers."""
        return self._jobs.get(job_id) if is_job_id(job_id, "load") else None

    def mark(
        self, job_id: str, state: JobState, *, result: Any = None, error: str | None = None
    ) -> JobStatus:
        """Move the job forward (see :meth:`JobBackend.mark`)."""
        check_job_id(job_id, "mark")
        new_state = coerce_state(state)
        result_json, error = validate_mark(new_state, result, error)
        with self._lock:
            status = self._require(job_id)
            check_transition(job_id, status.state, new_state)
            now = self._clock()
            changes: dict[str, Any] = {"state": new_state, "updated_at": now}
            if new_state is JobState.RUNNING:
                changes["started_at"] = now
            else:
                changes["finished_at"] = now
                changes["result"] = _copy(result_json)
                changes["error"] = error
                self._leases.pop(job_id, None)
            new = dataclasses.replace(status, **changes)
            self._jobs[job_id] = new
            return new

    def progress(self, job_id: str, k: int, n: int, message: str = "") -> JobStatus:
        """Record progress while RUNNING (see :meth:`JobBackend.progress`)."""
        check_job_id(job_id, "progress")
        prog = make_progress(k, n, message)
        with self._lock:
            status = self._require(job_id)
            if status.state is not JobState.RUNNING:
                raise IllegalTransitionError(job_id, status.state, "progress")
            new = dataclasses.replace(status, progress=prog, updated_at=self._clock())
            self._jobs[job_id] = new
            return new

    def claim(self, job_id: str, *, worker: str, lease_s: float) -> JobStatus | None:
        """Claim a QUEUED job or a RUNNING one whose lease ran out."""
        check_job_id(job_id, "claim")
        lease_s = validate_lease(worker, lease_s, "claim")
        with self._lock:
            status = self._jobs.get(job_id)
            if status is None or not self._claimable(status):
                return None
            return self._claim_locked(status, worker, lease_s)

    def claim_next(
        self, *, worker: str, lease_s: float, job_types: Collection[str] | None = None
    ) -> JobStatus | None:
        """Claim the oldest claimable job, optionally only of ``job_types``."""
        lease_s = validate_lease(worker, lease_s, "claim_next")
        job_types = check_job_types(job_types, "claim_next")
        with self._lock:
            for status in self._jobs.values():  # insertion order == submit order
                if job_types is not None and status.type not in job_types:
                    continue
                if self._claimable(status):
                    return self._claim_locked(status, worker, lease_s)
        return None

    def renew(self, job_id: str, *, worker: str, lease_s: float) -> bool:
        """Extend ``worker``'s lease on a RUNNING job."""
        check_job_id(job_id, "renew")
        return self._lease(job_id, worker, validate_lease(worker, lease_s, "renew"))

    def release(self, job_id: str, *, worker: str) -> bool:
        """End ``worker``'s lease on a RUNNING job now, so that another worker may claim it
        at once (a runner that stops does this); ``False`` if it holds no lease."""
        check_job_id(job_id, "release")
        return self._lease(job_id, check_key(worker, "worker", "release"), 0.0)

    def _lease(self, job_id: str, worker: str, lease_s: float) -> bool:
        with self._lock:
            lease = self._leases.get(job_id)
            status = self._jobs.get(job_id)
            if lease is None or lease[0] != worker or status is None:
                return False
            if status.state is not JobState.RUNNING:
                return False
            self._leases[job_id] = (worker, self._clock() + lease_s)
            return True

    def cleanup_expired(self, *, now: float | None = None) -> int:
        """Delete terminal jobs finished more than ``retention_s`` ago."""
        cutoff = cleanup_now(now, self._clock) - self._retention_s
        with self._lock:
            doomed = [
                s
                for s in self._jobs.values()
                if s.terminal and s.finished_at is not None and s.finished_at <= cutoff
            ]
            for s in doomed:
                del self._jobs[s.id]
                self._payload_json.pop(s.id, None)
                self._leases.pop(s.id, None)
                if s.idempotency_key is not None:
                    key = (s.scope.auth_subject, s.scope.tenant_id, s.idempotency_key)
                    if self._idem.get(key) == s.id:
                        del self._idem[key]
            return len(doomed)

    def close(self) -> None:
        """Nothing to release (kept for the protocol)."""

    def __len__(self) -> int:
        return len(self._jobs)

    # --- internals -----------------------------------------------------------------------

    def _require(self, job_id: str) -> JobStatus:
        status = self._jobs.get(job_id)
        if status is None:
            raise JobNotFoundError(str(job_id))
        return status

    def _claimable(self, status: JobStatus) -> bool:
        if status.state is JobState.QUEUED:
            return True
        if status.state is JobState.RUNNING:
            lease = self._leases.get(status.id)
            return lease is None or lease[1] <= self._clock()
        return False

    def _claim_locked(self, status: JobStatus, worker: str, lease_s: float) -> JobStatus:
        now = self._clock()
        new = dataclasses.replace(
            status,
            state=JobState.RUNNING,
            started_at=status.started_at if status.started_at is not None else now,
            updated_at=now,
            attempts=status.attempts + 1,
        )
        self._jobs[status.id] = new
        self._leases[status.id] = (worker, now + lease_s)
        return new


def _copy(json_text: str | None) -> Any:
    """A fresh deep copy of a JSON value, so callers cannot mutate stored state."""
    return None if json_text is None else json.loads(json_text)
