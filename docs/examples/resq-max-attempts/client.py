"""max_attempts: at most three requests, whatever the window; then the last response."""

from __future__ import annotations

import os

from resq import Requests
from resq.http import Response


def main(client: Requests[Response]) -> Response:
    r = client.get("/job/42", timeout=60, delay=2, max_attempts=3)
    if not r.ok:  # three attempts were made: no exception, the last response comes back
        print("not done after 3 attempts:", r.status_code, r.json()["state"])
    return r


if __name__ == "__main__":
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:8000")
    with Requests(base_url, adapter="requests", timeout=5) as client:
        main(client)
