"""Your own code: it takes a resq client as an argument, so a test can hand it any client."""

from __future__ import annotations

import os

from resq import Requests
from resq.http import Response


class ExportNotReady(Exception):
    """The export was still not done when the polling window ended."""


def wait_for_export(client: Requests[Response], export_id: str) -> str:
    """Poll the export for up to 30 s and return its download path."""
    r = client.get(f"/exports/{export_id}", timeout=30, delay=2)
    if not r.ok:
        raise ExportNotReady(f"export {export_id}: still {r.status_code} after 30 s")
    return str(r.json()["download"])


def main(client: Requests[Response]) -> None:
    print("download:", wait_for_export(client, "7"))


if __name__ == "__main__":
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:8000")
    with Requests(base_url, adapter="requests", timeout=5) as client:
        main(client)
