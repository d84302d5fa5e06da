"""resq 1.0.0: the verb's polling window began once the first answer was in."""

from resq import Requests


def main(base_url: str) -> None:
    with Requests(base_url, "requests", timeout=5) as client:
        r = client.get("/job/42", timeout=30, delay=2)
        print(r.status_code)  # 200
