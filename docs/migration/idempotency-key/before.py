"""hedron 1.1.3: a key used again with another payload gave back the first job."""

from hedron_core.jobs import InMemoryJobBackend

backend = InMemoryJobBackend()
SCOPE = {"auth_subject": "ann", "tenant_id": "acme"}

first = backend.submit("export", {"rows": 10}, idempotency_key="order-7", **SCOPE)
again = backend.submit("export", {"rows": 99}, idempotency_key="order-7", **SCOPE)  # refused here
