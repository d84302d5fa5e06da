"""Here a worker reads with load(); mark() on a missing job raises, and how long finished jobs
are kept is set on the backend."""

from hedron_core.jobs import InMemoryJobBackend, JobNotFoundError, JobState

backend = InMemoryJobBackend(retention_s=3600)
job = backend.submit("export", {"rows": 10}, auth_subject="ann", tenant_id="acme")

status = backend.load(job.id)  # the worker's read, without a scope
backend.mark(job.id, JobState.RUNNING)
try:
    backend.mark("no-such-job", JobState.SUCCEEDED)
except JobNotFoundError as exc:
    print(exc)  # job 'no-such-job' not found
print(backend.cleanup_expired())  # 0: the job is not finished
