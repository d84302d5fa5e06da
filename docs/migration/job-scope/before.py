"""hedron 1.1.3: a tenant-wide scope, without a subject."""

from hedron import JobScope

scope = JobScope(auth_subject=None, tenant_id="acme")
