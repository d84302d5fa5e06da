"""hedron 1.1.3: request_cancel answered True or False."""

from hedron_core.jobs import InMemoryJobBackend

backend = InMemoryJobBackend()
SCOPE = {"auth_subject": "ann", "tenant_id": "acme"}

job = backend.submit("export", {"rows": 10}, **SCOPE)
accepted = backend.request_cancel(job.job_id, **SCOPE)
print(accepted is True)  # 1.1.3: True    here: False (the answer is the job)
