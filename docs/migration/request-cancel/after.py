"""Here request_cancel answers the job once its cancel is recorded, and None when none was
(the job is missing, someone else's, or finished): test whether it is true."""

from hedron_core.jobs import InMemoryJobBackend

backend = InMemoryJobBackend()
SCOPE = {"auth_subject": "ann", "tenant_id": "acme"}

job = backend.submit("export", {"rows": 10}, **SCOPE)
status = backend.request_cancel(job.id, **SCOPE)
if status:
    print(status.state.value)  # cancelled
if not backend.request_cancel(job.id, **SCOPE):
    print("already finished")  # already finished
