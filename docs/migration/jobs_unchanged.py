"""hedron 1.1.3 job code that runs here unchanged, on any job backend: the id from
``.job_id``, the fields under their old names, and ``request_cancel`` read as true or false."""


def main(backend) -> None:
    handle = backend.submit("export", {"rows": 10}, tenant_id="acme", auth_subject="ann")
    job_id = handle.job_id
    status = backend.get(job_id, auth_subject="ann", tenant_id="acme")
    print(status.job_type, status.tenant_id, status.auth_subject)  # export acme ann
    print(status.retry_after)  # 2
    if backend.request_cancel(job_id, auth_subject="ann", tenant_id="acme"):
        print("cancel requested")  # cancel requested
    if not backend.request_cancel(job_id, auth_subject="ann", tenant_id="acme"):
        print("nothing left to cancel")  # nothing left to cancel
