"""Durable jobs, host-neutral: states, the backend protocol, backends and runners.

Example:
    >>> from hedron_core.jobs import InMemoryJobBackend, JobState
    >>> backend = InMemoryJobBackend()
    >>> job = backend.submit("demo", {"n": 1}, auth_subject="u", tenant_id="t")
    >>> backend.mark(job.id, JobState.SUCCEEDED, result={"ok": True}).terminal
    True
"""

from ._clock import VirtualClock, current_clock, use_clock
from ._context import JobCancelledError, Task, TaskContext
from ._local import RUNNER_ENV, local_runner
from ._machine import (
    IdempotencyConflictError,
    IllegalTransitionError,
    JobNotFoundError,
    check_transition,
    new_job_id,
)
from ._memory import InMemoryJobBackend, ProductionRefusedError
from ._protocol import ClaimingJobBackend, JobBackend
from ._sqlite import SQLiteJobBackend
from ._stepping import SteppingRunner
from ._threads import ThreadPoolRunner
from ._types import TERMINAL_STATES, JobProgress, JobScope, JobState, JobStatus
from ._view import describe_status, job_result_view, job_status_view

__all__ = [
    "RUNNER_ENV",
    "TERMINAL_STATES",
    "ClaimingJobBackend",
    "IdempotencyConflictError",
    "IllegalTransitionError",
    "InMemoryJobBackend",
    "JobBackend",
    "JobCancelledError",
    "JobNotFoundError",
    "JobProgress",
    "JobScope",
    "JobState",
    "JobStatus",
    "ProductionRefusedError",
    "SQLiteJobBackend",
    "SteppingRunner",
    "Task",
    "TaskContext",
    "ThreadPoolRunner",
    "VirtualClock",
    "check_transition",
    "current_clock",
    "describe_status",
    "job_result_view",
    "job_status_view",
    "local_runner",
    "new_job_id",
    "use_clock",
]
