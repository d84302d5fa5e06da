"""The steppable Poller: one attempt per step(), your code runs between attempts."""

from __future__ import annotations

import os

from resq import Requests
from resq.http import Poller, Response


def main(client: Requests[Response]) -> Response:
    poller = Poller(client.get("/job/42"), timeout=30, delay=2)
    while not poller.done:
        attempt = poller.step()  # the 1st step checks the response above; later ones reload it
        body = poller.response.json()
        if attempt.ok:
            print(f"step {attempt.number}: {attempt.status_code}, result {body['result']}")
        else:
            progress = f"{body['parts_done']} of {body['parts']} parts done"
            print(f"step {attempt.number}: {attempt.status_code}, {progress}")
    r = poller.response  # the wrapper that was polled, holding the last response
    print(r.status_code, r.text)
    return r


if __name__ == "__main__":
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:8000")
    with Requests(base_url, adapter="requests", timeout=5) as client:
        main(client)
