"""Here a key stands for one request: the same request gets the same job back, and another
payload needs a key of its own."""

from hedron_core.jobs import InMemoryJobBackend

backend = InMemoryJobBackend()
SCOPE = {"auth_subject": "ann", "tenant_id": "acme"}

first = backend.submit("export", {"rows": 10}, idempotency_key="order-7", **SCOPE)
retry = backend.submit("export", {"rows": 10}, idempotency_key="order-7", **SCOPE)
other = backend.submit("export", {"rows": 99}, idempotency_key="order-8", **SCOPE)
print(retry.job_id == first.job_id, other.job_id == first.job_id)  # True False
