"""resq 1.0.0: reload() refreshed the response in place and returned None."""

from resq import Requests


def main(base_url: str) -> None:
    with Requests(base_url, "requests") as client:
        r = client.get("/job/7")  # 503
        r.reload()  # 503
        r.reload()  # 200
        print(r.status_code)  # 200
