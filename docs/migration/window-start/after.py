"""Here the same call's window starts before its first request (a slow first answer counts).
To start the window after the first answer, poll it as a separate step."""

from resq import Requests
from resq.http import poll


def main(base_url: str) -> None:
    with Requests(base_url, "requests", timeout=5) as client:
        r = client.get("/job/42")  # the first answer, outside the window
        r = poll(r, timeout=30, delay=2)  # the window starts now
        print(r.status_code)  # 200
