"""When the window elapses, poll returns the last response; inspect it, then reload()."""

from __future__ import annotations

import os

from resq import Requests
from resq.http import Response, poll


def main(client: Requests[Response]) -> Response:
    r = client.get("/job/42")
    r = poll(r, timeout=30, delay=2)
    if not r.ok:
        print("window elapsed, last status", r.status_code)  # no exception was raised
        r.reload()  # one more request, the same wrapper is refreshed in place
    print(r.status_code, r.text)
    return r


if __name__ == "__main__":
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:8000")
    with Requests(base_url, adapter="requests", timeout=5) as client:
        main(client)
