"""Build the primary response with a plain verb, then poll it as a separate step."""

from __future__ import annotations

import os

from resq import Requests
from resq.http import Response, poll


def main(client: Requests[Response]) -> Response:
    r = client.get("/job/42")  # single request, a Response
    r = poll(r, timeout=30, delay=2)  # poll up to 30s, 2s apart
    print(r.status_code, r.text)
    return r


if __name__ == "__main__":
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:8000")
    with Requests(base_url, adapter="requests", timeout=5) as client:
        main(client)
