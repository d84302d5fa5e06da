"""The easy way: a verb with a timeout polls for you."""

from __future__ import annotations

import os

from resq import Requests
from resq.http import Response


def main(client: Requests[Response]) -> Response:
    r = client.get("/job/42", timeout=30, delay=2)  # the verb polls for you
    print(r.status_code, r.text)
    return r


if __name__ == "__main__":
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:8000")
    with Requests(base_url, adapter="requests", timeout=5) as client:
        main(client)
