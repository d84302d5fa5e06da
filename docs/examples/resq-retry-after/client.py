"""retry_after=True: never come back sooner than the server's Retry-After asks."""

from __future__ import annotations

import os

from resq import Requests
from resq.http import Response


def main(client: Requests[Response]) -> Response:
    # delay=1 is the client's own pace; the server's Retry-After wins when it asks for more
    r = client.get("/job/42", timeout=30, delay=1, retry_after=True)
    print(r.status_code, r.text)
    return r


if __name__ == "__main__":
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:8000")
    with Requests(base_url, adapter="requests", timeout=5) as client:
        main(client)
