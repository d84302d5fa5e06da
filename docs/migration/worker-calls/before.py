"""hedron 1.1.3: a worker read a job without a scope, and mark() on a missing job gave None."""

from hedron_core.jobs import InMemoryJobBackend, JobState

backend = InMemoryJobBackend()
job = backend.submit("export", {"rows": 10}, auth_subject="ann", tenant_id="acme")

status = backend.get(job.job_id)  # refused here: a read names its scope
backend.mark("no-such-job", JobState.SUCCEEDED)  # 1.1.3: None
backend.cleanup_expired(older_than_seconds=3600)
