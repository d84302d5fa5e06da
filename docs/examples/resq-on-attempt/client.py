"""on_attempt: a callback after every attempt, here one progress line per request."""

from __future__ import annotations

import os

from resq import Requests
from resq.http import Attempt, Response


def show(a: Attempt) -> None:
    """Called after each attempt, before the pause (or at the end, when ``a.done``)."""
    after = "polling stops" if a.done else f"next attempt in {a.next_delay:g}s"
    print(f"attempt {a.number}: {a.status_code} after {a.elapsed:.0f}s, {after}")


def main(client: Requests[Response]) -> Response:
    r = client.get("/job/42", timeout=30, delay=2, on_attempt=show)
    print(r.status_code, r.text)
    return r


if __name__ == "__main__":
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:8000")
    with Requests(base_url, adapter="requests", timeout=5) as client:
        main(client)
