"""raise_on_timeout=True: a window that elapses raises PollTimeout instead of returning."""

from __future__ import annotations

import os

from resq import Requests
from resq.http import PollTimeout, Response


def main(client: Requests[Response]) -> Response:
    try:
        r = client.get("/job/42", timeout=6, delay=2, raise_on_timeout=True)
    except PollTimeout as exc:  # a TimeoutError: no success status within the window
        r = exc.response  # the wrapper that was polled, holding the last response
        print("PollTimeout after", exc.attempts, "attempts, last status", r.status_code)
        print("last answer:", r.json())
    return r


if __name__ == "__main__":
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:8000")
    with Requests(base_url, adapter="requests", timeout=5) as client:
        main(client)
