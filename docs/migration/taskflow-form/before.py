"""hedron 1.1.3: the form came from the flow's submit command; routes lived under /report/."""

from hedron import JobScope, TaskFlow

reports = TaskFlow(
    name="report",
    job_type="build-report",
    scope=lambda: JobScope(auth_subject="dev", tenant_id="local"),
)
form = reports.submit_command.form()
