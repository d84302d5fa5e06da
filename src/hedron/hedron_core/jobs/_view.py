"""How a job's status looks: tone and message per state, progress, error text (host-neutral)."""

from __future__ import annotations

import json
from collections.abc import Callable

from hedron_core._base import Component
from hedron_core.components import Alert, Code, ProgressBar, Stack, Status
from hedron_core.components._tones import Tone

from ._types import JobState, JobStatus

__all__ = ["describe_status", "job_result_view", "job_status_view"]

_MESSAGES: dict[JobState, tuple[Tone, str]] = {
    JobState.QUEUED: ("info", "Queued…"),
    JobState.RUNNING: ("info", "Running…"),
    JobState.SUCCEEDED: ("success", "Done."),
    JobState.FAILED: ("error", "Failed."),
    JobState.CANCELLED: ("warning", "Cancelled."),
}


def describe_status(status: JobStatus) -> tuple[Tone, str]:
    """The tone and one-line message shown for a job.

    A RUNNING job whose cancel was requested reads ``"Cancelling…"``.

    Example:
        >>> from hedron_core.jobs import JobScope
        >>> s = JobStatus(id="j", state=JobState.FAILED, type="t", scope=JobScope("u", "t"))
        >>> describe_status(s)
        ('error', 'Failed.')
    """
    if status.state is JobState.RUNNING and status.cancel_requested:
        return "warning", "Cancelling…"
    return _MESSAGES[status.state]


def job_result_view(status: JobStatus) -> Component:
    """The default result view: the JSON result in a code block.

    Example:
        >>> from hedron_core import render
        >>> from hedron_core.jobs import JobScope
        >>> s = JobStatus(
        ...     id="j", state=JobState.SUCCEEDED, type="t", scope=JobScope("u", "t"),
        ...     result={"ok": True},
        ... )
        >>> render(job_result_view(s))
        '<pre class="h-pre"><code class="h-code">{\\n  "ok": true\\n}</code></pre>'
    """
    return Code(json.dumps(status.result, indent=2, sort_keys=True, ensure_ascii=False))


def _shown(text: str | None, fallback: str) -> str:
    """``text``, or ``fallback`` when it is missing or blank (spaces, newlines, NBSP, ...)."""
    return text if text and not text.isspace() else fallback


def job_status_view(
    status: JobStatus, *, result_view: Callable[[JobStatus], Component] | None = None
) -> Component:
    """A job's status as components: a ``Status`` line, plus progress / error / result.

    - RUNNING with progress: a ``ProgressBar`` (k of n, labelled with the progress message,
      or "Progress" when it is blank).
    - FAILED: an error ``Alert`` with the job's error text ("The job failed." when blank).
    - SUCCEEDED: ``result_view(status)`` when given.

    Args:
        status: The job.
        result_view: Renders the result of a SUCCEEDED job (default: nothing extra).

    Example:
        >>> from hedron_core import render
        >>> from hedron_core.jobs import JobScope
        >>> s = JobStatus(id="j", state=JobState.QUEUED, type="t", scope=JobScope("u", "t"))
        >>> render(job_status_view(s))  # doctest: +ELLIPSIS
        '<div class="h-stack ...role="status" aria-live="polite">Queued…</div></div>'
    """
    tone, message = describe_status(status)
    parts: list[Component] = [Status(message, tone=tone)]
    if status.state is JobState.RUNNING and status.progress is not None:
        prog = status.progress
        parts.append(ProgressBar(prog.k, max=prog.n, label=_shown(prog.message, "Progress")))
    elif status.state is JobState.FAILED:
        parts.append(Alert(_shown(status.error, "The job failed."), tone="error", title="Error"))
    elif status.state is JobState.SUCCEEDED and result_view is not None:
        parts.append(result_view(status))
    return Stack(*parts, gap="sm")
