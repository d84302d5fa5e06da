"""resq 1.0.0: with timeout=5, delay=2 the attempts were at 0, 2, 4 and 6 s (one after the end)."""

from resq import Requests


def main(base_url: str) -> None:
    with Requests(base_url, "requests") as client:
        r = client.get("/never-done", timeout=5, delay=2)
        print(r.status_code)  # 503
