"""A 200 is not enough: until= keeps polling until the body says the export is done."""

from __future__ import annotations

import os

from resq import Requests
from resq.http import Response


def finished(r: Response) -> bool:
    """Only asked about good statuses: a 200 whose JSON says "done" ends the poll."""
    return bool(r.json()["state"] == "done")


def main(client: Requests[Response]) -> Response:
    r = client.get("/exports/7", timeout=30, delay=2, until=finished)
    print(r.status_code, r.json()["state"], r.json()["download"])
    return r


if __name__ == "__main__":
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:8000")
    with Requests(base_url, adapter="requests", timeout=5) as client:
        main(client)
