"""hedron 1.1.3: one job backend for the whole process."""

from hedron_core.jobs import InMemoryJobBackend, set_job_backend

set_job_backend(InMemoryJobBackend())
