"""hedron 1.1.3: the experimental job-status SSE helper."""

from hedron.experimental import job_status_sse_response  # noqa: F401
