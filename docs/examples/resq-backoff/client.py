"""Exponential backoff: the pause doubles after each failed attempt, up to max_delay."""

from __future__ import annotations

import os

from resq import Requests
from resq.http import Response


def main(client: Requests[Response]) -> Response:
    # pauses of 1, 2, 4, then 4 again (8 is capped by max_delay): requests at 0, 1, 3, 7, 11, 15 s
    r = client.get("/job/42", timeout=60, delay=1, backoff=2, max_delay=4)
    print(r.status_code, r.text)
    return r


if __name__ == "__main__":
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:8000")
    with Requests(base_url, adapter="requests", timeout=5) as client:
        main(client)
