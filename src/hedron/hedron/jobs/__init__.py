"""Durable jobs for FastAPI/Hedron apps: enqueue, scoped status polling, TaskFlow.

The host-neutral parts (states, backends, runners) live in :mod:`hedron_core.jobs`.

Example:
    >>> from hedron.jobs import enqueue_durable, job_status_response  # doctest: +SKIP
"""

from hedron_core.jobs import JobScope

from ._binding import bind_job_backend, current_job_backend, use_job_backend
from ._enqueue import SubmitPolicy, authorize_submit, enqueue_durable
from ._responses import (
    RESULT_NOT_READY_STATUS,
    JobStatusResponse,
    job_result_response,
    job_status_response,
    prefers_json,
)
from ._sse import job_status_events
from ._taskflow import PollPolicy, ScopeResolver, TaskFlow

__all__ = [
    "RESULT_NOT_READY_STATUS",
    "JobScope",
    "JobStatusResponse",
    "PollPolicy",
    "ScopeResolver",
    "SubmitPolicy",
    "TaskFlow",
    "authorize_submit",
    "bind_job_backend",
    "current_job_backend",
    "enqueue_durable",
    "job_result_response",
    "job_status_events",
    "job_status_response",
    "prefers_json",
    "use_job_backend",
]
