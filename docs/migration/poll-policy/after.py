"""Here polling always stops once the job has finished; set only the interval (the default
is 1000 ms, not 2000)."""

import secrets

from hedron import Hedron, JobScope, PollPolicy, TaskFlow
from hedron_core.jobs import InMemoryJobBackend

app = Hedron(title="Export", session_secret=secrets.token_urlsafe(48))
export = TaskFlow(
    "export",
    scope=lambda: JobScope(auth_subject="demo-user", tenant_id="demo-tenant"),
    backend=InMemoryJobBackend(),
    poll=PollPolicy(interval_ms=2000),
)
app.include(export)
