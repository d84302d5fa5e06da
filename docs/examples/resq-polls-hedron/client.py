"""resq waits for a hedron job: the result URL answers 409 until the job is done."""

from __future__ import annotations

import os

from resq import Requests
from resq.http import Response


def main(client: Requests[Response]) -> Response:
    created = client.post("/reports")
    url = created.json()["result"]
    r = client.get(url, timeout=30, delay=2)  # polls while the answer is 409
    print(r.status_code, r.json()["state"], r.json()["result"])
    return r


if __name__ == "__main__":
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:8000")
    with Requests(base_url, adapter="requests", timeout=5) as client:
        main(client)
