"""Here the last pause ends at the deadline: attempts at 0, 2, 4 and 5 s. For an attempt at
6 s, make the window 6 s long."""

from resq import Requests


def main(base_url: str) -> None:
    with Requests(base_url, "requests") as client:
        r = client.get("/never-done", timeout=6, delay=2)
        print(r.status_code)  # 503
